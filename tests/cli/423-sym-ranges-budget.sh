# DWARF 2-4 range lists (.debug_ranges) that cost without end, as 422's
# of DWARF 5, in a library whose DWARF 4 the test writes (dwarf-ranges.py):
#   - every subprogram's offset points at the unit's list of 40,000
#     ranges (20,000 took 18 s before) ends at the file's budget for range
#     lists, the unit refused;
#   - 20 MiB of address pairs as the section, with no end and with one,
#     end at 2^20 entries in one list (64 MiB took 2 s and 144 MiB before);
#   - a unit's offset past the section is refused.
# Each run ends within 30 s (under a second on an idle machine) and 512
# MiB (under ulimit -v 2000000) with at most 17 warnings; the honest file
# gives every function (and llvm-symbolizer's answers).
DWARF=4
. "$PROFEV_ROOT/tests/cli/ranges-lib.sh"

# pairs of offsets [base, base + 16) for 20 MiB, without and with an end
python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<QQ", 0, 16) * (20 << 16))' >pairs.bin
cp pairs.bin pairs-end.bin && python3 -c 'import sys; sys.stdout.buffer.write(bytes(16))' >>pairs-end.bin
for g in pairs pairs-end; do
	cp honest.so $g.so
	python3 "$ELFSEC" $g.so .debug_ranges zlib $g.bin real >/dev/null || fail "$g"
	look $g.so
	contains err.txt "warning: '$g.so': .debug_info: unit at offset 0x0: its range list cannot be read: more than 1048576 entries (1 << 20)"
done

# the unit's DW_AT_ranges (at 29: an 11-byte header, the code, "ranges.c",
# low_pc) past the section's end
cp honest.so far.so
"$PATCH" far.so .debug_info --u32 29 0xfffffff0 || fail "elfpatch"
look far.so
contains err.txt "warning: 'far.so': .debug_info: unit at offset 0x0: its range list cannot be read: its offset lies outside .debug_ranges"
