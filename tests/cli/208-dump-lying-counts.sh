# Chunks whose checksums are right but whose bodies lie (mktrace hostile):
# every command gives a clean error or reads them, never a crash, never a
# huge allocation. Each input is the regression case of a reader defect.
. "$PROFEV_ROOT/tests/cli/lib.sh"
# Outside the sanitizer builds (which reserve address space of their own)
# the address space is limited to 1 GiB: a reader that believed a count and
# allocated for it says "out of memory" instead of "malformed".
limit=
case "${PROFEV_BUILD##*/}" in build-*) ;; *) limit="ulimit -v 1048576;" ;; esac
run() { # CODE CMD...: expect_exit with the address-space limit
	want=$1; shift
	sh -c "$limit exec \"\$@\"" sh "$@" >out.txt 2>err.txt
	got=$?
	[ "$got" -eq "$want" ] || { cat err.txt >&2; fail "'$*' exited $got, expected $want"; }
}
for k in argv-cut strings-count stacks-count symbols-empty; do
	"$MKTRACE" hostile $k $k.bin || fail "mktrace hostile $k"
	[ "$(wc -c <$k.bin)" -lt 200 ] || fail "$k.bin is not small"
done

# argv-cut: argc 1 with argv NULL once crashed pfdump --stats and pfconv.
run 1 pfdump --stats argv-cut.bin
contains err.txt "pfdump: 'argv-cut.bin': chunk 0 at offset 16: metadata chunk: malformed"
contains out.txt "program:      a"
run 1 pfconv to perfetto argv-cut.bin -o argv.pftrace
contains err.txt "pfconv: 'argv-cut.bin': chunk 0 at offset 16: metadata chunk: malformed"
run 1 pfconv to chrome argv-cut.bin -o argv.json

# strings-count, stacks-count: 2^31 - 16 entries claimed in a 3-byte body;
# the reader once allocated and zeroed 16 GiB before looking at the body.
for k in strings stacks; do
	for cmd in "pfdump --stats" "pfdump" "pfconv to perfetto -o x.pftrace" "pfconv to folded -o x.folded"; do
		# shellcheck disable=SC2086
		run 1 $cmd $k-count.bin
		contains err.txt "'$k-count.bin': chunk 0 at offset 16: $k chunk: malformed"
		lacks err.txt "out of memory"
	done
	run 1 pfsym -o sym.bin $k-count.bin
	lacks err.txt "out of memory"
	contains err.txt "$k-count.bin"
done

# symbols-empty: a whole trace, one symbol entry without frames (NULL + 0
# in the parser, seen by clang's UBSan).
run 0 pfdump --stats symbols-empty.bin
run 0 pfconv to perfetto symbols-empty.bin -o s.pftrace
