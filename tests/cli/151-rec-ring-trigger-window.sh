# The issue's flight-recorder case: a 20 s run under pfrec --ring 3s, the
# program's PROFEV_TRIGGER("hitch") at 12 s, --after 1s. The snapshot holds
# the seconds 11 to 13 of the run (its window starts 3 s, and whole chunks
# of 100 ms, before it is written, 1 s after the trigger) and nothing older
# than its window; every name resolves, those first sent in the run's
# first second too (Perfetto's ring-buffer traces lose them: #414); the
# zones begun before the window are marked; trace_processor loads it with
# no import error. Times are asserted against the program's own clock (the
# second counter) with margins for a loaded machine, never on speed.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
build_prog hitchy <<'C'
#include <time.h>
#include <unistd.h>
#include <profev.h>
PROFEV_CATEGORY(app, "application");
PROFEV_CATEGORY(io, "loading");
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
/* 20 s of frames of 2 ms: "frame" holds "update" and "draw"; "run" spans
 * the whole run; "boot" and the "loading" category appear in the first
 * second only; the counter "second" holds the run's whole seconds. */
int main(void)
{
	double t0 = now();
	profev_thread_name("gameloop");
	PROFEV_ZONE(app, "run");
	{
		PROFEV_ZONE(io, "boot");
		usleep(20000);
	}
	int sec = -1, hitched = 0;
	for (double t = 0; t < 20.0; t = now() - t0) {
		PROFEV_ZONE(app, "frame");
		if ((int)t != sec) {
			sec = (int)t;
			PROFEV_COUNTER(app, "second", sec);
		}
		{
			PROFEV_ZONE(app, "update");
			usleep(1000);
		}
		{
			PROFEV_ZONE(app, "draw");
			usleep(1000);
		}
		if (!hitched && t >= 12.0) {
			PROFEV_TRIGGER("hitch");
			hitched = 1;
		}
		PROFEV_FRAME_MARK();
	}
	return 0;
}
C
expect_exit 0 pfrec -q --ring 3s --after 1s --ring-discard-at-exit -o h.bin ./hitchy
contains err.txt "pfrec: snapshot 'h-001.bin' written"
[ "$(ls h-*.bin)" = "h-001.bin" ] || fail "snapshots: $(ls h-*.bin)"
expect_exit 0 pfdump --stats h-001.bin
cp out.txt stats.txt
contains stats.txt "trigger:      'hitch' at 12."
contains stats.txt "(gameloop) (snapshot 1)"
contains stats.txt "begun before the window"
lacks stats.txt "cut: no end chunk"
pfdump --jsonl h-001.bin > h.jsonl || fail "pfdump --jsonl h-001.bin"
python3 - h.jsonl <<'PY' || fail "the snapshot's window"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
trig = [e for e in ev if e["type"] == "trigger"]
assert len(trig) == 1 and trig[0]["reason"] == "hitch" and trig[0]["snapshot"] == 1, trig
assert trig[0]["thread"] == "gameloop", trig
# The program's clock: the trigger came at its 12.0 s (a frame later at
# most), and the counter gives whole seconds.
t12 = trig[0]["ts"]
def sec(e):
    return 12.0 + (e["ts"] - t12) / 1e9
timed = [e for e in ev if e["type"] not in ("thread_name",)]
first, last = min(sec(e) for e in timed), max(sec(e) for e in timed)
# nothing older than the window: the zones begun before it sit at its start
edge = [e for e in ev if e.get("window_edge") and e["type"] == "zone_begin"]
assert [e["name"] for e in edge][:2] == ["run", "frame"], edge
start = edge[0]["ts"]
assert min(e["ts"] for e in timed) == start, "an event older than the window"
assert all(e["ts"] == start for e in edge), edge
# 11 s to 13 s are in, with room for a late pfrec; 3 s of ring plus a
# chunk of 100 ms before a snapshot written at 13 s or later: not before 9
assert 9.0 <= first <= 11.0, ("window starts at", first)
assert 12.9 <= last <= 17.0, ("window ends at", last)
seconds = sorted({int(e["value"]) for e in ev if e["type"] == "counter" and e["name"] == "second"})
assert seconds and 9 <= seconds[0] <= 11 and {11, 12} <= set(seconds) and seconds[-1] <= 17, seconds
# every name resolves, those sent in the first second too
zones = [e for e in ev if e["type"] in ("zone_begin", "zone_end")]
assert {e["name"] for e in zones} == {"run", "frame", "update", "draw"}, {e["name"] for e in zones}
assert all(e.get("category") == "app" for e in zones if e["type"] == "zone_begin"), "a category lost"
assert all(e["thread"] == "gameloop" for e in timed), {e["thread"] for e in timed}
assert not any(e.get("name") == "boot" for e in ev), "boot is older than the window"
# frames keep their numbers, counted from the run's first (a frame takes
# 2 ms, far less than 90 ms even on a loaded machine: over 100 by 9 s),
# the zones cut at the window's end too; the marks in it follow each other
frames = [e["frame"] for e in timed]
assert min(frames) > 100 and frames == sorted(frames), (min(frames), max(frames))
marks = [e["frame"] for e in ev if e["type"] == "frame"]
assert marks == list(range(marks[0], marks[0] + len(marks))), "frame numbers skip"
PY
expect_exit 0 pfconv to perfetto h-001.bin -o h.pftrace
tp_need
tp_import_ok h.pftrace
[ "$(tp_value h.pftrace "select count(*) from slice where name = 'frame'")" -gt 500 ] ||
	fail "frames in trace_processor: $(cat tp-out.csv)"
[ "$(tp_value h.pftrace "select count(*) from slice where name = '' or name is null")" = 0 ] ||
	fail "a slice without a name: $(cat tp-out.csv)"
