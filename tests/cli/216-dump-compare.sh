# pfdump --compare on traces of known distributions (mkdist): the tables,
# rows in one trace only, rows too rare to test, call sites, allocations,
# JSON Lines read by a strict parser, --sort, --threshold,
# --fail-on-regression's exit status, usage errors and bad inputs.
. "$PROFEV_ROOT/tests/cli/lib.sh"
MKDIST="$PROFEV_BUILD/tools/mkdist"
"$MKDIST" base.bin 1 1000 || fail "mkdist base"
"$MKDIST" new.bin 2 1000 slow,site,swap,alloc || fail "mkdist new"

expect_exit 0 pfdump --compare base.bin new.bin
cp out.txt text.txt
python3 - text.txt <<'PY' || fail "text tables"
import re, sys
text = open(sys.argv[1]).read()
assert text.startswith("base: base.bin\nnew:  new.bin\n"), text[:80]
head, frames, zones, sites, allocs = re.split(r"\n(?=Frame times|Zones, by name|Zones, by call site|Allocations)", text.split("\nSummary")[0])
def rows(block):
    lines = block.splitlines()[2:]
    out, i = {}, 0
    while i < len(lines):
        if "only in" in lines[i]:
            out[lines[i].split()[0]] = lines[i]
            i += 1
            if i < len(lines) and lines[i].startswith("    at "):
                i += 1
            continue
        out[lines[i].split()[0] + "|" + lines[i + 1].split("  new ")[0].strip()] = lines[i] + "\n" + lines[i + 1]
        i += 2
    return out
z = rows(zones)
assert z["steady|"].rstrip().endswith("slower"), z["steady|"]
assert "base      1000" in z["steady|"] and "new       1000" in z["steady|"], z["steady|"]
assert z["noisy|"].endswith("no significant change"), z["noisy|"]
assert "too rare to test (fewer than 20 on a side)" in z["rare|"], z["rare|"]
assert z["legacy"].split()[1:3] == ["base", "1000"] and z["legacy"].endswith("only in base"), z["legacy"]
assert z["shiny"].split()[1:3] == ["new", "1000"] and z["shiny"].endswith("only in new"), z["shiny"]
s = rows(sites)
assert s["load|load_texture assets.c:42"].endswith("slower"), s
assert s["load|load_mesh assets.c:10"].endswith("no significant change"), s
assert "count 1000 -> 1000, bytes 250.0 KiB -> 500.0 KiB  +100.0%  more\n      dist+0x1234 <- dist+0x1000" in allocs, allocs
# flagged first, the largest change first
order = [k for k in z]
assert order.index("load|") < order.index("steady|") < order.index("noisy|") < order.index("rare|") < order.index("legacy"), order
PY
contains text.txt "Summary: 4 slower, 0 faster, 3 no significant change, 1 too rare to test, 1 only in base, 1 only in new"

# JSON Lines: strict JSON, the same verdicts, numbers that add up
expect_exit 0 pfdump --compare --jsonl base.bin new.bin
python3 - out.txt <<'PY' || fail "jsonl"
import json, sys
def no_const(c): raise ValueError("not JSON: " + c)
rows = [json.loads(l, parse_constant=no_const) for l in open(sys.argv[1], encoding="utf-8")]
head, summary = rows[0], rows[-1]
assert head == {"type": "compare", "base": "base.bin", "new": "new.bin", "alpha": 0.05, "threshold": 0.05,
                "min_count": 20, "allocations": True}, head
by = {(r["type"], r.get("name", r.get("stack")), r.get("where")): r for r in rows[1:-1]}
st = by[("zone", "steady", None)]
assert st["verdict"] == "slower" and st["by"] == "median", st
assert st["base"]["count"] == 1000 and st["new"]["count"] == 1000
assert 1.05 < st["ratio"] < 1.15 and st["ci_low"] < st["ratio"] < st["ci_high"], st
assert st["p_value"] < 0.001, st
assert st["new"]["median_ns"] / st["base"]["median_ns"] == st["ratio"], st
assert by[("zone", "rare", None)]["verdict"] == "too_rare" and by[("zone", "rare", None)]["p_value"] is None
assert by[("zone", "legacy", None)]["new"] is None and by[("zone", "legacy", None)]["verdict"] == "only_base"
assert by[("zone", "shiny", None)]["base"] is None and by[("zone", "shiny", None)]["verdict"] == "only_new"
assert by[("site", "load", "load_texture assets.c:42")]["verdict"] == "slower"
assert by[("site", "load", "load_mesh assets.c:10")]["verdict"] == "same"
ld = by[("zone", "load", None)]
assert ld["base"]["count"] == 2000, ld
al = by[("alloc", "dist+0x1234 <- dist+0x1000", None)]
assert al["base"] == {"count": 1000, "bytes": 256000} and al["new"] == {"count": 1000, "bytes": 512000} and al["verdict"] == "more", al
fr = by[("frames", "", None)]
assert fr["base"]["count"] == 1000 and fr["verdict"] == "slower", fr
assert summary == {"type": "summary", "slower": 4, "faster": 0, "same": 3, "too_rare": 1, "only_base": 1, "only_new": 1}, summary
PY

