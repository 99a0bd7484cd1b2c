#!/bin/sh
# make bench: every benchmark prints its table with a baseline measured in
# the same run. Shared, noisy machines make absolute times vary; compare the
# ratios. usage: tests/bench/run.sh BUILD
BUILD=${1:-build}
EVENTS=${PROFEV_BENCH_EVENTS:-50000000}
TMP=${TMPDIR:-/tmp}
status=0

section() { printf '\n== %s\n\n' "$1"; }

section "trace format: write, read, size ($EVENTS events)"
"$BUILD/bench/bench_trace" "$EVENTS" "$TMP/profev-bench-$$.bin" || status=1

section "client and pfrec (bench_client, bare loop in the same run)"
"$BUILD/bench/bench_client" || status=1

section "the example game with two arguments per frame zone, on disk"
sh "$(dirname "$0")/game_args.sh" "$BUILD" || status=1

section "Tracy's ZoneScoped (bench_tracy, PROFEV_ZONE in the same run)"
"$BUILD/bench/bench_tracy" || status=1

section "pfconv: events/s and bytes/event per target ($EVENTS events)"
PROFEV_BUILD=$BUILD "$BUILD/bench/bench_conv" "$EVENTS" || status=1

section "pfdump --stats with frame statistics ($EVENTS events, 8 threads)"
sh "$(dirname "$0")/dump_stats.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-dump-$$.bin" || status=1
rm -f "$TMP/profev-bench-dump-$$.bin"

section "Perfetto output of the game trace: size, and trace_processor's load ($EVENTS events)"
sh "$(dirname "$0")/perfetto_load.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-conv-game-$EVENTS.pftr" || status=1

section "frame images: DXT1 encoding, storage, the game thread, pfrec, conversion (bench_image)"
"$BUILD/bench/bench_image" || status=1

section "pfrec --sample against perf record, DWARF unwinding (bench_sample)"
sh "$(dirname "$0")/sample.sh" "$BUILD" || status=1

section "pfsym against llvm-symbolizer and addr2line (100000 distinct addresses)"
PROFEV_BUILD=$BUILD "$BUILD/bench/bench_sym" || status=1

exit $status
