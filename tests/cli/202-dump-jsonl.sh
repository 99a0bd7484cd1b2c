# --jsonl: every line is strict JSON with the right names, values and
# nesting; the committed golden trace decodes to the committed lines.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 0 pfdump --jsonl "$GOLDEN/allkinds.bin"
cmp -s out.txt "$GOLDEN/allkinds.jsonl" || { diff "$GOLDEN/allkinds.jsonl" out.txt >&2; fail "JSONL differs from golden"; }
python3 - out.txt <<'PY' || fail "JSONL meaning"
import json, sys
def no_const(c): raise ValueError("non-standard constant " + c)
ev = [json.loads(l, parse_constant=no_const) for l in open(sys.argv[1], encoding="utf-8")]
assert len(ev) == 16, len(ev)
types = [e["type"] for e in ev]
assert types.count("zone_begin") == 2 and types.count("zone_end") == 2, types
ctr = [e for e in ev if e["type"] == "counter"][0]
assert ctr["name"] == "fps" and ctr["value"] == 59.94, ctr
msg = [e for e in ev if e["type"] == "message"][0]
assert msg["text"] == 'player "one" joined\n\ttab \u00e9 bad:\ufffd', repr(msg["text"])
assert msg["thread"] == "loader" and msg["category"] == "game"
alloc = [e for e in ev if e["type"] == "alloc"]
assert alloc[0]["size"] == 4096 and alloc[0]["addr"] == 0x7f0000001000 and alloc[0]["pool"] == "textures"
assert alloc[0]["stack"][0]["module"] == "/usr/lib/libfoo.so" and alloc[0]["stack"][0]["offset"] == 0x42
# Nesting per thread: ends match the innermost begin, durations agree.
open_ = {}
for e in ev:
    if e["type"] == "zone_begin":
        open_.setdefault(e["tid"], []).append(e)
    elif e["type"] == "zone_end":
        b = open_[e["tid"]].pop()
        assert b["name"] == e["name"], (b, e)
        assert e["duration_ns"] == e["ts"] - b["ts"]
assert all(not s for s in open_.values())
lost = [e for e in ev if e["type"] == "lost"][0]
assert lost["count"] == 17
PY
