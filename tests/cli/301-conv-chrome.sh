# pfconv to chrome: strict JSON with B/E matched and X nested per thread, the
# same events as the Perfetto output, and X events smaller than B/E pairs.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t301 && cd t301 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$MKTRACE" game game.bin 200000 4 || fail "mktrace"

expect_exit 0 pfconv to chrome game.bin
[ -s game.json ] || fail "no game.json"
$CHECK chrome game.json > x.json || fail "invalid chrome output"
expect_exit 0 pfconv to chrome --begin-end game.bin -o be.json
$CHECK chrome be.json > be-counts.json || fail "invalid B/E output"
grep -q '"ph":"B"' be.json || fail "no B events in --begin-end output"
! grep -q '"ph":"X"' be.json || fail "X events in --begin-end output"
cmp -s x.json be-counts.json || fail "X and B/E outputs differ: $(cat x.json) / $(cat be-counts.json)"
[ "$(wc -c < game.json)" -lt "$(wc -c < be.json)" ] || fail "X output is not smaller"

# Counts as pfdump --stats gives them.
expect_exit 0 pfdump --stats game.bin
python3 - out.txt <<'PY' || fail "counts differ from pfdump --stats"
import json, sys
by_type = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 2 and f[1].isdigit():
        by_type[f[0]] = int(f[1])
c = json.load(open("x.json"))
for mine, theirs in (("zones", "zone_begin"), ("counters", "counter"), ("instants", "instant"),
                     ("messages", "message"), ("frames", "frame")):
    if c.get(mine, 0) != by_type.get(theirs, 0):
        sys.exit("%s: %d, pfdump says %s %d" % (mine, c.get(mine, 0), theirs, by_type.get(theirs, 0)))
PY

expect_exit 0 pfconv to perfetto game.bin
$CHECK perfetto game.pftrace > p.json || fail "invalid perfetto output"
cmp -s x.json p.json || fail "chrome and perfetto differ: $(cat x.json) / $(cat p.json)"

# Timestamps: microseconds from the start, nanoseconds as decimals.
grep -q '"ts":[0-9]*\.[0-9]' game.json || fail "no fractional timestamps"
python3 - <<'PY' || fail "bad timestamps"
import json
ev = json.load(open("game.json"))["traceEvents"]
ts = [e["ts"] for e in ev if "ts" in e]
assert min(ts) >= 0, min(ts)
for e in ev:
    if "ts" in e:
        assert round(e["ts"] * 1000) == round(e["ts"] * 1000, 6), e
PY
# Process and thread names as metadata events.
contains game.json '{"ph":"M","ts":0,"pid":1000,"tid":0,"name":"process_name","args":{"name":"game"}}'
contains game.json '{"ph":"M","ts":0,"pid":1000,"tid":1000,"name":"thread_name","args":{"name":"main"}}'

# Exact nesting (mktrace ties: zones that begin and end at each other's
# times): a zone that ends at another zone boundary's time is a B/E pair,
# and so is every zone of its chain (those that begin with it or with its
# parent), the B events outermost first; the others stay X events. The
# checker itself rejects an X event that ends at another boundary's time.
"$MKTRACE" ties ties.bin || fail "mktrace ties"
expect_exit 0 pfconv -q to chrome ties.bin
$CHECK chrome ties.json > /dev/null || fail "invalid chrome output for ties.bin"
python3 - <<'PY' || fail "ties.json: wrong forms"
import json
ev = [e for e in json.load(open("ties.json"))["traceEvents"] if e["ph"] in "BEX"]
x = sorted(e["name"] for e in ev if e["ph"] == "X")
b = [e["name"] for e in ev if e["ph"] == "B"]
assert x == ["R", "S", "T", "U"], x
assert sorted(b) == sorted("PCGDQVW"), b
assert b.index("P") < b.index("C") < b.index("G") and b.index("V") < b.index("W"), b
e = [e["name"] for e in ev if e["ph"] == "E"]
assert e.index("G") < e.index("C") < e.index("P") and e.index("W") < e.index("V"), e
PY
cat > tie.json <<'EOF2'
{"traceEvents":[{"ph":"X","ts":1,"dur":2.002,"pid":1,"tid":1,"name":"parent"},
{"ph":"X","ts":1.001,"dur":2.001,"pid":1,"tid":1,"name":"child"}]}
EOF2
! $CHECK chrome tie.json 2> check.err || fail "conv-check accepts an X event ending at its parent's end"
contains check.err "X event 'parent' on thread (1, 1) ends at 3.002, the time of another zone boundary"
