# Split DWARF with .dwo files (-gsplit-dwarf), from gcc and clang, in the
# GNU DWARF 4 form (DW_AT_GNU_dwo_name, DW_FORM_GNU_addr_index,
# DW_FORM_GNU_str_index) and the DWARF 5 one (skeleton units, addrx, strx,
# rnglistx): every address of the library, whose only unit is split, and
# of the program (one split unit beside libprofev's), is answered as
# llvm-symbolizer --inlines --demangle answers it, inline chains included;
# the trace's frames get them through pfsym. A .dwo moved away is found
# under --debug-dir or beside the module, with the same answers; one not
# found at all is warned about and leaves the lines alone, as
# llvm-symbolizer does. A .dwo with compressed sections reads the same.
. "$PROFEV_ROOT/tests/cli/lib.sh"
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed"
. "$PROFEV_ROOT/tests/cli/sym-lib.sh"

ran=0
for kind in gcc4 gcc5 clang4 clang5; do
	case $kind in gcc*) cxx=g++ ;; *) cxx=clang++ ;; esac
	command -v $cxx >/dev/null || { echo "no $cxx: $kind left out"; continue; }
	sh "$PROFEV_ROOT/tests/sym/split.sh" $kind $kind >build.log 2>&1 || { cat build.log; fail "$kind: fixtures"; }
	ran=$((ran + 1))
	cd $kind || fail "no $kind"
	symcmp_ok "$kind libfix.so" --stride 1 libfix.so libfix.so
	[ -n "$san" ] || symcmp_ok "$kind prog" prog prog

	./prog t.bin ./libfix.so || fail "$kind: fixture program failed"
	expect_exit 0 pfsym -o s.bin t.bin
	lacks err.txt "warning"
	contains err.txt "'./libfix.so': 6 resolved, 0 unresolved"
	pfdump s.bin >a.txt || fail "$kind: pfdump failed"
	contains a.txt "fixture::Walker::run(int)"
	contains a.txt "fixture::Box<int>::twice(void (*)()) const"
	contains a.txt "leaf $PWD/obj/prog.c:"
	contains a.txt "$PWD/obj/fixlib.cc:22 (inlined)"

	# the .dwo files elsewhere: not found, then found by --debug-dir
	# (DIR/name) and beside the module (its directory/basename)
	mkdir dwo && mv obj/*.dwo dwo/
	expect_exit 0 pfsym -o none.bin t.bin
	contains err.txt "warning: './libfix.so': split DWARF file '$PWD/obj/fixlib.dwo' not found"
	contains err.txt "warning: '$PWD/prog': split DWARF file '$PWD/obj/prog.dwo' not found"
	pfdump none.bin >n.txt || fail "$kind: pfdump failed"
	lacks n.txt "$PWD/obj/fixlib.cc:22 (inlined)"
	"$SYMCMP" libfix.so libfix.so >cmp.txt 2>&1 || { cat cmp.txt; fail "$kind: without the .dwo, not llvm-symbolizer's answers"; }
	contains cmp.txt " 0 inlined,"
	expect_exit 0 pfsym -d dwo -o d.bin t.bin
	lacks err.txt "warning"
	pfdump d.bin >b.txt && cmp a.txt b.txt || fail "$kind: .dwo files under --debug-dir give other answers"
	mv dwo/*.dwo .
	expect_exit 0 pfsym -o b.bin t.bin
	lacks err.txt "warning"
	pfdump b.bin >b.txt && cmp a.txt b.txt || fail "$kind: .dwo files beside the module give other answers"
	# a .dwo of another build (-O1) at the named path: not used, said
	# so; the right one is still found under --debug-dir (gcc only: clang
	# gives the -O1 build the same DWO id, which it hashes from the unit's
	# names, so nothing can tell the two apart)
	case $kind in clang*) cd .. && continue ;; esac
	mkdir other dwo2 && cp "$PROFEV_ROOT/tests/sym/fixlib.cc" other/ &&
		(cd other && $cxx -g -O1 -gdwarf-${kind##*[a-z]} -gsplit-dwarf -fPIC -c fixlib.cc) ||
		fail "$kind: other build"
	mv fixlib.dwo prog.dwo dwo2/ && cp other/fixlib.dwo obj/fixlib.dwo
	expect_exit 0 pfsym -d dwo2 -o o.bin t.bin
	contains err.txt "warning: '$PWD/obj/fixlib.dwo': no unit with the DWO id 0x"
	pfdump o.bin >b.txt && cmp a.txt b.txt || fail "$kind: a wrong .dwo first changed the answers"
	cd ..
done
[ $ran -gt 0 ] || skip "neither g++ nor clang++"

# a .dwo whose sections are compressed (-gz=zlib, SHF_COMPRESSED)
if command -v g++ >/dev/null; then
	mkdir gz && cp "$PROFEV_ROOT/tests/sym/fixlib.cc" gz/ &&
		(cd gz && g++ -g -O2 -gsplit-dwarf -gz=zlib -fPIC -shared -o libfix.so fixlib.cc) ||
		fail "-gz=zlib build"
	readelf -S -W gz/*.dwo | grep "debug_info.dwo" | grep -q "C" ||
		fail "gz: .debug_info.dwo not compressed"
	cd gz && symcmp_ok "compressed .dwo" --stride 1 libfix.so libfix.so && cd ..
fi
