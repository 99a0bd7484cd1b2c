#!/bin/sh
# pfdump --compare of two game traces of the benchmarks (8 threads, EVENTS
# events each; the same trace twice, so that both sides hold as many zones):
# CPU seconds, median and range of three runs, against pfdump --stats of
# both traces in the same run (reading them, the floor). Goal: < 3 s for
# two 50 M-event traces. Fails when pfdump fails or its output lacks the
# zone table.
# usage: tests/bench/compare.sh BUILD EVENTS TRACE
BUILD=$1
EVENTS=$2
TRACE=$3
[ -s "$TRACE" ] || "$BUILD/tools/mktrace" game "$TRACE" "$EVENTS" 8 || exit 1
python3 - "$BUILD/pfdump" "$TRACE" "$EVENTS" <<'PY'
import os, subprocess, sys
pfdump, trace, events = sys.argv[1], sys.argv[2], int(sys.argv[3])
def cpu(args, check):
    # a run shorter than the CPU clock's 10 ms tick (a tiny input) is
    # repeated until the runs add up to 50 ms; the time per run counts
    reps, t = 0, 0.0
    while t < 0.05 and reps < 1000:
        before = os.times()
        p = subprocess.run([pfdump] + args, capture_output=True, text=True)
        after = os.times()
        if p.returncode != 0:
            sys.exit("compare: pfdump %s failed: %s" % (args[0], p.stderr.strip()))
        if check not in p.stdout:
            sys.exit("compare: no '%s' in the output of pfdump %s" % (check, args[0]))
        t += (after.children_user - before.children_user) + (after.children_system - before.children_system)
        reps += 1
    if t <= 0:
        sys.exit("compare: no CPU time measured")
    return t / reps
runs = 3
cmp = sorted(cpu(["--compare", trace, trace], "Zones, by name") for _ in range(runs))
base = sorted(cpu(["--stats", trace], "p99.9") * 2 for _ in range(runs))
print("%-44s %10s %14s" % ("two traces of %d events" % events, "CPU s", "range"))
print("%-44s %10.3f %14s" % ("pfdump --compare", cmp[runs // 2], "%.3f-%.3f" % (cmp[0], cmp[-1])))
print("%-44s %10.3f %14s" % ("pfdump --stats of each (baseline)", base[runs // 2], "%.3f-%.3f" % (base[0], base[-1])))
if events >= 50000000:
    print("goal: < 3 s: %s" % ("met" if cmp[runs // 2] < 3 else "NOT met"))
PY
