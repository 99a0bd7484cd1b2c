# pfrec --sched: a thread that sleeps in a loop inside a zone shows its
# stretches off CPU with the right durations, as blocked, in that zone;
# samples taken inside a zone's span are in the function the zone wraps.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
need_perf_events
cpu_burner
build_prog napper <<'C'
#include <profev.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
PROFEV_CATEGORY(app, "application");
#include "cpu_burner.h"
SPIN(crunch, 200000, i)
static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
/* Sleeps five times 40 ms and prints how long each sleep really took
 * (a busy machine wakes it up late). */
static void *napper(void *a)
{
	(void)a;
	profev_thread_name("napper");
	for (int i = 0; i < 5; i++) {
		PROFEV_ZONE(app, "nap");
		struct timespec d = { 0, 40000000 };
		double t0 = mono();
		nanosleep(&d, NULL);
		printf("%.3f\n", (mono() - t0) * 1e3);
	}
	return NULL;
}
int main(void)
{
	profev_thread_name("main");
	pthread_t t;
	pthread_create(&t, NULL, napper, NULL);
	for (int i = 0; i < 4; i++) {
		PROFEV_ZONE(app, "crunch");
		crunch(0.03);
	}
	pthread_join(t, NULL);
	return 0;
}
C
expect_exit 0 pfrec -q --sample --sched -o n.bin ./napper
sort -n out.txt >slept.txt
expect_exit 0 pfdump --stats n.bin
sed -n '/^longest stretches off CPU/,/^$/p' out.txt >off.txt
# The napper's five longest stretches: as long as its sleeps (within 2 ms:
# the stretch is the sleep less the system call's way in and out),
# blocked, in its zone "nap".
# (The thread is the one named napper with zones: a sanitizer's helper
# thread takes the program's name too.)
tid=$(sed -n '/^threads:/,/^$/p' out.txt | awk '$2 == "napper" && $4 > 0 { print $1 }')
[ -n "$tid" ] || { cat out.txt; fail "no napper thread with zones"; }
awk -v tid="$tid" '$1 == tid' off.txt >nap.txt
[ "$(wc -l <nap.txt)" -eq 5 ] || { cat off.txt; fail "expected 5 stretches of the napper"; }
while read -r tid name at len unit why zone; do
	[ "$unit" = ms ] || fail "stretch of $len $unit"
	[ "$why" = blocked ] || fail "stretch $why, expected blocked"
	[ "$zone" = nap ] || fail "stretch in zone '$zone', expected nap"
	echo "$len"
done <nap.txt | sort -n | paste - slept.txt >pairs.txt
awk '{ d = $2 - $1; if (d < -0.1 || d > 2) { print "off CPU " $1 " ms, slept " $2 " ms"; bad = 1 } }
     END { exit bad }' pairs.txt || fail "stretches off CPU do not match the sleeps"
# Samples inside the "crunch" zones are in crunch(): check with the jsonl
# listing, zones and samples of the main thread matched by time.
expect_exit 0 pfsym n.bin
expect_exit 0 pfdump --jsonl n.bin
python3 - out.txt <<'PY' || fail "samples inside the zones are not in crunch()"
import json, sys
zones, samples, begin = [], [], {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("thread") != "main":
        continue
    if e["type"] == "zone_begin" and e["name"] == "crunch":
        begin = e["ts"]
    elif e["type"] == "zone_end" and e["name"] == "crunch":
        zones.append((begin, e["ts"]))
    elif e["type"] == "sample":
        fn = e["stack"][0].get("frames", [{}])[-1].get("function", "?")
        samples.append((e["ts"], fn))
inside = [fn for ts, fn in samples if any(b <= ts <= x for b, x in zones)]
good = sum(1 for fn in inside if fn in ("crunch", "cpu"))
print(len(zones), "zones", len(inside), "samples inside,", good, "in crunch")
# crunch() reads the thread's CPU clock now and then: a few samples are
# in the vdso or libc's clock_gettime.
sys.exit(0 if len(zones) == 4 and len(inside) >= 90 and good >= 0.9 * len(inside) else 1)
PY
