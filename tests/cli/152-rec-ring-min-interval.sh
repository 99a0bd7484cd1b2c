# pfrec --ring's --after and --min-interval with the program's triggers: a
# trigger while a snapshot waits (--after) joins it, which then ends
# --after past the later one; a trigger within --min-interval of the last
# snapshot is recorded but writes none, and pfrec says so; with
# --min-interval 0 it writes a second snapshot.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog twice <<'C'
#include <stdio.h>
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
static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}
static void frame(void)
{
	PROFEV_ZONE(app, "frame");
	usleep(1000);
}
/* twice FILE: triggers "first" at 1 s and "second" at 1.5 s, then, once
 * FILE (the first snapshot) exists, "third"; half a second later it ends */
int main(int argc, char **argv)
{
	(void)argc;
	double t0 = now();
	while (now() - t0 < 1.0)
		frame();
	PROFEV_TRIGGER("first");
	while (now() - t0 < 1.5)
		frame();
	PROFEV_TRIGGER("second");
	while (!exists(argv[1]))
		if (now() - t0 > 120) {
			fprintf(stderr, "no snapshot after 120 s\n");
			return 1;
		} else
			frame();
	PROFEV_TRIGGER("third");
	for (double t = now(); now() - t < 0.5;)
		frame();
	return 0;
}
C
expect_exit 0 pfrec -q --ring 10s --after 1s --ring-discard-at-exit -o a.bin ./twice a-001.bin
cp err.txt a-err.txt
contains a-err.txt "pfrec: snapshot 'a-001.bin' written"
contains a-err.txt "trigger 'second' joins snapshot 1, now written "
contains a-err.txt "trigger 'third' ignored: snapshot 1 was written "
contains a-err.txt " s before (--min-interval 10.0 s)"
[ "$(ls a-*.bin)" = "a-001.bin" ] || fail "snapshots: $(ls a-*.bin)"
pfdump --jsonl a-001.bin > a.jsonl || fail "pfdump --jsonl a-001.bin"
python3 - a.jsonl <<'PY' || fail "the joined snapshot"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
trig = {e["reason"]: e for e in ev if e["type"] == "trigger"}
assert sorted(trig) == ["first", "second"], trig
assert trig["first"]["snapshot"] == 1 and trig["second"]["snapshot"] == 1, trig
# --after from the second trigger: the snapshot waited for it (less the
# client's flush period), and began with the run (a 10 s ring)
last = max(e["ts"] for e in ev)
assert last - trig["second"]["ts"] >= 0.9e9, (last - trig["second"]["ts"]) / 1e9
assert trig["second"]["ts"] - trig["first"]["ts"] >= 0.45e9
assert any(e["type"] == "zone_begin" and e["ts"] < trig["first"]["ts"] - 0.5e9 for e in ev)
PY

# --min-interval 0: the third trigger writes a second snapshot.
expect_exit 0 pfrec -q --ring 10s --after 1s --min-interval 0 --ring-discard-at-exit -o b.bin \
	./twice b-001.bin
contains err.txt "pfrec: snapshot 'b-002.bin' written"
lacks err.txt "ignored"
[ "$(ls b-*.bin | tr '\n' ' ')" = "b-001.bin b-002.bin " ] || fail "snapshots: $(ls b-*.bin)"
expect_exit 0 pfdump --stats b-002.bin
contains out.txt "window:       "
contains out.txt "(snapshot 2)"
pfdump --jsonl b-002.bin > b2.jsonl || fail "pfdump --jsonl b-002.bin"
python3 - b2.jsonl <<'PY' || fail "the second snapshot"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
trig = {e["reason"]: e["snapshot"] for e in ev if e["type"] == "trigger"}
assert trig == {"first": 1, "second": 1, "third": 2}, trig
PY

# SIGUSR1 within the interval is refused the same way: the run ends before
# 10 s have passed since the program's snapshot.
build_prog usr1 <<'C'
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <profev.h>
PROFEV_CATEGORY(app, "application");
/* usr1 FILE: PROFEV_TRIGGER("hitch"), then once FILE exists SIGUSR1 to
 * pfrec (the parent), then 0.5 s of frames */
int main(int argc, char **argv)
{
	(void)argc;
	PROFEV_TRIGGER("hitch");
	for (int i = 0; i < 120000 && access(argv[1], F_OK) != 0; i++)
		usleep(1000);
	kill(getppid(), SIGUSR1);
	for (int i = 0; i < 500; i++) {
		PROFEV_ZONE(app, "frame");
		usleep(1000);
	}
	return 0;
}
C
expect_exit 0 pfrec -q --ring 1M --ring-discard-at-exit -o u.bin ./usr1 u-001.bin
contains err.txt "trigger 'SIGUSR1' ignored: snapshot 1 was written "
[ "$(ls u-*.bin)" = "u-001.bin" ] || fail "snapshots: $(ls u-*.bin)"
