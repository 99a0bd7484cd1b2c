# The disk fills while pfrec records (a small tmpfs): pfrec names its
# output, tells the client to stop recording, and waits for the program,
# which runs to its end; pfrec reports the program's status and exits 1.
# With /dev/full the trace cannot even start: the program is not run.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
build_burst
expect_exit 1 pfrec -q -o /dev/full ./burst 1000
contains err.txt "pfrec: '/dev/full': write failed at offset 0: No space left on device"
lacks err.txt "done"

small_fs 256
ends_within 120 'pfrec -q -o full/t.bin ./burst 100000000 2>err.txt; echo $? >rc.txt'
[ "$(cat rc.txt)" = 1 ] || { cat err.txt; fail "pfrec exited $(cat rc.txt), expected 1"; }
contains err.txt "pfrec: 'full/t.bin': write failed at offset"
contains err.txt "No space left on device"
contains err.txt "done 100000000"
contains err.txt "pfrec: './burst' ran to its end unrecorded and exited with status 7"
# What fitted reads back, cut.
expect_exit 1 pfdump --stats full/t.bin
contains err.txt "cut"
