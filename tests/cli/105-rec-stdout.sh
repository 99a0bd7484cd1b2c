# -o - streams the trace to stdout; the program's own output goes to stderr.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
pfrec -q -o - "$GAME" 10 2>err.txt | pfdump --stats - >out.txt || fail "pipeline failed"
contains out.txt "exited with status 0"
contains out.txt "frame                  10"
contains err.txt "10 frames"
