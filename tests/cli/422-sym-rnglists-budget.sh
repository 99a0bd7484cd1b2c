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

lib() { # MODE OUT: the library of N functions, DWARF 5
	python3 "$GEN" 5 $N "$1" "$2.s" || fail "dwarf-ranges.py $1"
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
