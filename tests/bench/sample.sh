#!/bin/sh
# make bench: pfrec --sample against perf record on the same programs, in
# the same run, interleaved (bench_sample). usage: tests/bench/sample.sh BUILD
# PROFEV_BENCH_SAMPLE_REPS (default 7) rounds; PROFEV_BENCH_SAMPLE_HZ=1000 or
# 10000 for one frequency's rows.
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# Sampling that cannot be measured fails the benchmark, with the reason.
[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)" -le 2 ] ||
	{ echo "bench_sample: cannot measure sampling: perf_event_paranoid is above 2" >&2; exit 1; }
work="$BUILD/bench/sample_work"
gaps="$BUILD/bench/sample_gaps"
${CC:-cc} -O2 -g -fomit-frame-pointer -o "$work" "$ROOT/tests/bench/sample_work.c" || exit 1
${CC:-cc} -O2 -g -fomit-frame-pointer -o "$gaps" "$ROOT/tests/bench/sample_gaps.c" || exit 1
"$BUILD/bench/bench_sample" "$BUILD/pfrec" "$work" "${PROFEV_BENCH_SAMPLE_N:-200000}" "$gaps"
