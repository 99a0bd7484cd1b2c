# --from/--to keep a time window (zones crossing an edge are cut there and
# marked); --thread keeps one thread's events, by name or by TID.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t305 && cd t305 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$MKTRACE" game game.bin 200000 4 || fail "mktrace"
expect_exit 0 pfconv to chrome --from 5ms --to 10ms game.bin -o win.json
$CHECK chrome win.json > win-counts.json || fail "invalid windowed output"
python3 - <<'PY' || fail "events outside the window"
import json
from decimal import Decimal
ev = json.load(open("win.json"), parse_float=Decimal)["traceEvents"]
cut = 0
for e in ev:
    if e["ph"] == "M":
        continue
    end = e["ts"] + e.get("dur", 0)
    assert 5000 <= e["ts"] and end <= 10000, e
    cut += bool(e.get("args", {}).get("cut")) or bool(e.get("args", {}).get("continued"))
assert cut > 0, "no zone marked as cut at the edges"
assert len(ev) > 1000, len(ev)
PY
expect_exit 0 pfconv to perfetto --from 5ms --to 10ms game.bin -o win.pftrace
$CHECK perfetto win.pftrace > win-p.json || fail "invalid windowed perfetto output"
cmp -s win-counts.json win-p.json || fail "windows differ: $(cat win-counts.json) / $(cat win-p.json)"

for who in "worker 2" 1002; do
	expect_exit 0 pfconv to chrome --thread "$who" game.bin -o one.json
	$CHECK chrome one.json > one-counts.json || fail "invalid filtered output"
	contains one-counts.json '"threads": ["worker 2/1002"]'
	python3 - <<'PY' || fail "other threads' events kept"
import json
for e in json.load(open("one.json"))["traceEvents"]:
    if e["ph"] in "BEXi":
        assert e["tid"] == 1002 or e["tid"] >= 1000000000, e  # or a frame set
PY
done
expect_exit 0 pfconv to folded --thread nobody game.bin -o none.folded
[ ! -s none.folded ] || fail "unknown thread gave output"
