# pfrec exits with the program's status; a program without the client gives
# an empty trace and a warning, not a hang.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog three <<'C'
#include <profev.h>
PROFEV_CATEGORY(app, "application");
int main(void) { PROFEV_INSTANT(app, "bye"); return 3; }
C
expect_exit 3 pfrec -q -o t.bin ./three
lacks err.txt "warning"
expect_exit 0 pfdump --stats t.bin
contains out.txt "exited with status 3"
[ "$(count_type t.bin instant)" -eq 1 ] || fail "expected 1 instant"

expect_exit 4 pfrec -q -o t.bin sh -c 'exit 4'
contains err.txt "pfrec: warning: 'sh' did not connect to the profev client"
expect_exit 0 pfdump --stats t.bin
contains out.txt "exited with status 4"
contains out.txt "events:       0"

# A process left behind by the program may keep the pipe open: pfrec does
# not wait for it.
start=$(date +%s)
expect_exit 0 pfrec -q -o t.bin sh -c 'sleep 5 & exit 0'
[ $(($(date +%s) - start)) -lt 4 ] || fail "pfrec waited for the background process"
contains err.txt "still holds the trace stream"
