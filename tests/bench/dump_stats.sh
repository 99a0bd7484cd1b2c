#!/bin/sh
# pfdump --stats, frame percentiles and the longest frames' zones included,
# on the game trace of the benchmarks (8 threads): events/s of CPU time on
# one core, median and range of five runs, against reading every event
# and nothing more (tests/tools/modules) in the same runs: the floor.
# Goal: >= 50 M events/s. Fails when pfdump fails or its output lacks the
# frame figures.
# usage: tests/bench/dump_stats.sh BUILD EVENTS TRACE
BUILD=$1
EVENTS=$2
TRACE=$3
[ -s "$TRACE" ] || "$BUILD/tools/mktrace" game "$TRACE" "$EVENTS" 8 || exit 1
python3 - "$BUILD/pfdump" "$BUILD/tools/modules" "$TRACE" <<'PY'
import os, re, subprocess, sys
pfdump, reader, trace = sys.argv[1], sys.argv[2], sys.argv[3]
def cpu(argv):
    # CPU time per run: a run shorter than the clock's 10 ms tick (a tiny
    # input) is repeated until the runs add up to 50 ms.
    runs, t, out = 0, 0.0, ""
    while t < 0.05 and runs < 1000:
        before = os.times()
        p = subprocess.run(argv, capture_output=True, text=True)
        after = os.times()
        if p.returncode != 0:
            sys.exit("dump_stats: %s failed: %s" % (" ".join(argv[:2]), p.stderr.strip()))
        t += (after.children_user - before.children_user) + (after.children_system - before.children_system)
        runs, out = runs + 1, p.stdout
    if t <= 0:
        sys.exit("dump_stats: no CPU time measured")
    return t / runs, out
runs = 5
stats, base, out = [], [], ""
for _ in range(runs):  # interleaved, so that both see the same machine
    t, out = cpu([pfdump, "--stats", trace])
    stats.append(t)
    base.append(cpu([reader, trace])[0])
m = re.search(r"^events:\s+(\d+)", out, re.M)
if not m or "p99.9" not in out:
    sys.exit("dump_stats: no event count or frame percentiles in pfdump --stats' output")
events = int(m.group(1))
stats.sort()
base.sort()
def rate(t):
    return events / t / 1e6
print("%-48s %12s %10s %16s" % ("%d events, median of %d runs" % (events, runs), "events/s", "CPU s", "range (M ev/s)"))
for name, v in (("pfdump --stats (frames, percentiles, zones)", stats),
                ("reading every event (baseline: the floor)", base)):
    print("%-48s %10.1f M %10.3f %16s" % (name, rate(v[runs // 2]), v[runs // 2],
                                          "%.1f-%.1f" % (rate(v[-1]), rate(v[0]))))
print("--stats against reading alone: %.2fx the CPU time" % (stats[runs // 2] / base[runs // 2]))
print("goal: >= 50 M events/s: %s" % ("met" if rate(stats[runs // 2]) >= 50 else "NOT met"))
PY
