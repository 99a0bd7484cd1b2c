# The listing is in time order: a trace holds threads' batches interleaved,
# so file order goes back in time; the merge window puts it right, text
# and JSONL alike. --window 0 keeps file order.
. "$PROFEV_ROOT/tests/cli/lib.sh"
"$MKTRACE" game game.bin 20000 4 || fail "mktrace"
expect_exit 0 pfdump game.bin
cp out.txt sorted.txt
[ ! -s err.txt ] || { cat err.txt >&2; fail "a warning within the window"; }
expect_exit 0 pfdump --jsonl game.bin
cp out.txt sorted.jsonl
expect_exit 0 pfdump --window 0 --jsonl game.bin
cp out.txt file.jsonl
[ ! -s err.txt ] || fail "--window 0 warns"
python3 - sorted.txt sorted.jsonl file.jsonl <<'PY' || fail "time order"
import json, sys
lines = [l for l in open(sys.argv[1]) if l[:1] == " " and l.split()[0][0].isdigit()]
text = [int(l.split()[0].replace(".", "")) for l in lines]
assert text == sorted(text), "text goes back in time"
js = [json.loads(l) for l in open(sys.argv[2])]
ts = [e["ts"] for e in js]
assert ts == sorted(ts), "jsonl goes back in time"
assert text == ts, "text and jsonl differ in order"
raw = [json.loads(l) for l in open(sys.argv[3])]
back = sum(1 for a, b in zip(raw, raw[1:]) if b["ts"] < a["ts"])
assert back > 10, "the trace should interleave threads (%d steps back)" % back
# the same events, each thread's in its file order
key = lambda e: json.dumps(e, sort_keys=True)
assert sorted(map(key, js)) == sorted(map(key, raw)), "not the same events"
for tid in {e["tid"] for e in raw}:
    assert [key(e) for e in js if e["tid"] == tid] == [key(e) for e in raw if e["tid"] == tid], tid
PY
# Ties keep file order: zones of one thread that begin and end together.
"$MKTRACE" ties ties.bin || fail "mktrace ties"
pfdump --window 0 ties.bin > file.txt && pfdump ties.bin > ties.txt || fail "ties"
cmp -s file.txt ties.txt || { diff file.txt ties.txt >&2; fail "ties reordered"; }
# The example game as pfrec records it (make demo).
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
expect_exit 0 pfrec -q -o real.bin "$GAME" 20
expect_exit 0 pfdump --jsonl real.bin
python3 -c "
import json, sys
ts = [json.loads(l)['ts'] for l in open('out.txt')]
assert ts == sorted(ts), 'the game trace goes back in time'
" || fail "game trace order"
