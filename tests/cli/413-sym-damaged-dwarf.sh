# Damaged plain DWARF (neither split nor compressed), DWARF 4 and 5: a
# .debug_info, .debug_line or .debug_abbrev with a flipped version, a unit
# or header length that lies, an abbreviation offset out of the section, an
# abbreviation without a tag or a table cut short, a section size that
# lies, the file cut. Each is refused with a warning naming the file, the
# section and the offset; the unit (or the file) is left unresolved, and
# every other answer is llvm-symbolizer's on the intact library: never a
# crash, never a wrong line.
. "$PROFEV_ROOT/tests/cli/lib.sh"
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed"
. "$PROFEV_ROOT/tests/cli/sym-lib.sh"
PATCH="$PROFEV_BUILD/tools/elfpatch"
CXX=${CXX:-c++}

# refused WHAT WARNING [whole]: dmg.so answers as llvm-symbolizer on
# good.so, but for addresses left without lines, which must exist
refused() {
	"$SYMCMP" --lenient dmg.so good.so >cmp.txt 2>cmperr.txt ||
		{ cat cmp.txt cmperr.txt >&2; fail "DWARF $v, $1: a wrong answer"; }
	contains cmperr.txt "$2"
	if [ "${3:-}" = whole ]; then
		contains cmp.txt "(refused)"
	else
		contains cmp.txt " 0 differ,"
		lacks cmp.txt " 0 without lines"
	fi
	cp good.so dmg.so
}

for v in 4 5; do
	mkdir d$v && cd d$v || fail "mkdir"
	cp "$PROFEV_ROOT/tests/sym/fixlib.cc" .
	$CXX -g -O2 -gdwarf-$v -fPIC -shared -o good.so fixlib.cc || fail "compiling"
	cp good.so dmg.so
	"$SYMCMP" dmg.so good.so >cmp.txt 2>&1 || { cat cmp.txt; fail "DWARF $v: intact files differ"; }
	# header fields: the abbreviation offset at 6 (DWARF 4) or 8, the
	# line table's header length at 6 or 8
	ab=6 hl=6
	[ $v = 5 ] && ab=8 hl=8

	"$PATCH" dmg.so .debug_info --set 4 9 || fail "patch"
	refused "info version" "'dmg.so': .debug_info: unit at offset 0x0: unknown DWARF version"
	"$PATCH" dmg.so .debug_info --u32 0 0x7ffffff0 || fail "patch"
	refused "info unit length" "'dmg.so': .debug_info: unit at offset 0x0: its length runs past the end of the section"
	"$PATCH" dmg.so .debug_info --u32 $ab 0x7ffffff0 || fail "patch"
	refused "abbreviation offset" "'dmg.so': .debug_info: unit at offset 0x0: abbreviation table at offset 0x7ffffff0 cannot be read"
	"$PATCH" dmg.so .debug_info --size 0x7fffffff || fail "patch"
	refused "info section size" "'dmg.so': cut: " whole

	"$PATCH" dmg.so .debug_line --set 4 9 || fail "patch"
	refused "line version" "'dmg.so': .debug_line: line table at offset 0x0 (unit at offset 0x0): unknown version"
	"$PATCH" dmg.so .debug_line --u32 0 0x7ffffff0 || fail "patch"
	refused "line unit length" "'dmg.so': .debug_line: line table at offset 0x0 (unit at offset 0x0): its length runs past the end of the section"
	"$PATCH" dmg.so .debug_line --u32 $hl 0x7ffffff0 || fail "patch"
	refused "line header length" "'dmg.so': .debug_line: line table at offset 0x0 (unit at offset 0x0): its header length runs past the end of the table"

	"$PATCH" dmg.so .debug_abbrev --set 1 0 || fail "patch"
	refused "abbreviation tag" "'dmg.so': .debug_info: unit at offset 0x0: abbreviation table at offset 0x0 cannot be read"
	asize=$("$PATCH" dmg.so .debug_abbrev --info | cut -d' ' -f2)
	"$PATCH" dmg.so .debug_abbrev --size $((asize / 2)) || fail "patch"
	refused "abbreviations cut" "'dmg.so': .debug_info: unit at offset 0x0: abbreviation table at offset 0x0 cannot be read"

	size=$(wc -c <good.so)
	head -c $((size - 100)) good.so >dmg.so
	refused "file cut" "'dmg.so': cut: " whole
	cd ..
done
