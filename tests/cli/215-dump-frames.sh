# Frame statistics: per frame set, the count and mean FPS, exact frame time
# percentiles, the standard deviation, the longest frames with the zones
# that took most of them by thread (self time), on frames of known lengths
# whose render thread's events come ahead of the marks and behind them; the
# --frames listing in text and JSONL; the example game.
. "$PROFEV_ROOT/tests/cli/lib.sh"
"$MKTRACE" frames fr.bin || fail "mktrace frames"
expect_exit 0 pfdump --stats fr.bin
cp out.txt stats.txt
contains stats.txt "frames of the default set: 20 frames, mean 66.67 FPS"
contains stats.txt "  frame time:   min 10.000 ms, p50 10.000 ms, p90 30.000 ms, p99 50.000 ms, p99.9 50.000 ms, max 50.000 ms, stddev 11.180 ms"
python3 - stats.txt <<'PY' || fail "longest frames"
import sys
text = open(sys.argv[1]).read()
default, loading = text.split("frames of the default set")[1].split("frames of 'loading'")
rows = [l.split(None, 3) for l in default.splitlines() if l.startswith("    #")]
want = [(20, 250, 50), (17, 190, 40), (11, 110, 30), (5, 40, 20), (1, 0, 10), (2, 10, 10),
        (3, 20, 10), (4, 30, 10), (6, 60, 10), (7, 70, 10)]
assert len(rows) == 10, rows
for row, (n, at, d) in zip(rows, want):
    assert row[0] == "#%d" % n, (row, n)
    assert row[1] == "0.%03d000000" % at, (row, at)
    assert row[2] == "%d.000" % d, (row, d)
    z = "Update %.3f ms (main), Render %.3f ms (render), Frame %.3f ms (main)" % (d * .5, d * .4, d * .3)
    assert row[3] == "ms  " + z, (row[3], z)
assert "20 frames, one per column" in default
assert "3 frames, mean 142.86 FPS" in loading
assert "min 5.000 ms, p50 7.000 ms, p90 9.000 ms, p99 9.000 ms, p99.9 9.000 ms, max 9.000 ms, stddev 1.633 ms" in loading
rows = [l.split() for l in loading.splitlines() if l.startswith("    #")]
assert [r[:3] + r[4:7] for r in rows] == [
    ["#2", "0.330000000", "9.000", "Load", "9.000", "ms"],
    ["#1", "0.320000000", "7.000", "Load", "7.000", "ms"],
    ["#0", "0.310000000", "5.000", "Load", "5.000", "ms"]], rows
PY
# Piped, the frame times are plain ASCII; forced, colour and blocks.
grep -q "$(printf '\033')" stats.txt && fail "colour in a pipe"
LC_ALL=C grep -q '[^ -~]' stats.txt && fail "non-ASCII in a pipe"
contains stats.txt "  over time:    ....:.....=.....*..#"
expect_exit 0 pfdump --stats --no-color fr.bin
cmp -s out.txt stats.txt || fail "--no-color differs from a pipe"
expect_exit 0 pfdump --stats --color=never fr.bin
cmp -s out.txt stats.txt || fail "--color=never differs from a pipe"
expect_exit 0 pfdump --stats --color=always fr.bin
esc=$(printf '\033')
# green to 1.5 times the median (10 ms), yellow to twice, red above
contains out.txt "  over time:    ${esc}[32m▂▂▂▂${esc}[33m▄${esc}[32m▂▂▂▂▂${esc}[31m▅${esc}[32m▂▂▂▂▂${esc}[31m▇${esc}[32m▂▂${esc}[31m█${esc}[0m"
expect_exit 2 pfdump --stats --color=sometimes fr.bin
contains err.txt "--color takes auto, always or never, not 'sometimes'"
# --frames: every frame in time order, text and JSONL.
expect_exit 0 pfdump --frames fr.bin
[ "$(wc -l < out.txt)" -eq 23 ] || fail "--frames: 23 frames"
head -1 out.txt | grep -qx "    0.000000000  #1               10.000000 ms" || fail "first frame line"
contains out.txt "    0.250000000  #20              50.000000 ms"
contains out.txt "    0.330000000  #2                9.000000 ms  loading (start/end)"
expect_exit 0 pfdump --frames --jsonl fr.bin
python3 - out.txt <<'PY' || fail "--frames --jsonl"
import json, sys
f = [json.loads(l) for l in open(sys.argv[1])]
ms = [10, 10, 10, 10, 20, 10, 10, 10, 10, 10, 30, 10, 10, 10, 10, 10, 40, 10, 10, 50]
want, t = [], 0
for i, d in enumerate(ms):
    want.append({"ts": t, "set": "", "discontinuous": False, "frame": i + 1, "duration_ns": d * 1000000})
    t += d * 1000000
for i, d in enumerate([5, 7, 9]):
    want.append({"ts": (310 + 10 * i) * 1000000, "set": "loading", "discontinuous": True, "frame": i,
                 "duration_ns": d * 1000000})
assert f == want, f
PY
expect_exit 2 pfdump --frames --stats fr.bin
expect_exit 2 pfdump --frames --from 1s fr.bin
contains err.txt "--from applies to the event listing, not to --frames"
# The example game: 20 frames, each listed, the stats agreeing.
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
expect_exit 0 pfrec -q -o game.bin "$GAME" 20
expect_exit 0 pfdump --frames --jsonl game.bin
cp out.txt frames.jsonl
expect_exit 0 pfdump --stats game.bin
python3 - frames.jsonl out.txt <<'PY' || fail "the game's frames"
import json, math, re, sys
f = [json.loads(l) for l in open(sys.argv[1])]
text = open(sys.argv[2]).read()
d = sorted(x["duration_ns"] for x in f)
n = len(d)
assert n >= 18, n   # 20 marks: 19 whole frames
m = re.search(r"frames of the default set: (\d+) frames, mean ([\d.]+) FPS", text)
assert m and int(m.group(1)) == n, m
mean = sum(d) / n
assert abs(float(m.group(2)) - 1e9 / mean) < 0.01, (m.group(2), 1e9 / mean)
pct = lambda q: d[max(1, -(-n * q // 10000)) - 1]
ms = lambda v: "%.3f ms" % (v / 1e6)
sd = math.sqrt(sum((x - mean) ** 2 for x in d) / n)
want = "min %s, p50 %s, p90 %s, p99 %s, p99.9 %s, max %s, stddev %s" % (
    ms(d[0]), ms(pct(5000)), ms(pct(9000)), ms(pct(9900)), ms(pct(9990)), ms(d[-1]), ms(round(sd)))
assert want in text, (want, text)
worst = [l.split()[0] for l in text.split("longest frames")[1].splitlines() if l.startswith("    #")]
top = sorted(f, key=lambda x: (-x["duration_ns"], x["ts"]))[:10]
assert worst == ["#%d" % x["frame"] for x in top], (worst, top)
PY
