#!/bin/sh
# pfdump --stats, frame percentiles and the longest frames' zones included,
# on the game trace of the benchmarks (8 threads): events/s of CPU time on
# one core, the best of three runs (bench_trace's "read, whole chunks" in
# the same run is the floor). Goal: >= 50 M events/s. Fails when pfdump
# fails or its output lacks the frame figures.
# usage: tests/bench/dump_stats.sh BUILD EVENTS TRACE
BUILD=$1
EVENTS=$2
TRACE=$3
[ -s "$TRACE" ] || "$BUILD/tools/mktrace" game "$TRACE" "$EVENTS" 8 || exit 1
python3 - "$BUILD/pfdump" "$TRACE" <<'PY'
import os, re, subprocess, sys
pfdump, trace = sys.argv[1], sys.argv[2]
best, out = None, ""
for _ in range(3):
    before = os.times()
    p = subprocess.run([pfdump, "--stats", trace], capture_output=True, text=True)
    after = os.times()
    if p.returncode != 0:
        sys.exit("dump_stats: pfdump --stats failed: " + p.stderr.strip())
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    best = cpu if best is None else min(best, cpu)
    out = p.stdout
m = re.search(r"^events:\s+(\d+)", out, re.M)
if not m or "p99.9" not in out:
    sys.exit("dump_stats: no event count or frame percentiles in pfdump --stats' output")
if best <= 0:
    sys.exit("dump_stats: no CPU time measured")
events = int(m.group(1))
rate = events / best / 1e6
print("%-44s %12s %10s" % ("", "events/s", "CPU s"))
print("%-44s %10.1f M %10.3f" % ("pfdump --stats (frames, percentiles, zones)", rate, best))
print("goal: >= 50 M events/s: %s" % ("met" if rate >= 50 else "NOT met"))
PY
