# Traces cross architectures: one recorded by this build (aarch64 under
# qemu-user, in make ARCH=aarch64 test) and one recorded by the other
# architecture's build (PROFEV_OTHER_BUILD, the native build/ there) dump
# and convert byte for byte the same with either build's pfdump and pfconv;
# and the other build's pfsym symbolizes this build's trace of the
# symbolization fixture (stripped, debug file by build-id under --debug-dir)
# exactly as this build's pfsym does, every frame of the program and of its
# library agreeing with llvm-symbolizer, inline chains included. This is
# recording on the device and symbolizing on the desktop.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
O=${PROFEV_OTHER_BUILD:-}
[ -n "$O" ] || skip "no other architecture's build (PROFEV_OTHER_BUILD; make ARCH=aarch64 test sets it to build/)"
[ -x "$O/profev" ] || skip "'$O/profev' not built (make all there first)"
cmp -s "$O/profev" "$PROFEV_BUILD/profev" && fail "'$O' is this build"
file_arch() { readelf -h "$1" | sed -n 's/ *Machine: *//p'; }
[ "$(file_arch "$O/profev")" != "$(file_arch "$PROFEV_BUILD/profev")" ] || skip "'$O' is built for this architecture"
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed"

expect_exit 0 pfrec -q -o here.bin "$GAME" 5
expect_exit 0 "$O/pfrec" -q -o there.bin "$O/examples/game" 5
for t in here there; do
	for how in "" --jsonl --stats "--leaks" "--frames"; do
		pfdump $how $t.bin > a.txt 2>&1 || fail "pfdump $how $t.bin"
		"$O/pfdump" $how $t.bin > b.txt 2>&1 || fail "$O/pfdump $how $t.bin"
		cmp a.txt b.txt || { diff a.txt b.txt | head; fail "pfdump $how of $t.bin differs between the builds"; }
	done
	for to in perfetto chrome folded; do
		pfconv to $to -q -o a.$to $t.bin || fail "pfconv to $to $t.bin"
		"$O/pfconv" to $to -q -o b.$to $t.bin || fail "$O/pfconv to $to $t.bin"
		cmp a.$to b.$to || fail "pfconv to $to of $t.bin differs between the builds"
	done
done

# Symbols: the fixture, built for this architecture, records its stacks.
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so frames.txt || fail "fixture program failed"
pfsym -q --debug-dir dbg -o here.bin t.bin || fail "pfsym"
"$O/pfsym" -q --debug-dir dbg -o there.bin t.bin || fail "$O/pfsym"
cmp here.bin there.bin || fail "the two builds' pfsym wrote different traces"
"$O/pfdump" --jsonl there.bin > s.jsonl || fail "pfdump failed"
python3 "$PROFEV_ROOT/tests/cli/sym-llvm-check.py" s.jsonl frames.txt 0 prog.stripped prog >check.txt 2>&1 ||
	{ cat check.txt; fail "the program's frames differ from llvm-symbolizer"; }
# The library's index in frames.txt is the order the loader lists modules.
lib=
for i in $(cut -d' ' -f1 frames.txt | sort -un); do
	[ "$i" = 0 ] && continue
	python3 "$PROFEV_ROOT/tests/cli/sym-llvm-check.py" s.jsonl frames.txt "$i" libfix.so libfix.so >check.txt 2>&1 &&
		lib=$i && break
done
[ -n "$lib" ] || { cat check.txt; fail "the library's frames differ from llvm-symbolizer"; }

# The desktop's pfsym downloads this architecture's debug file from a
# debuginfod server by build-id (no --debug-dir), and writes the same trace
# as with the file at hand.
if command -v debuginfod >/dev/null 2>&1; then
	. "$PROFEV_ROOT/tests/cli/debuginfod-lib.sh"
	dfd_need
	id=$(cat prog.build-id)
	mkdir srv && cp dbg/.build-id/*/*.debug srv/prog.debug || fail "no debug file"
	dfd_start srv "$id"
	DEBUGINFOD_URLS="$DFD_URL" "$O/pfsym" -o served.bin t.bin 2>err.txt || { cat err.txt; fail "$O/pfsym through debuginfod"; }
	contains err.txt "11 resolved, 0 unresolved, using '$DEBUGINFOD_CACHE_PATH/$id/debuginfo', downloaded from $DFD_URL"
	cmp served.bin there.bin || fail "the trace symbolized through debuginfod differs from the one with --debug-dir"
	dfd_stop
else
	skip "debuginfod not installed (Debian package debuginfod): all but the download by build-id passed"
fi
