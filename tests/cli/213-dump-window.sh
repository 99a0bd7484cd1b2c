# Past the merge window: --window N holds N events; an event that comes
# later than that in the file is listed when it is the earliest held, after
# later ones, and a warning counts those. Every event is still listed once.
. "$PROFEV_ROOT/tests/cli/lib.sh"
"$MKTRACE" game game.bin 20000 4 || fail "mktrace"
expect_exit 0 pfdump --window 0 --jsonl game.bin
cp out.txt file.jsonl
expect_exit 0 pfdump --window 3 --jsonl game.bin
cp out.txt small.jsonl
contains err.txt "pfdump: warning: 'game.bin': "
contains err.txt "events listed out of time order: they came past the merge window of 3 events or 64 MiB (--window)"
late=$(sed -n 's/.*game.bin.: \([0-9]*\) events listed.*/\1/p' err.txt)
python3 - file.jsonl small.jsonl "$late" <<'PY' || fail "window of 3"
import json, sys
raw = [json.loads(l) for l in open(sys.argv[1])]
got = [json.loads(l) for l in open(sys.argv[2])]
key = lambda e: json.dumps(e, sort_keys=True)
assert sorted(map(key, raw)) == sorted(map(key, got)), "not the same events"
# what a window of 3 gives: each event out is the earliest of the 4 held
import heapq
held, want = [], []
for seq, e in enumerate(raw):
    heapq.heappush(held, (e["ts"], seq, key(e)))
    if len(held) > 3:
        want.append(heapq.heappop(held)[2])
want += [heapq.heappop(held)[2] for _ in range(len(held))]
assert [key(e) for e in got] == want, "not the window's order"
late, top = 0, -1
for e in got:
    if e["ts"] < top:
        late += 1
    top = max(top, e["ts"])
assert late > 0 and late == int(sys.argv[3]), (late, sys.argv[3])
PY
# A window as large as the trace: no warning.
expect_exit 0 pfdump --window 20000 game.bin
[ ! -s err.txt ] || fail "warned with the whole trace held"
# Bad values.
expect_exit 2 pfdump --window -1 game.bin
contains err.txt "--window takes a number of events, not '-1'"
expect_exit 2 pfdump --window 1k game.bin
expect_exit 2 pfdump --stats --window 5 game.bin
contains err.txt "--window applies to the event listing, not to --stats"
