# A run that records nothing (the program cannot be started) leaves an
# existing trace as it was; a run whose program starts replaces it, with
# the old file's mode. No temporary file is left behind.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
expect_exit 0 pfrec -q -o good.bin "$GAME" 5
cp good.bin before.bin
expect_exit 127 pfrec -q -o good.bin ./nope
contains err.txt "pfrec: unable to start './nope': command not found"
contains err.txt "pfrec: 'good.bin' left as it was"
cmp -s good.bin before.bin || fail "a run whose program was not found replaced good.bin"
# Not executable, with the default output name.
expect_exit 0 pfrec -q "$GAME" 5
cp trace.bin before.bin
expect_exit 126 pfrec -q /etc/passwd
contains err.txt "pfrec: unable to start '/etc/passwd': Permission denied"
cmp -s trace.bin before.bin || fail "a run of /etc/passwd replaced trace.bin"
# Where there was no trace, the run that did not start leaves one saying so.
expect_exit 127 pfrec -q -o new.bin ./nope
lacks err.txt "left as it was"
expect_exit 0 pfdump --stats new.bin
contains out.txt "ended:"
# A run that starts replaces the trace and keeps its mode.
chmod 600 good.bin
expect_exit 0 pfrec -q -o good.bin "$GAME" 3
cmp -s good.bin before.bin && fail "good.bin was not replaced"
expect_exit 0 pfdump --stats good.bin
contains out.txt "ended:        exited with status 0"
[ "$(stat -c %a good.bin)" = 600 ] || fail "good.bin's mode is $(stat -c %a good.bin), not 600"
left=$(ls -A | grep pfrec- || true)
[ -z "$left" ] || fail "temporary files left: $left"