# --sort name and total; --threshold 50%: the 10% and 30% changes pass
expect_exit 0 pfdump --compare --sort name --jsonl base.bin new.bin
python3 -c '
import json, sys
z = [r["name"] for r in map(json.loads, open(sys.argv[1])) if r["type"] == "zone"]
assert z == sorted(z, key=lambda s: s.encode()), z' out.txt || fail "--sort name"
expect_exit 0 pfdump --compare --sort total --jsonl base.bin new.bin
python3 -c '
import json, sys
t = [(r["base"] or {}).get("total_ns", 0) + (r["new"] or {}).get("total_ns", 0) for r in map(json.loads, open(sys.argv[1])) if r["type"] == "zone"]
assert t == sorted(t, reverse=True), t' out.txt || fail "--sort total"
expect_exit 0 pfdump --compare --threshold 50% base.bin new.bin
contains out.txt "Summary: 0 slower, 0 faster, 7 no significant change"
contains out.txt "differ by 50% or more"

# --fail-on-regression: 3 with a slower row, 0 without
expect_exit 3 pfdump --compare --fail-on-regression base.bin new.bin
contains out.txt "Summary: 4 slower"
expect_exit 0 pfdump --compare --fail-on-regression --threshold 50 base.bin new.bin
expect_exit 0 pfdump --compare --fail-on-regression base.bin base.bin
contains out.txt "Summary: 0 slower, 0 faster, 8 no significant change, 1 too rare to test, 0 only in base, 0 only in new"
# and the other way round: faster is no regression
expect_exit 0 pfdump --compare --fail-on-regression new.bin base.bin
contains out.txt "Summary: 0 slower, 4 faster"

# one of them from a pipe
pfdump --compare - new.bin <base.bin >pipe.txt 2>err.txt || fail "stdin as base"
contains pipe.txt "base: <stdin>"
expect_exit 2 pfdump --compare - - <base.bin
contains err.txt "only one of BASE and NEW can be '-'"

# usage errors
expect_exit 2 pfdump --compare base.bin
contains err.txt "--compare needs two traces, BASE and NEW"
expect_exit 2 pfdump --compare base.bin new.bin new.bin
expect_exit 2 pfdump --sort name base.bin
contains err.txt "--sort applies to --compare"
expect_exit 2 pfdump --compare --sort size base.bin new.bin
contains err.txt "--sort takes change, total or name, not 'size'"
expect_exit 2 pfdump --compare --threshold five base.bin new.bin
contains err.txt "--threshold takes a percentage"
expect_exit 2 pfdump --compare --threshold -1% base.bin new.bin
expect_exit 2 pfdump --compare --alpha 1.5 base.bin new.bin
contains err.txt "--alpha takes a number between 0 and 1"
expect_exit 2 pfdump --compare --min-count 1 base.bin new.bin
expect_exit 2 pfdump --compare --stats base.bin new.bin

# bad inputs: a missing file, not a trace, a cut trace (compared for what
# was whole, exit 1)
expect_exit 2 pfdump --compare base.bin missing.bin
contains err.txt "missing.bin"
printf 'not a trace' >junk.bin
expect_exit 1 pfdump --compare junk.bin new.bin
contains err.txt "'junk.bin'"
size=$(wc -c <new.bin)
head -c $((size / 2)) new.bin >cut.bin
expect_exit 1 pfdump --compare base.bin cut.bin
contains err.txt "'cut.bin'"
contains out.txt "Zones, by name"
expect_exit 0 pfdump --compare "$GOLDEN/allkinds.bin" "$GOLDEN/allkinds.bin"
contains out.txt "too rare to test"
