# The shared libraries export their API and nothing else: a name of
# libprofev's insides (err_set, encoder_new, ...) exported from it would clash
# with a name of the program that links it.
#   - libprofev.so exports exactly the functions and objects its installed
#     headers declare (profev_trace.h, _conv.h, _dump.h, _record.h, _sym.h);
#   - libprofev-client.so and libprofev-tracy.so export only profev_ names,
#     and libprofev-tracy also Tracy's C API (___tracy_*).
. "$PROFEV_ROOT/tests/cli/lib.sh"
command -v nm >/dev/null || { echo "SKIP nm (binutils) not found"; exit 77; }
B=$PROFEV_BUILD
# The names, without symbol versions; AddressSanitizer's one-definition
# indicator of an exported variable (__odr_asan.NAME) stands for NAME.
exports() { nm -D --defined-only "$1" | awk '{ print $NF }' | sed 's/@.*//; s/^__odr_asan[.]//' | sort -u; }

for lib in libprofev.so.0 libprofev-client.so.0 libprofev-tracy.so.0; do
	[ -f "$B/$lib" ] || fail "$lib not built"
	exports "$B/$lib" > "$lib.txt"
	[ -s "$lib.txt" ] || fail "$lib exports nothing"
	case $lib in
	libprofev-tracy*) allowed='^(profev_|PROFEV_|___tracy_)' ;;
	*) allowed='^(profev_|PROFEV_)' ;;
	esac
	if grep -Ev "$allowed" "$lib.txt" > stray.txt; then
		fail "$lib exports $(wc -l < stray.txt) names without the profev_ prefix: $(head -20 stray.txt | tr '\n' ' ')"
	fi
done

# What the headers declare: each name before a '(' or ';' of the
# preprocessed headers, less the static inline functions.
printf '#include <profev_%s.h>\n' trace conv dump record sym > api.c
cc -E -P -I"$PROFEV_ROOT/lib/include" api.c | tr '\n' ' ' > api.i || fail "cannot preprocess the headers"
grep -o 'profev_[a-z0-9_]* *[(;]' api.i | sed 's/ *[(;]$//' | sort -u > declared.txt
grep -o 'static inline [^;{(]*[ *]profev_[a-z0-9_]* *(' api.i | grep -o 'profev_[a-z0-9_]* *($' |
	sed 's/ *($//' | sort -u > inline.txt
comm -23 declared.txt inline.txt > api.txt
# Struct tags (struct profev_reader;) are names before ';' too: keep only
# what the library defines, then compare both ways.
nm --defined-only "$B/libprofev.a" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u > defined.txt
comm -12 api.txt defined.txt > want.txt
[ "$(wc -l < want.txt)" -gt 50 ] || fail "found only $(wc -l < want.txt) API functions in the headers"
comm -23 want.txt libprofev.so.0.txt > missing.txt
[ -s missing.txt ] && fail "libprofev.so does not export its API: $(tr '\n' ' ' < missing.txt)"
comm -13 want.txt libprofev.so.0.txt > extra.txt
[ -s extra.txt ] && fail "libprofev.so exports what no installed header declares: $(head -20 extra.txt | tr '\n' ' ')"
exit 0
