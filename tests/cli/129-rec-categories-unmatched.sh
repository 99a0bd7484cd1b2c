# --categories items that match no category of the program: a warning names
# them; the exit status stays the program's.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
expect_exit 0 pfrec -q -o t.bin --categories nosuch,render,-bogus "$GAME" 5
contains err.txt "pfrec: warning: --categories: 'nosuch', 'bogus' matched no category that '$GAME' used"
expect_exit 0 pfrec -q -o t.bin --categories 'render,-audio,*' "$GAME" 5
lacks err.txt "matched no category"
expect_exit 0 pfrec -q -o t.bin --categories=-memory "$GAME" 5
lacks err.txt "matched no category"
