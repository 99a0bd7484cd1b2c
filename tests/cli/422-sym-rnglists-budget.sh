# DWARF 5 range lists (.debug_rnglists) that cost without end, in a library
# whose DWARF the test writes (dwarf-ranges.py: one unit, 40,000 functions
# named only by their subprogram DIEs, each with DW_AT_ranges):
#   - every DIE's offset points at the unit's list of 40,000 ranges (each
#     list read whole 40,000 times; 20,000 took 27 s before) ends at the
#     file's budget for range lists (4 times the section, plus 1 MiB), the
#     unit refused;
#   - 4 MiB of offset pairs as the section, with no end and with one, end
#     at 2^20 entries in one list (64 MiB took 7 s and 427 MiB before);
#   - a unit's offset past the section is refused;
#   - .debug_loclists is never read: a zstd bomb or 4 MiB of garbage
#     there change nothing.
# Each run ends within 30 s (under a second on an idle machine) and 512
# MiB (under ulimit -v 2000000) with at most 17 warnings; the honest file
# gives every function (and llvm-symbolizer's answers).
DWARF=5
. "$PROFEV_ROOT/tests/cli/ranges-lib.sh"

# offset pairs [base, base + 16) for 4 MiB, without and with an end
python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex("040010") * ((4 << 20) // 3))' >pairs.bin
cp pairs.bin pairs-end.bin && printf '\000' >>pairs-end.bin
for g in pairs pairs-end; do
	cp honest.so $g.so
	python3 "$ELFSEC" $g.so .debug_rnglists zlib $g.bin real >/dev/null || fail "$g"
	look $g.so
	contains err.txt "warning: '$g.so': .debug_info: unit at offset 0x0: its range list cannot be read: more than 1048576 entries (1 << 20)"
done

# the unit's DW_AT_ranges (at 30: a 12-byte header, the code, "ranges.c",
# low_pc) past the section's end
cp honest.so far.so
"$PATCH" far.so .debug_info --u32 30 0xfffffff0 || fail "elfpatch"
look far.so
contains err.txt "warning: 'far.so': .debug_info: unit at offset 0x0: its range list cannot be read: its offset lies outside .debug_rnglists"

# .debug_loclists: not read, whatever it holds
cp honest.so loc-garbage.so
python3 "$ELFSEC" loc-garbage.so .debug_loclists none pairs.bin real >/dev/null || fail "loclists garbage"
look loc-garbage.so
lacks err.txt "warning"
contains out.txt "$all addresses, $all known"
if command -v zstd >/dev/null; then
	cp honest.so loc-bomb.so
	python3 "$ELFSEC" loc-bomb.so .debug_loclists zstd zeros:268435456 real >/dev/null || fail "loclists bomb"
	look loc-bomb.so
	lacks err.txt "warning"
	contains out.txt "$all addresses, $all known"
fi
