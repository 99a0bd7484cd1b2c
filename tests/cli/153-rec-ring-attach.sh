# pfrec --attach with --ring: a flight recorder on a running program. The
# program's own PROFEV_TRIGGER writes a snapshot that stands alone (names,
# thread, true frame numbers); Ctrl-C detaches, writes the last snapshot
# (reason "detach") and the program runs on to its own end.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
build_prog ondemand <<'C'
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
/* Frames of 1 ms. Writes "ready" once running; 1.5 s after an attach
 * begins, PROFEV_TRIGGER("attached hitch"); 0.3 s after the detach it
 * ends with status 0 (status 1 after 120 s with no attach and detach). */
int main(void)
{
	profev_thread_name("gameloop");
	double t0 = now(), attached = 0, detached = 0;
	int hitched = 0;
	FILE *f = fopen("ready", "w");
	if (f)
		fclose(f);
	for (;;) {
		PROFEV_ZONE(app, "frame");
		{
			PROFEV_ZONE(app, "work");
			usleep(1000);
		}
		if (!attached && profev_active())
			attached = now();
		if (attached && !hitched && now() - attached >= 1.5) {
			PROFEV_TRIGGER("attached hitch");
			hitched = 1;
		}
		if (hitched && !detached && !profev_active())
			detached = now();
		if (detached && now() - detached >= 0.3)
			return 0;
		if (now() - t0 > 120)
			return 1;
		PROFEV_FRAME_MARK();
	}
}
C
# wait_for FILE: until it exists, 60 s at most.
wait_for() {
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || fail "no $1 after 60 s"
		sleep 0.1
	done
}
PROFEV_ON_DEMAND=1 ./ondemand >prog.out 2>&1 &
prog=$!
wait_for ready
pfrec -q --attach "$prog" --ring 2s --after 500ms -o x.bin 2>x.err &
rec=$!
wait_for x-001.bin
# the snapshot is written once pfrec says so
i=0
until grep -q "snapshot 'x-001.bin' written" x.err; do
	i=$((i + 1))
	[ $i -lt 600 ] || { cat x.err >&2; fail "pfrec did not finish x-001.bin in 60 s"; }
	sleep 0.1
done
kill -INT "$rec"
wait "$rec" || { cat x.err >&2; fail "pfrec --attach --ring exited $? after SIGINT"; }
contains x.err "pfrec: snapshot 'x-002.bin' written"
contains x.err "detached, the program runs on"
wait "$prog"
st=$?
[ "$st" = 0 ] || { cat prog.out >&2; fail "the program exited $st after the detach"; }
[ "$(ls x-*.bin | tr '\n' ' ')" = "x-001.bin x-002.bin " ] || fail "snapshots: $(ls x-*.bin)"
[ ! -e x.bin ] || fail "--ring wrote x.bin"

expect_exit 0 pfdump --stats x-001.bin
contains out.txt "trigger:      'attached hitch' at "
contains out.txt "(gameloop) (snapshot 1)"
pfdump --jsonl x-001.bin > x1.jsonl || fail "pfdump --jsonl x-001.bin"
python3 - x1.jsonl <<'PY' || fail "the attached snapshot"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
trig = [e for e in ev if e["type"] == "trigger"]
assert [(t["reason"], t["snapshot"], t["thread"]) for t in trig] == [("attached hitch", 1, "gameloop")], trig
zones = [e for e in ev if e["type"] in ("zone_begin", "zone_end")]
assert zones and {e["name"] for e in zones} == {"frame", "work"}, {e["name"] for e in zones}
assert all(e["thread"] == "gameloop" for e in zones), {e["thread"] for e in zones}
# --after: half a second past the trigger, less the client's flush period
assert max(e["ts"] for e in ev) - trig[0]["ts"] >= 0.4e9
# frames count from the program's first: it ran before the attach
frames = [e["frame"] for e in ev if e["type"] == "frame"]
assert frames and min(frames) > 0, frames[:3]
# a zone is never older than the window the ring kept
edge = [e["ts"] for e in ev if e.get("window_edge") and e["type"] == "zone_begin"]
if edge:
    assert all(e["ts"] >= min(edge) for e in zones), "a zone older than the window"
PY
expect_exit 0 pfdump --stats x-002.bin
contains out.txt "(snapshot 2)"
pfdump --jsonl x-002.bin > x2.jsonl || fail "pfdump --jsonl x-002.bin"
grep -q '"type":"detach"' x2.jsonl || fail "x-002.bin has no detach event"
grep '"type":"trigger"' x2.jsonl | grep '"reason":"detach"' | grep -q '"snapshot":2' ||
	fail "x-002.bin has no trigger 'detach': $(grep '"type":"trigger"' x2.jsonl)"
expect_exit 0 pfconv to perfetto x-001.bin -o x1.pftrace
expect_exit 0 pfconv to perfetto x-002.bin -o x2.pftrace
tp_need
tp_import_ok x1.pftrace
tp_import_ok x2.pftrace
