# Crashes: every event that reached the pipe is kept, the trace is complete
# and says how the program ended; pfrec exits 128+N.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog crash <<'C'
#include <profev.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
PROFEV_CATEGORY(app, "application");
int main(int argc, char **argv) {
	(void)argc;
	for (int i = 0; i < 100; i++) { PROFEV_ZONE(app, "work"); }
	if (!strcmp(argv[1], "segv")) { volatile int *volatile p = (int *)(uintptr_t)8; *p = 1; }
	if (!strcmp(argv[1], "abort")) abort();
	if (!strcmp(argv[1], "fpe")) raise(SIGFPE);
	if (!strcmp(argv[1], "kill")) { usleep(50000); raise(SIGKILL); }
	return 0;
}
C
# In a sanitizer build the sanitizer's own handlers would end the program first.
export ASAN_OPTIONS=handle_segv=0:handle_sigfpe=0:handle_abort=0 TSAN_OPTIONS=handle_segv=0
for c in segv:11:Segmentation abort:6:Aborted fpe:8:Floating kill:9:Killed; do
	how=${c%%:*}; rest=${c#*:}; sig=${rest%%:*}; word=${rest#*:}
	expect_exit $((128 + sig)) pfrec -q -o "$how.bin" ./crash "$how"
	expect_exit 0 pfdump --stats "$how.bin"
	contains out.txt "killed by signal $sig ($word"
	n=$(count_type "$how.bin" zone_end)
	[ "$n" -eq 100 ] || fail "$how: $n of 100 zones in the trace"
done
# SIGKILL right after a burst, long before the flush thread's next pass,
# and with no pause since the thread's first event: the thread announced
# its shared ring (and the zone's name) itself at that event, so pfrec
# still finds every published record in the ring, however late the flush
# thread would have run (with --pipe up to the flush period of them may be
# missing, as documented).
build_prog burst_kill <<'C'
#include <profev.h>
#include <signal.h>
PROFEV_CATEGORY(app, "application");
static void burst(void) { PROFEV_ZONE(app, "burst"); }
int main(void) {
	for (int i = 0; i < 20001; i++)
		burst();
	raise(SIGKILL);
	return 0;
}
C
for i in 1 2 3; do
	expect_exit 137 pfrec -q -o k.bin ./burst_kill
	n=$(pfdump --jsonl k.bin | grep '"type":"zone_end","name":"burst"' | grep -c .)
	[ "$n" -eq 20001 ] || fail "SIGKILL after a burst: $n of 20001 zones in the trace"
done
