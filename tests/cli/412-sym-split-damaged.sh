# Damaged split DWARF: a .dwo or .dwp cut short, with a flipped version or
# abbreviation, a unit length or a section size that lies, a package index
# whose slot count or contribution sizes lie (past the section, or a
# byte short of the unit). Each is refused with a
# warning naming the file and what is wrong; the units it holds are left
# unresolved (no file, no line), and every other answer is still
# llvm-symbolizer's on the intact files (its --dwp= an intact package):
# never a crash, never a wrong line. The trace still gets through pfsym.
. "$PROFEV_ROOT/tests/cli/lib.sh"
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed"
command -v llvm-dwp >/dev/null || skip "llvm-dwp not installed"
. "$PROFEV_ROOT/tests/cli/sym-lib.sh"
PATCH="$PROFEV_BUILD/tools/elfpatch"

# refused WHAT WARNING: libfix.so answers as llvm-symbolizer on the intact
# package, but for the addresses left without lines, which must exist
refused() {
	"$SYMCMP" --lenient libfix.so "libfix.so --dwp=$PWD/ref.dwp" >cmp.txt 2>cmperr.txt ||
		{ cat cmp.txt cmperr.txt >&2; fail "$kind $1: a wrong answer"; }
	contains cmperr.txt "$2"
	contains cmp.txt " 0 differ,"
	lacks cmp.txt " 0 without lines"
	expect_exit 0 pfsym -o d.bin t.bin
	contains err.txt "$2"
	expect_exit 0 pfdump d.bin
}

ran=0
for kind in gcc4 gcc5 clang5; do
	case $kind in gcc*) cxx=g++ ;; *) cxx=clang++ ;; esac
	command -v $cxx >/dev/null || { echo "no $cxx: $kind left out"; continue; }
	sh "$PROFEV_ROOT/tests/sym/split.sh" $kind $kind >build.log 2>&1 || { cat build.log; fail "$kind: fixtures"; }
	ran=$((ran + 1))
	cd $kind || fail "no $kind"
	./prog t.bin ./libfix.so || fail "$kind: fixture program failed"
	llvm-dwp -e libfix.so -o ref.dwp || fail "$kind: llvm-dwp failed"
	cp obj/fixlib.dwo good.dwo
	D=$PWD/obj/fixlib.dwo
	# the intact .dwo agrees at every address (so the damage is what differs)
	"$SYMCMP" libfix.so "libfix.so --dwp=$PWD/ref.dwp" >cmp.txt 2>&1 || { cat cmp.txt; fail "$kind: intact files differ"; }

	size=$(wc -c <good.dwo)
	head -c $((size / 2)) good.dwo >"$D"
	refused "cut .dwo" "'$D': cut:"
	cp good.dwo "$D" && "$PATCH" "$D" .debug_info.dwo --set 4 9 || fail "patch"
	refused "flipped version" "'$D': .debug_info.dwo: unit at offset 0x0: unknown DWARF version"
	cp good.dwo "$D" && "$PATCH" "$D" .debug_info.dwo --u32 0 0x7ffffff0 || fail "patch"
	refused "lying unit length" "'$D': .debug_info.dwo: unit at offset 0x0: its length runs past the end of the section"
	cp good.dwo "$D" && "$PATCH" "$D" .debug_abbrev.dwo --set 1 0 || fail "patch"
	refused "abbreviation without a tag" "'$D': .debug_info.dwo: unit at offset 0x0: abbreviation table at offset 0x0 cannot be read"
	cp good.dwo "$D" && "$PATCH" "$D" .debug_info.dwo --size 0x7fffffff || fail "patch"
	refused "lying section size" "'$D': cut: a section ends past the end of the file"
	echo "not ELF" >"$D"
	refused "not ELF" "'$D': not an ELF file"
	cp good.dwo "$D"

	# the package, the .dwo files gone
	mv "$D" fixlib.dwo.away
	P=libfix.so.dwp   # as found beside the module: './libfix.so.dwp' for pfsym
	size=$(wc -c <ref.dwp)
	head -c $((size * 2 / 3)) ref.dwp >"$P"
	refused "cut .dwp" "$P': cut:"
	cp ref.dwp "$P" && "$PATCH" "$P" .debug_cu_index --set 0 7 || fail "patch"
	refused "index version" "$P': .debug_cu_index: unknown index version"
	cp ref.dwp "$P" && "$PATCH" "$P" .debug_cu_index --u32 12 0x40000000 || fail "patch"
	refused "lying slot count" "$P': .debug_cu_index: tables run past the end of the section"
	cp ref.dwp "$P" && "$PATCH" "$P" .debug_cu_index --u32 12 3 || fail "patch"
	refused "slot count not a power of two" "$P': .debug_cu_index: slot count not a power of two"
	# every column's size, in turn, lies (1 GB): the unit is refused when
	# it is a section pfsym reads (DW_SECT_ info 1, abbrev 3, line 4,
	# str_offsets 6, DWARF 5 rnglists 8), and never gives a wrong answer
	off=$("$PATCH" ref.dwp .debug_cu_index --info | cut -d' ' -f1)
	u32() { od -An -tu4 -j$(($off + $1)) -N4 ref.dwp | tr -d ' '; }
	version=$(u32 0) ncols=$(u32 4) nslots=$(u32 12)
	[ "$ncols" -ge 4 ] || fail "$kind: index has $ncols columns"
	c=0
	while [ $c -lt "$ncols" ]; do
		id=$(u32 $((16 + nslots * 12 + 4 * c)))
		cp ref.dwp "$P" && "$PATCH" "$P" .debug_cu_index --dwp-size $c 0x40000000 || fail "patch"
		case "$version:$id" in
		*:1 | *:3 | *:4 | *:6 | 5:8)
			refused "lying size of column $c (section $id)" "$P': .debug_cu_index: unit 0x"
			contains cmperr.txt "contribution (0x40000000 bytes at" ;;
		*)
			"$SYMCMP" libfix.so "libfix.so --dwp=$PWD/ref.dwp" >cmp.txt 2>&1 ||
				{ cat cmp.txt; fail "$kind: lying size of unread section $id changed answers"; } ;;
		esac
		# the unit's .debug_info.dwo contribution a byte short
		if [ "$id" = 1 ]; then
			nunits=$(u32 8)
			sz=$(u32 $((16 + nslots * 12 + ncols * 4 * (1 + nunits) + 4 * c)))
			cp ref.dwp "$P" && "$PATCH" "$P" .debug_cu_index --dwp-size $c $((sz - 1)) || fail "patch"
			refused "info contribution a byte short" "$P': .debug_cu_index: unit 0x"
			contains cmperr.txt "contribution at 0x0 is not one whole unit or table"
		fi
		c=$((c + 1))
	done
	cp ref.dwp "$P" && "$PATCH" "$P" .debug_info.dwo --set 4 9 || fail "patch"
	refused "unit version in the package" "$P': .debug_info.dwo: unit at offset 0x0: unknown DWARF version"
	# a damaged package, but the .dwo is there: that is used
	mv fixlib.dwo.away "$D"
	"$SYMCMP" libfix.so "libfix.so --dwp=$PWD/ref.dwp" >cmp.txt 2>cmperr.txt || { cat cmp.txt cmperr.txt; fail "$kind: the .dwo after a damaged package"; }
	contains cmperr.txt "$P': .debug_info.dwo: unit at offset 0x0: unknown DWARF version"
	cd ..
done
[ $ran -gt 0 ] || skip "neither g++ nor clang++"
