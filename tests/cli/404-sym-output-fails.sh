# pfsym's output fails (/dev/full, a closed pipe): the error names the
# output, not the input, the exit status is 1, and it ends promptly.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
cp "$GOLDEN/allkinds.bin" in.bin
expect_exit 1 pfsym -q -o /dev/full in.bin
contains err.txt "pfsym: '/dev/full': write failed at offset 0: No space left on device"
lacks err.txt "'in.bin'"
cmp -s in.bin "$GOLDEN/allkinds.bin" || fail "the input changed"

# A larger trace through a pipe that closes after 1000 bytes: pfsym ends at
# once, by SIGPIPE like any filter (141 in a shell), with nothing to say.
"$MKTRACE" game big.bin 300000 4 || fail "mktrace"
ends_within 30 '{ pfsym -q -o - big.bin 2>err.txt; echo $? >rc.txt; } | head -c 1000 >/dev/null'
[ "$(cat rc.txt)" = 141 ] || fail "pfsym exited $(cat rc.txt) on a closed pipe, expected 141 (SIGPIPE)"
[ ! -s err.txt ] || { cat err.txt; fail "pfsym printed something on SIGPIPE"; }
