# Sourced by the range-list budget tests (422, 423) after DWARF=5 or 4 is
# set: the library of N functions the test writes (dwarf-ranges.py) and
# the bounded look-up of its code, then the two cases both versions share:
# the honest library (no warning, every address known, llvm-symbolizer's
# answers) and the one whose every subprogram points at the unit's list
# (the file's budget for range lists spent, the unit refused).
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

lib() { # MODE OUT: the library of N functions, DWARF $DWARF
	python3 "$GEN" "$DWARF" $N "$1" "$2.s" || fail "dwarf-ranges.py $1"
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

