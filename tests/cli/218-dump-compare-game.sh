# pfdump --compare on the example game: two recordings of the same program
# show no regression; with GAME_SLOW=input:8 (its input zone waits eight
# times longer) the input zone, by name and by call site, is slower and
# --fail-on-regression exits 3. Real runs differ by more than chance
# between recordings (what else the machine runs: on the shared 2-core
# test machine, the renderer's "draw frame" median moved by 55% between
# two recordings), so this compares at a threshold of 100% and alpha 0.01,
# and records the identical pair again, up to three times in all, when a
# loaded machine slowed one of them that much (a load average of 11 on the
# 2 cores did, once in four).
. "$PROFEV_ROOT/tests/cli/lib.sh"
GAME="$PROFEV_BUILD/examples/game"
for try in 1 2 3; do
	expect_exit 0 pfrec -q -o one.bin -- "$GAME"
	expect_exit 0 pfrec -q -o two.bin -- "$GAME"
	pfdump --compare --fail-on-regression --threshold 100% --alpha 0.01 one.bin two.bin >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 0 ] && break
	[ $rc -eq 3 ] || fail "pfdump --compare exited $rc"
	grep -B1 slower out.txt >&2
done
[ $rc -eq 0 ] || fail "identical recordings compared slower three times"
contains out.txt "Summary: 0 slower"
contains out.txt "0 too rare to test"

GAME_SLOW=input:8 pfrec -q -o slow.bin -- "$GAME" >/dev/null || fail "pfrec with GAME_SLOW"

expect_exit 3 pfdump --compare --fail-on-regression --threshold 100% --alpha 0.01 --jsonl one.bin slow.bin
python3 - out.txt <<'PY' || fail "slowed input zone"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
got = {(r["type"], r.get("name"), r.get("where")): r for r in rows}
z = got[("zone", "input", None)]
assert z["verdict"] == "slower" and z["ratio"] > 2, z
site = [r for k, r in got.items() if k[0] == "site" and k[1] == "input"]
assert len(site) == 1 and site[0]["where"].startswith("main ") and "game.c:" in site[0]["where"], site
assert site[0]["verdict"] == "slower", site
for name in ("frame", "input", "cull", "mix", "job"):
    assert got[("zone", name, None)]["base"]["count"] >= 20, name
assert got[("frames", "", None)]["base"]["count"] >= 100
PY
