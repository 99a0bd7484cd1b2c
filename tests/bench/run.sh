#!/bin/sh
# make bench: every benchmark prints its table with a baseline measured in
# the same run. Shared, noisy machines make absolute times vary; compare the
# ratios. A benchmark that cannot measure a figure says why and fails, and
# so does make bench. PROFEV_BENCH_TINY=1 runs every measuring path once
# on a tiny input (test 520).
# usage: tests/bench/run.sh BUILD [NAME...]   NAMEs (all by default): trace
#        client attach game_args tracy conv dump_stats compare perfetto image sample sym
BUILD=${1:-build}
shift
ONLY=" $* "
if [ -n "${PROFEV_BENCH_TINY:-}" ] && [ "$PROFEV_BENCH_TINY" != 0 ]; then
	EVENTS=${PROFEV_BENCH_EVENTS:-20000}
else
	EVENTS=${PROFEV_BENCH_EVENTS:-50000000}
fi
TMP=${TMPDIR:-/tmp}
status=0

# section NAME TITLE: 0 when NAME runs, its title printed
section() {
	[ "$ONLY" = "  " ] || case "$ONLY" in *" $1 "*) ;; *) return 1 ;; esac
	printf '\n== %s\n\n' "$2"
}

section trace "trace format: write, read, size ($EVENTS events)" &&
	{ "$BUILD/bench/bench_trace" "$EVENTS" "$TMP/profev-bench-$$.bin" || status=1; }

section client "client and pfrec (bench_client, bare loop in the same run)" &&
	{ "$BUILD/bench/bench_client" || status=1; }

section attach "on-demand recording: a zone while not attached, attach latency (bench_attach)" &&
	{ "$BUILD/bench/bench_attach" || status=1; }

section game_args "the example game with two arguments per frame zone, on disk" &&
	{ sh "$(dirname "$0")/game_args.sh" "$BUILD" || status=1; }

section tracy "Tracy's ZoneScoped (bench_tracy, PROFEV_ZONE in the same run)" &&
	{ "$BUILD/bench/bench_tracy" || status=1; }

section conv "pfconv: events/s and bytes/event per target ($EVENTS events)" &&
	{ PROFEV_BUILD=$BUILD "$BUILD/bench/bench_conv" "$EVENTS" || status=1; }

section dump_stats "pfdump --stats with frame statistics ($EVENTS events, 8 threads)" &&
	{ sh "$(dirname "$0")/dump_stats.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-dump-$$.bin" || status=1
	  rm -f "$TMP/profev-bench-dump-$$.bin"; }

section compare "pfdump --compare of two traces ($EVENTS events each, 8 threads)" &&
	{ sh "$(dirname "$0")/compare.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-compare-$$.bin" || status=1
	  rm -f "$TMP/profev-bench-compare-$$.bin"; }

section perfetto "Perfetto output of the game trace: size, and trace_processor's load ($EVENTS events)" &&
	{ sh "$(dirname "$0")/perfetto_load.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-conv-game-$EVENTS.pftr" ||
		status=1; }

section image "frame images: DXT1 encoding, storage, the game thread, pfrec, conversion (bench_image)" &&
	{ "$BUILD/bench/bench_image" || status=1; }

section sample "pfrec --sample against perf record, DWARF unwinding (bench_sample)" &&
	{ sh "$(dirname "$0")/sample.sh" "$BUILD" || status=1; }

section sym "pfsym against llvm-symbolizer and addr2line (100000 distinct addresses)" &&
	{ PROFEV_BUILD=$BUILD "$BUILD/bench/bench_sym" || status=1; }

[ $status = 0 ] || echo "make bench: a benchmark failed or could not measure a figure (its reason is above)" >&2
exit $status
