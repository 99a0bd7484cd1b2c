# The disk fills while pfsym writes (a small tmpfs): with -o the error names
# the output; in place, the error names the temporary file, which is
# removed, and the original trace is left as it was.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
"$MKTRACE" game big.bin 2000000 4 || fail "mktrace"
size=$(wc -c <big.bin)
# Room for the trace and 40% of a copy of it.
small_fs $((size * 14 / 10 / 1024))
cp big.bin full/big.bin || fail "the trace does not fit the tmpfs"
expect_exit 1 pfsym -q -o full/out.bin full/big.bin
contains err.txt "pfsym: 'full/out.bin': write failed at offset"
contains err.txt "No space left on device"
rm -f full/out.bin

expect_exit 1 pfsym -q full/big.bin
contains err.txt "pfsym: 'full/big.bin.pfsym-"
contains err.txt "No space left on device"
contains err.txt "'full/big.bin' is left as it was"
cmp -s big.bin full/big.bin || fail "the original trace changed"
[ "$(ls full)" = big.bin ] || fail "left behind: $(ls full)"
expect_exit 0 pfdump --stats full/big.bin
