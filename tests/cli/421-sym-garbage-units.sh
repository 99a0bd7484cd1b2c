# A .debug_info of garbage is not walked unit by unit: 256 KiB of zeros
# (a unit too short for its header ends the list at once) and 20,000
# bogus units cut short (the walk stops after 8 damaged units
# in a row, and says how much it left unread). Each ends within 10 s and
# 512 MiB (under ulimit -v 2000000) with a handful of warnings, exit 0,
# the library still resolved.
# (Before: one warning per bad unit, each compared with every other: 64
# KiB of zeros took 2.4 s, 512 KiB more than 100 s.)
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
ELFSEC="$PROFEV_ROOT/tests/cli/elf-section.py"
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so || fail "fixture program failed"
dbg=$(ls dbg/.build-id/*/*.debug)
cp "$dbg" good.debug
MB=512
# ASan's shadow needs terabytes of address space, and its quarantine memory
if case ${PROFEV_SAN:-} in *address*) true ;; *) false ;; esac ||
	nm "$PROFEV_BUILD/libprofev.a" 2>/dev/null | grep -q __asan_; then
	MB=1536
else
	export BOUNDED_VMEM_KB=2000000
fi

garbage() { # CASE
	[ "$RC" = 0 ] || { cat err.txt >&2; fail "$1: exit $RC"; }
	[ "$(grep -c "pfsym: warning: '$dbg'" err.txt)" -le 17 ] ||
		{ cat err.txt >&2; fail "$1: more than 17 warnings"; }
	pfdump o.bin >dump.txt || fail "$1: pfdump failed"
	contains dump.txt "fixlib.cc:"
	cp good.debug "$dbg"
}

python3 "$ELFSEC" "$dbg" .debug_info none zeros:262144 real >/dev/null || fail "zeros"
bounded 10 $MB pfsym --debug-dir dbg -o o.bin t.bin
contains err.txt "pfsym: warning: '$dbg': .debug_info: unit at offset 0x0: its length is too short for a unit header"
[ "$(grep -c "pfsym: warning: '$dbg'" err.txt)" -eq 1 ] || { cat err.txt >&2; fail "zeros: not one warning"; }
garbage "256 KiB of zeros"

# length 7, version 9, abbreviation offset 0, address size 8: 11 bytes each
python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex("07000000090000000000" "08") * 20000)' >units.bin
python3 "$ELFSEC" "$dbg" .debug_info none units.bin real >/dev/null || fail "units"
bounded 10 $MB pfsym --debug-dir dbg -o o.bin t.bin
contains err.txt "pfsym: warning: '$dbg': .debug_info: unit at offset 0x4d: header cut"
lacks err.txt "unit at offset 0x58:"
contains err.txt "pfsym: warning: '$dbg': .debug_info: 8 damaged units in a row before offset 0x58: the other 219912 bytes of the section are not read"
garbage "20,000 bogus units"
