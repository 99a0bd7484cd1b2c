# Split DWARF packages: the .dwo files of each module gathered by llvm-dwp
# (DWARF 5 .debug_cu_index, or the GNU version 2 index for DWARF 4) and by
# binutils' dwp (GNU version 2, DWARF 4 only), the .dwo files gone. Every
# address is answered as llvm-symbolizer --inlines --demangle answers it
# with MODULE.dwp beside the module, the trace's frames are the same as
# with the .dwo files, and so they are with the package in a --debug-dir
# (DIR/MODULE.dwp) and for a stripped module whose debug file is found by
# build-id.
. "$PROFEV_ROOT/tests/cli/lib.sh"
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed"
command -v llvm-dwp >/dev/null || skip "llvm-dwp not installed"
. "$PROFEV_ROOT/tests/cli/sym-lib.sh"

# same_frames WHAT TRACE: pfdump shows what it showed with the .dwo files
same_frames() {
	pfdump "$2" >b.txt || fail "$1: pfdump failed"
	cmp a.txt b.txt || { diff a.txt b.txt | head -20 >&2; fail "$1: other frames than with the .dwo files"; }
}

ran=0
for kind in gcc4 gcc5 clang4 clang5; do
	case $kind in gcc*) cxx=g++ ;; *) cxx=clang++ ;; esac
	command -v $cxx >/dev/null || { echo "no $cxx: $kind left out"; continue; }
	sh "$PROFEV_ROOT/tests/sym/split.sh" $kind $kind >build.log 2>&1 || { cat build.log; fail "$kind: fixtures"; }
	ran=$((ran + 1))
	cd $kind || fail "no $kind"
	./prog t.bin ./libfix.so || fail "$kind: fixture program failed"
	expect_exit 0 pfsym -o s.bin t.bin
	pfdump s.bin >a.txt || fail "$kind: pfdump failed"

	llvm-dwp -e libfix.so -o libfix.so.dwp && llvm-dwp -e prog -o prog.dwp ||
		fail "$kind: llvm-dwp failed"
	mkdir dwo && mv obj/*.dwo dwo/
	symcmp_ok "$kind llvm-dwp libfix.so" --stride 1 libfix.so libfix.so
	[ -n "$san" ] || symcmp_ok "$kind llvm-dwp prog" prog prog
	expect_exit 0 pfsym -o p.bin t.bin
	lacks err.txt "warning"
	same_frames "$kind llvm-dwp" p.bin

	mkdir dbg && mv libfix.so.dwp prog.dwp dbg/
	expect_exit 0 pfsym -o n.bin t.bin
	contains err.txt "split DWARF file '$PWD/obj/fixlib.dwo' not found (no .dwp either)"
	expect_exit 0 pfsym -d dbg -o d.bin t.bin
	lacks err.txt "warning"
	same_frames "$kind package in --debug-dir" d.bin

	if [ $kind = gcc4 ] || [ $kind = clang4 ]; then
		command -v dwp >/dev/null || { echo "no binutils dwp: $kind's left out"; cd .. && continue; }
		rm dbg/*.dwp && mv dwo/*.dwo obj/
		(cd obj && dwp -e ../libfix.so -o ../libfix.so.dwp && dwp -e ../prog -o ../prog.dwp) ||
			fail "$kind: dwp failed"
		mv obj/*.dwo dwo/
		symcmp_ok "$kind dwp libfix.so" --stride 1 libfix.so libfix.so
		expect_exit 0 pfsym -o b.bin t.bin
		lacks err.txt "warning"
		same_frames "$kind binutils dwp" b.bin
		mv libfix.so.dwp prog.dwp dbg/
	fi

	# a stripped library, its debug file found by build-id, its package
	# beside it
	id=$(readelf -n libfix.so | sed -n 's/.*Build ID: *//p')
	[ -n "$id" ] || fail "$kind: no build-id"
	mkdir -p bid/.build-id/$(echo $id | cut -c1-2)
	objcopy --only-keep-debug libfix.so bid/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug
	strip --strip-all libfix.so && mv dbg/libfix.so.dwp .
	expect_exit 0 pfsym -d bid -d dbg -o x.bin t.bin
	lacks err.txt "warning"
	contains err.txt "'./libfix.so': 6 resolved, 0 unresolved, using 'bid/.build-id/"
	pfdump x.bin >x.txt || fail "$kind: pfdump failed"
	grep fixlib.cc a.txt >fa.txt; grep fixlib.cc x.txt >fx.txt
	cmp fa.txt fx.txt || fail "$kind: the stripped library's frames differ"
	cd ..
done
[ $ran -gt 0 ] || skip "neither g++ nor clang++"
