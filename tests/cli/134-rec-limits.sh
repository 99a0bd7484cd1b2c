# Limits for unattended runs: --duration and --max-size stop the recording,
# finish a whole, readable trace and say so in one line; the program runs on
# unrecorded to its own end (pfrec exits with its status), or gets SIGTERM
# with --kill-at-end (pfrec then exits 0). Zones open at the stop end there
# as zones still open at the window's end, not as zones never closed.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog limited <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <profev.h>
PROFEV_CATEGORY(app, "application");
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
/* limited SECONDS [burst]: zones for SECONDS, one a millisecond (or as
 * fast as it can with burst), all inside "run"; then "done" and status 3 */
int main(int argc, char **argv)
{
	double end = now() + atof(argv[1]);
	int burst = argc > 2 && strcmp(argv[2], "burst") == 0;
	long steps = 0;
	{
		PROFEV_ZONE(app, "run");
		while (now() < end) {
			PROFEV_ZONE(app, "step");
			steps++;
			if (!burst)
				usleep(1000);
			PROFEV_FRAME_MARK();
		}
	}
	printf("done %ld\n", steps);
	return 3;
}
C

# --duration: the trace ends after about a second, whole; the program runs
# on to its end and pfrec exits with its status.
expect_exit 3 pfrec -q --duration 1s -o d.bin ./limited 3
contains out.txt "done "
contains err.txt "pfrec: stopped recording after "
contains err.txt " s (--duration): 'd.bin' is complete, "
contains err.txt "; the program runs on unrecorded"
[ "$(grep -c . err.txt)" -eq 1 ] || fail "more than one line: $(cat err.txt)"
expect_exit 0 pfdump --stats d.bin
cp out.txt stats.txt
contains stats.txt "format:       1.0"
lacks stats.txt "cut: no end chunk"
lacks stats.txt "never closed"
contains stats.txt "cut zones:    0 begun before the window, 2 still open at its end"
last=$(pfdump --jsonl d.bin | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
after = [e for e in ev if e.get("window_edge")]
assert [e["name"] for e in after] == ["step", "run"], after
assert all(e["ts"] == after[0]["ts"] for e in after)
print(max(e["ts"] for e in ev))') || fail "zones open at the stop"
# the program ran 3 s; the trace stopped long before its end
[ "$last" -lt 2500000000 ] || fail "the trace runs to $last ns, past the duration"
expect_exit 0 pfdump d.bin

# --kill-at-end: the program gets SIGTERM at the stop; pfrec exits 0 long
# before the program's own end.
start=$(date +%s)
expect_exit 0 pfrec -q --duration 500ms --kill-at-end -o k.bin ./limited 60
[ $(($(date +%s) - start)) -lt 30 ] || fail "--kill-at-end did not end the program"
lacks out.txt "done"
contains err.txt "(--duration): 'k.bin' is complete, "
contains err.txt "; ending the program (--kill-at-end)"
lacks err.txt "killed by signal"
expect_exit 0 pfdump --stats k.bin
lacks out.txt "cut: no end chunk"

# --max-size: recording stops once the trace has that many bytes; it ends
# within a chunk of it and reads back whole.
expect_exit 3 pfrec -q --max-size 64K -o m.bin ./limited 3 burst
contains err.txt "(--max-size): 'm.bin' is complete, "
size=$(wc -c < m.bin)
[ "$size" -ge 65536 ] && [ "$size" -lt $((65536 + 1048576)) ] || fail "--max-size 64K wrote $size bytes"
expect_exit 0 pfdump --stats m.bin
lacks out.txt "cut: no end chunk"
lacks out.txt "never closed"
steps=$(count_type m.bin zone_end)
[ "$steps" -gt 1000 ] || fail "only $steps zone ends recorded"

# Usage errors.
expect_exit 2 pfrec --duration 0 ./limited 1
contains err.txt "invalid duration '0'"
expect_exit 2 pfrec --duration soon ./limited 1
expect_exit 2 pfrec --max-size 1 ./limited 1
contains err.txt "invalid size '1'"
expect_exit 2 pfrec --kill-at-end ./limited 1
contains err.txt "--kill-at-end needs --duration or --max-size"
