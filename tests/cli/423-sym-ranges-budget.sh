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
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
. "$PROFEV_ROOT/tests/cli/sym-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
command -v cc >/dev/null || skip "no C compiler"
GEN="$PROFEV_ROOT/tests/cli/dwarf-ranges.py"
ELFSEC="$PROFEV_ROOT/tests/cli/elf-section.py"
PATCH="$PROFEV_BUILD/tools/elfpatch"
MB=512
# ASan's shadow needs terabytes of address space, and its quarantine memory
if case ${PROFEV_SAN:-} in *address*) true ;; *) false ;; esac ||
	nm "$PROFEV_BUILD/libprofev.a" 2>/dev/null | grep -q __asan_; then
	MB=1536
else
	export BOUNDED_VMEM_KB=2000000
fi
N=40000

lib() { # MODE OUT: the library of N functions, DWARF 4
	python3 "$GEN" 4 $N "$1" "$2.s" || fail "dwarf-ranges.py $1"
	cc -shared -nostdlib -Wl,--build-id -o "$2" "$2.s" || fail "assembling $1"
}
# look FILE: every address of its code looked up, bounded
look() {
	bounded 30 $MB "$SYMCMP" --lookup-only "$1"
	[ "$RC" = 0 ] || { cat out.txt err.txt >&2; fail "$1: exit $RC"; }
	! grep -q "runtime error\|Sanitizer" err.txt || { cat err.txt >&2; fail "$1: sanitizer report"; }
	[ "$(grep -c "^warning:" err.txt)" -le 17 ] || { cat err.txt >&2; fail "$1: more than 17 warnings"; }
}
all=$(( (N * 16 + 2) / 3 ))   # addresses every 3 bytes of 40,000 x 16

lib honest honest.so
look honest.so
lacks err.txt "warning"
contains out.txt "$all addresses, $all known"
if command -v llvm-symbolizer >/dev/null; then
	"$SYMCMP" --stride 5 honest.so honest.so >cmp.txt 2>cmperr.txt ||
		{ cat cmp.txt cmperr.txt >&2; fail "honest.so: differs from llvm-symbolizer"; }
fi

lib shared shared.so
look shared.so
contains err.txt "warning: 'shared.so': .debug_info: unit at offset 0x0: at offset 0x"
contains err.txt ": a range list cannot be read: the file's budget for range lists is spent (4 times the size of .debug_rnglists and .debug_ranges, plus 1 MiB)"
contains out.txt "$all addresses, 0 known"

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
