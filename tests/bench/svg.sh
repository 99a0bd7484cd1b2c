#!/bin/sh
# pfconv to svg and to html on the game trace of the benchmarks (8
# threads), against pfconv to folded in the same run, which builds the same
# stack tree and writes it as lines: CPU time of each conversion (median
# and range over five runs, three on the tiny input) and the size of its
# output. Goal: the SVG under 5 MB (boxes under a pixel merge). Fails when
# a conversion fails or writes nothing.
# usage: tests/bench/svg.sh BUILD EVENTS TRACE
BUILD=$1
EVENTS=$2
TRACE=$3
[ -s "$TRACE" ] || "$BUILD/tools/mktrace" game "$TRACE" "$EVENTS" 8 || exit 1
RUNS=5
[ -z "${PROFEV_BENCH_TINY:-}" ] || [ "$PROFEV_BENCH_TINY" = 0 ] || RUNS=3
python3 - "$BUILD" "$TRACE" "$RUNS" <<'PY'
import os, re, subprocess, sys, tempfile
build, trace, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = subprocess.run([build + "/pfdump", "--stats", trace], capture_output=True, text=True)
m = re.search(r"^events:\s+(\d+)", p.stdout, re.M)
if p.returncode != 0 or not m:
    sys.exit("svg: no event count from pfdump --stats: " + p.stderr.strip())
events = int(m.group(1))
out = tempfile.mkdtemp(prefix="profev-bench-svg-", dir=os.path.dirname(os.path.abspath(trace)))
rows = []
for fmt in ("folded", "svg", "html"):
    path = os.path.join(out, "game." + fmt)
    times = []
    for _ in range(runs):
        # a run shorter than the CPU clock's 10 ms tick (a tiny input) is
        # repeated until the runs add up to 50 ms; the time per run counts
        reps, t = 0, 0.0
        while t < 0.05 and reps < 1000:
            before = os.times()
            p = subprocess.run([build + "/pfconv", "to", fmt, "-q", trace, "-o", path],
                               capture_output=True, text=True)
            after = os.times()
            if p.returncode != 0:
                sys.exit("svg: pfconv to %s failed: %s" % (fmt, p.stderr.strip()))
            t += ((after.children_user - before.children_user) +
                  (after.children_system - before.children_system))
            reps += 1
        times.append(t / reps)
    size = os.path.getsize(path)
    if size == 0 or min(times) <= 0:
        sys.exit("svg: pfconv to %s wrote nothing or took no CPU time" % fmt)
    times.sort()
    rows.append((fmt, times[len(times) // 2], times[0], times[-1], size))
    os.remove(path)
os.rmdir(out)
print("%-22s %10s %17s %12s %14s" % ("", "CPU s", "range", "M events/s", "output bytes"))
for fmt, med, lo, hi, size in rows:
    print("%-22s %10.3f %8.3f-%-8.3f %12.1f %14d" % ("pfconv to " + fmt, med, lo, hi,
                                                    events / med / 1e6, size))
svg = rows[1]
print("events: %d; svg against folded: %.2fx the CPU time" % (events, svg[1] / rows[0][1]))
print("goal: SVG under 5 MB: %s" % ("met" if svg[4] < 5e6 else "NOT met"))
PY
