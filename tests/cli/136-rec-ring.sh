# pfrec --ring: nothing is written until a trigger; each snapshot is a
# trace that stands alone: every name resolves (names first sent long
# before the window too), the zone begun before the window is marked,
# nothing is older than the window, trace_processor loads it with no
# import error. pfrec's end writes one unless --ring-discard-at-exit; a
# crash's snapshot ends at the crash.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
build_prog ringed <<'C'
#include <signal.h>
#include <stdlib.h>
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
/* ringed SECONDS TRIGGER_AT [crash]: "step" zones inside "run"; SIGUSR1
 * to pfrec (the parent) at TRIGGER_AT; a crash at the end if asked */
int main(int argc, char **argv)
{
	profev_thread_name("mainloop");
	double t0 = now(), end = t0 + atof(argv[1]), at = t0 + atof(argv[2]);
	int sent = 0;
	PROFEV_ZONE(app, "run");
	while (now() < end) {
		PROFEV_ZONE(app, "step");
		usleep(1000);
		if (!sent && now() >= at && atof(argv[2]) > 0) {
			kill(getppid(), SIGUSR1);
			sent = 1;
		}
		PROFEV_FRAME_MARK();
	}
	if (argc > 3)
		*(volatile int *)0 = 1;
	return 0;
}
C
expect_exit 0 pfrec -q --ring 500ms --min-interval 0 -o r.bin ./ringed 3 2
contains err.txt "pfrec: snapshot 'r-001.bin' written"
contains err.txt "pfrec: snapshot 'r-002.bin' written"
[ ! -e r.bin ] || fail "--ring wrote r.bin"
expect_exit 0 pfdump --stats r-001.bin
cp out.txt s1.txt
contains s1.txt "trigger:      'SIGUSR1' at "
contains s1.txt "(snapshot 1)"
contains s1.txt "cut zones:    2 begun before the window"
lacks s1.txt "cut: no end chunk"
pfdump --jsonl r-001.bin > r1.jsonl || fail "pfdump --jsonl"
python3 - r1.jsonl <<'PY' || fail "snapshot 1"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
zones = [e for e in ev if e["type"] in ("zone_begin", "zone_end")]
assert zones and {e["name"] for e in zones} == {"run", "step"}, {e["name"] for e in zones}
assert all(e["thread"] == "mainloop" for e in zones)
before = [e for e in ev if e.get("window_edge") and e["type"] == "zone_begin"]
assert [e["name"] for e in before] == ["run", "step"], before
start = before[0]["ts"]
assert min(e["ts"] for e in ev) == start, "an event older than the window"
trig = [e for e in ev if e["type"] == "trigger"]
assert len(trig) == 1 and trig[0]["reason"] == "SIGUSR1" and trig[0]["snapshot"] == 1, trig
# the run began at 0 and the trigger came at about 2 s: the window of a
# 500 ms ring (whole chunks of 100 ms) starts well after the run did
assert start > 1000000000, start
assert max(e["ts"] for e in ev) >= trig[0]["ts"]
PY
expect_exit 0 pfconv to perfetto r-001.bin -o r1.pftrace
expect_exit 0 pfdump --stats r-002.bin
contains out.txt "trigger:      'exit' at "
contains out.txt "ended:        exited with status 0"

# Without a trigger and with --ring-discard-at-exit: nothing written.
rm -f r-*.bin
expect_exit 0 pfrec -q --ring 1M --ring-discard-at-exit -o r.bin ./ringed 1 0
[ -z "$(ls r-*.bin 2>/dev/null)" ] || fail "--ring-discard-at-exit wrote $(ls r-*.bin)"

# A crash: the snapshot at pfrec's end ends at it (the client's handler,
# not the sanitizers', catches it).
export ASAN_OPTIONS=handle_segv=0 TSAN_OPTIONS=handle_segv=0
expect_exit 139 pfrec -q --ring 300ms -o c.bin ./ringed 1 0 crash
expect_exit 0 pfdump --stats c-001.bin
contains out.txt "trigger:      'crash' at "
contains out.txt "crash:        SIGSEGV"
contains out.txt "killed by signal 11"

# pfrec --snapshot refuses what is not a pfrec; the ring's options need --ring.
sleep 30 & sp=$!
# (until the forked shell has become sleep)
i=0
while [ "$(cat /proc/$sp/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect_exit 1 pfrec --snapshot $sp
contains err.txt "is 'sleep', not pfrec"
kill $sp
expect_exit 2 pfrec --after 1s ./ringed 1 0
contains err.txt "need --ring"
expect_exit 2 pfrec --ring soon ./ringed 1 0

tp_need
tp_import_ok r1.pftrace
[ "$(tp_value r1.pftrace "select count(*) from slice s join args a using(arg_set_id)
	where a.key = 'debug.begun_before_window' and s.name in ('run', 'step')")" = 2 ] ||
	fail "the zones begun before the window: $(cat tp-out.csv)"
