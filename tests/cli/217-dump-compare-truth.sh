# pfdump --compare where the truth is known, through the command: a few of
# the pairs that t_compare_truth (tests/unit/show) tests by the hundred in
# one process. A zone 10% slower at 1000 times a side is flagged by its
# median and --fail-on-regression exits 3; a zone whose mean stays but
# whose p99 doubles, at 10,000 times a side, is flagged by its tail; the
# same distributions with other seeds are not flagged at alpha 0.01.
. "$PROFEV_ROOT/tests/cli/lib.sh"
MKDIST="$PROFEV_BUILD/tools/mkdist" python3 - <<'PY' || fail "known truths"
import json, os, subprocess
mk = os.environ["MKDIST"]
def compare(*args):
    p = subprocess.run(["pfdump", "--compare", "--jsonl"] + list(args), capture_output=True, text=True)
    assert p.returncode in (0, 3), p.stderr
    return {(r["type"], r.get("name")): r for r in map(json.loads, p.stdout.splitlines())}, p.returncode
def gen(path, seed, frames, changes=""):
    subprocess.run([mk, path, str(seed), str(frames)] + ([changes] if changes else []), check=True)
for i in range(3):
    gen("a.bin", 5000 + 2 * i, 1000)
    gen("b.bin", 5001 + 2 * i, 1000, "slow")
    rows, rc = compare("--fail-on-regression", "a.bin", "b.bin")
    st = rows[("zone", "steady")]
    assert st["verdict"] == "slower" and st["by"] == "median" and rc == 3, (i, st, rc)
    assert 1.05 < st["ratio"] < 1.15, st
for i in range(2):
    gen("a.bin", 7000 + 2 * i, 10000)
    gen("b.bin", 7001 + 2 * i, 10000, "tail")
    rows, rc = compare("a.bin", "b.bin")
    bi = rows[("zone", "bimodal")]
    assert bi["verdict"] == "slower" and bi["by"] == "p99", (i, bi)
    assert 1.8 < bi["p99_ratio"] < 2.2 and bi["ratio"] < 1, bi
gen("a.bin", 11, 1000)
gen("b.bin", 12, 1000)
rows, rc = compare("--fail-on-regression", "--alpha", "0.01", "a.bin", "b.bin")
assert rc == 0 and rows[("summary", None)]["slower"] == 0, rows
PY
