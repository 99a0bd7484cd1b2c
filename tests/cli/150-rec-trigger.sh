# PROFEV_TRIGGER: the program asks for a snapshot. Under pfrec --ring it
# writes one, named by the reason, on the thread that asked; under a plain
# pfrec it is a trigger event and nothing more; without pfrec it does
# nothing; with -DPROFEV_DISABLE it compiles away (no client to link).
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
cat > trig_src.c <<'C'
#include <stdlib.h>
#include <unistd.h>
#include <profev.h>
PROFEV_CATEGORY(app, "application");
/* trig N: 300 frames of 1 ms; PROFEV_TRIGGER at frame 150 (reason
 * "hitch 150") and, if N > 1, again at frame 160 ("again"); then exits 3 */
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	profev_thread_name("gameloop");
	for (int f = 0; f < 300; f++) {
		PROFEV_ZONE(app, "frame");
		usleep(1000);
		if (f == 150)
			PROFEV_TRIGGER(n ? "hitch 150" : NULL);
		if (f == 160 && n > 1)
			PROFEV_TRIGGER("again");
		PROFEV_FRAME_MARK();
	}
	return 3;
}
C
build_prog trig < trig_src.c

# Compiled away: no client linked, no symbol of it left.
$CC -std=gnu99 -O1 -Wall -Wextra -Werror -DPROFEV_DISABLE -I"$PROFEV_ROOT/lib/include" \
	-o trig_off trig_src.c || fail "PROFEV_TRIGGER does not compile under -DPROFEV_DISABLE"
! nm trig_off | grep -q profev || fail "a profev symbol under -DPROFEV_DISABLE: $(nm trig_off | grep profev)"
expect_exit 3 ./trig_off 2
# Without pfrec: nothing happens, the program runs as it would.
expect_exit 3 ./trig 2

# A plain recording: the trigger is an event with its reason, no snapshot.
expect_exit 3 pfrec -q -o plain.bin ./trig 2
[ -z "$(ls plain-*.bin 2>/dev/null)" ] || fail "a plain pfrec wrote a snapshot: $(ls plain-*.bin)"
pfdump plain.bin > plain.txt || fail "pfdump plain.bin"
contains plain.txt "trigger     hitch 150 (no snapshot)"
contains plain.txt "trigger     again (no snapshot)"
pfdump --jsonl plain.bin > plain.jsonl || fail "pfdump --jsonl plain.bin"
python3 - plain.jsonl <<'PY' || fail "the plain trace's triggers"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
trig = [e for e in ev if e["type"] == "trigger"]
assert [(t["reason"], t["snapshot"], t["thread"]) for t in trig] == \
    [("hitch 150", 0, "gameloop"), ("again", 0, "gameloop")], trig
# each trigger sits between the frame marks of its frame: after 150 marks
# (160 for the second), before the next
marks = sorted(e["ts"] for e in ev if e["type"] == "frame")
assert len(marks) == 300, len(marks)
for t, f in zip(trig, (150, 160)):
    assert marks[f - 1] <= t["ts"] <= marks[f], (f, t["ts"], marks[f - 1], marks[f])
PY
expect_exit 0 pfconv to perfetto plain.bin -o plain.pftrace

# Under --ring: one snapshot, asked for by the program, named by its
# reason; the empty reason is "trigger".
expect_exit 3 pfrec -q --ring 10s --ring-discard-at-exit -o r.bin ./trig 1
contains err.txt "pfrec: snapshot 'r-001.bin' written"
[ "$(ls r-*.bin)" = "r-001.bin" ] || fail "snapshots: $(ls r-*.bin)"
expect_exit 0 pfdump --stats r-001.bin
contains out.txt "trigger:      'hitch 150' at "
contains out.txt "on thread "
contains out.txt " (gameloop) (snapshot 1)"
rm -f r-*.bin
expect_exit 3 pfrec -q --ring 10s --ring-discard-at-exit -o r.bin ./trig 0
expect_exit 0 pfdump --stats r-001.bin
contains out.txt "trigger:      'trigger' at "
