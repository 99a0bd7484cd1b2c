#!/bin/sh
# make bench: pfrec --sample against perf record on the same programs, in
# the same run, interleaved (bench_sample). usage: tests/bench/sample.sh BUILD
# PROFEV_BENCH_SAMPLE_REPS (default 7) rounds; PROFEV_BENCH_SAMPLE_HZ=1000 or
# 10000 for one frequency's rows.
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)" -le 2 ] ||
	{ echo "SKIP: perf_event_paranoid above 2: no sampling here"; exit 0; }
command -v perf >/dev/null 2>&1 || echo "SKIP (perf rows): perf is not installed (Debian: linux-perf)"
work="$BUILD/bench/sample_work"
gaps="$BUILD/bench/sample_gaps"
${CC:-cc} -O2 -g -fomit-frame-pointer -o "$work" "$ROOT/tests/bench/sample_work.c" || exit 1
${CC:-cc} -O2 -g -fomit-frame-pointer -o "$gaps" "$ROOT/tests/bench/sample_gaps.c" || exit 1
"$BUILD/bench/bench_sample" "$BUILD/pfrec" "$work" "${PROFEV_BENCH_SAMPLE_N:-200000}" "$gaps"
