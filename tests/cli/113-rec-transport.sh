# Shared rings (the default) and --pipe carry the same events: rings that
# wrap and fill (16K buffers), threads that exit and hand their ring to the
# next one, messages, counters and callstack-free memory events.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog busy <<'C'
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <profev.h>
PROFEV_CATEGORY(app, "application");
static void *work(void *arg)
{
	int id = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof name, "w%d", id);
	profev_thread_name(name);
	for (int i = 0; i < 20000; i++) {
		PROFEV_ZONE(app, "outer");
		PROFEV_ZONE_BEGIN(app, "inner");
		if (i % 1000 == 0)
			PROFEV_MESSAGE(app, "thread %d step %d", id, i);
		if (i % 100 == 0)
			PROFEV_COUNTER(app, "i", (double)i);
		if (i % 10 == 0)
			PROFEV_ALLOC((void *)(long)(0x1000 + i), 64);
		PROFEV_ZONE_END(app);
	}
	return NULL;
}
int main(void)
{
	PROFEV_INSTANT(app, "start");
	/* Whether this process maps the shared file (the first event placed
	 * this thread's ring), as pfrec's option says. */
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[512];
	int shared = 0;
	while (maps && fgets(line, sizeof line, maps))
		shared |= strstr(line, "profev-rings") != NULL;
	if (maps)
		fclose(maps);
	printf("shared %d\n", shared);
	/* One after the other: each exited thread's ring goes to the next. */
	for (long t = 0; t < 3; t++) {
		pthread_t th;
		pthread_create(&th, NULL, work, (void *)t);
		pthread_join(th, NULL);
	}
	/* Then two at once. */
	pthread_t a, b;
	pthread_create(&a, NULL, work, (void *)3L);
	pthread_create(&b, NULL, work, (void *)4L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
C
# The sequence of each thread's events, without times and thread ids.
events_of() {
	pfdump --jsonl "$1" | python3 -c '
import json, sys
by = {}
for line in sys.stdin:
    e = json.loads(line)
    for k in ("ts", "tid", "duration_ns"):
        e.pop(k, None)
    by.setdefault(e.get("thread", ""), []).append(json.dumps(e, sort_keys=True))
for name in sorted(by):
    print(name, len(by[name]))
    print("\n".join(by[name]))
'
}
expect_exit 0 pfrec -q --buffer 16K -o shm.bin ./busy
contains out.txt "shared 1"
expect_exit 0 pfrec -q --pipe --buffer 16K -o pipe.bin ./busy
contains out.txt "shared 0"
events_of shm.bin >shm.txt
events_of pipe.bin >pipe.txt
cmp -s shm.txt pipe.txt || { diff shm.txt pipe.txt | head -20 >&2; fail "the transports differ"; }
# 5 threads x (20000 x 4 zone events + 20 messages + 200 counters +
# 2000 allocations) + thread names, and the instant.
[ "$(count_type shm.bin zone_begin)" -eq 200000 ] || fail "zone begins lost"
[ "$(count_type shm.bin message)" -eq 100 ] || fail "messages lost"
[ "$(count_type shm.bin counter)" -eq 1000 ] || fail "counters lost"
[ "$(count_type shm.bin alloc)" -eq 10000 ] || fail "allocations lost"
contains shm.txt 'thread 4 step 19000'
for t in w0 w1 w2 w3 w4; do grep -q "^$t 82221$" shm.txt || fail "thread $t lacks events"; done
