# pfdump --compare where the truth is known, on mkdist's traces (see
# tests/tools/mkdist.c): over many pairs drawn from the same distributions
# with different seeds, the share of rows flagged stays near alpha and not
# above it; a zone 10% slower is flagged every time at 1000 times a side;
# a zone whose mean stays but whose p99 doubles is flagged by its tail at
# 10,000 times a side. The seeds are fixed: the same result every run. The
# sample sizes are the ones pfdump(1) states.
. "$PROFEV_ROOT/tests/cli/lib.sh"
MKDIST="$PROFEV_BUILD/tools/mkdist" python3 - <<'PY' || fail "known truths"
import json, os, subprocess, math
mk = os.environ["MKDIST"]
def compare(*args):
    p = subprocess.run(["pfdump", "--compare", "--jsonl"] + list(args), capture_output=True, text=True)
    assert p.returncode in (0, 3), p.stderr
    return [json.loads(l) for l in p.stdout.splitlines()], p.returncode
def gen(path, seed, frames, changes=""):
    subprocess.run([mk, path, str(seed), str(frames)] + ([changes] if changes else []), check=True)

# 1. The same distributions, 120 pairs: at alpha 0.05 and 0.2, with no
# threshold, the flagged share of the rows drawn independently: not the
# zone "load", whose times are a fixed half from each of its two sites (a
# stratified sample varies less than the test allows for: it is flagged
# less often than alpha), nor "legacy", always 30 us.
independent = {("frames", ""), ("zone", "steady"), ("zone", "bimodal"), ("zone", "noisy"), ("site", "load")}
pairs, tested, flagged = 120, {0.05: 0, 0.2: 0}, {0.05: 0, 0.2: 0}
for i in range(pairs):
    gen("a.bin", 1000 + 2 * i, 1000)
    gen("b.bin", 1001 + 2 * i, 1000)
    for alpha in (0.05, 0.2):
        rows, rc = compare("--threshold", "0", "--alpha", str(alpha), "a.bin", "b.bin")
        for r in rows:
            if (r["type"], r.get("name")) in independent:
                assert r["verdict"] in ("same", "slower", "faster"), r
                tested[alpha] += 1
                flagged[alpha] += r["verdict"] != "same"
for alpha in (0.05, 0.2):
    t, f = tested[alpha], flagged[alpha]
    share, sd = f / t, math.sqrt(alpha * (1 - alpha) / t)
    print("alpha %g: %d of %d rows flagged (%.4f)" % (alpha, f, t, share))
    assert t == pairs * 6, t
    assert share <= alpha + 3 * sd, (alpha, share)       # never systematically above
    assert share >= alpha * 0.6, (alpha, share)          # and near it

# 2. steady 10% slower, 1000 frames: flagged every time, by its median,
# and --fail-on-regression says so; nothing else in the trace is.
for i in range(20):
    gen("a.bin", 5000 + 2 * i, 1000)
    gen("b.bin", 5001 + 2 * i, 1000, "slow")
    rows, rc = compare("--fail-on-regression", "a.bin", "b.bin")
    st = [r for r in rows if r.get("name") == "steady"][0]
    assert st["verdict"] == "slower" and st["by"] == "median", (i, st)
    assert st["ci_low"] <= 1.10 <= st["ci_high"] or abs(st["ratio"] - 1.1) < 0.03, (i, st)
    assert rc == 3, rc

# 3. bimodal, same mean, p99 doubled, 10,000 frames: flagged slower by the
# tail every time, though its mean moved by less than the sampling's 5% and its median fell.
for i in range(10):
    gen("a.bin", 7000 + 2 * i, 10000)
    gen("b.bin", 7001 + 2 * i, 10000, "tail")
    rows, rc = compare("a.bin", "b.bin")
    bi = [r for r in rows if r.get("name") == "bimodal"][0]
    assert abs(bi["new"]["mean_ns"] / bi["base"]["mean_ns"] - 1) < 0.05, bi
    assert 1.8 < bi["p99_ratio"] < 2.2, bi
    assert bi["ratio"] < 1, bi
    assert bi["verdict"] == "slower" and bi["by"] == "p99", (i, bi)
PY
