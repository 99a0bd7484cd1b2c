#!/bin/sh
# make bench: every benchmark prints its table with a baseline measured in
# the same run. Shared, noisy machines make absolute times vary; compare the
# ratios. A benchmark that cannot measure a figure says why and fails, and
# so does make bench. PROFEV_BENCH_TINY=1 runs every measuring path once
# on a tiny input (test 520).
# usage: tests/bench/run.sh BUILD [NAME...]   NAMEs (all by default): trace
#        client attach ring game_args tracy conv dump_stats compare svg perfetto image sample sym gpu
BUILD=${1:-build}
shift
ONLY=" $* "
TINY=
if [ -n "${PROFEV_BENCH_TINY:-}" ] && [ "$PROFEV_BENCH_TINY" != 0 ]; then
	TINY=1
	EVENTS=${PROFEV_BENCH_EVENTS:-20000}
else
	EVENTS=${PROFEV_BENCH_EVENTS:-50000000}
fi
TMP=${TMPDIR:-/tmp}
status=0
TINY_LIMIT=${PROFEV_BENCH_TINY_LIMIT:-120}

# bench COMMAND...: runs one benchmark. On the tiny input each has
# TINY_LIMIT seconds: one that outlasts them is named, with the state of its
# processes, and killed, so that a hang in test 520 says where it is
# instead of the whole test running out of time with nothing printed.
bench() {
	[ -n "$TINY" ] || { "$@"; return; }
	setsid "$@" &
	bench_pid=$!
	(
		sleep "$TINY_LIMIT" </dev/null >/dev/null 2>&1
		echo "make bench: '$*' outlasted $TINY_LIMIT s on its tiny input; its processes:" >&2
		ps -s "$bench_pid" -o pid,ppid,stat,wchan:32,etime,args >&2
		for p in $(ps -s "$bench_pid" -o pid=); do
			echo "  $p: $(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null| cut -c1-120)" >&2
			sed 's/^/      /' "/proc/$p/stack" 2>/dev/null | head -n 12 >&2
		done
		kill -KILL "-$bench_pid" 2>/dev/null
	) &
	watchdog=$!
	wait "$bench_pid"
	bench_rc=$?
	kill "$watchdog" 2>/dev/null
	wait "$watchdog" 2>/dev/null
	return $bench_rc
}

# section NAME TITLE: 0 when NAME runs, its title printed
section() {
	[ "$ONLY" = "  " ] || case "$ONLY" in *" $1 "*) ;; *) return 1 ;; esac
	printf '\n== %s\n\n' "$2"
}

section trace "trace format: write, read, size ($EVENTS events)" &&
	{ bench "$BUILD/bench/bench_trace" "$EVENTS" "$TMP/profev-bench-$$.bin" || status=1; }

section client "client and pfrec (bench_client, bare loop in the same run)" &&
	{ bench "$BUILD/bench/bench_client" || status=1; }

section attach "on-demand recording: a zone while not attached, attach latency (bench_attach)" &&
	{ bench "$BUILD/bench/bench_attach" || status=1; }

section ring "flight recorder: pfrec --ring against pfrec, snapshots, the recorder's memory (bench_ring)" &&
	{ bench "$BUILD/bench/bench_ring" "$BUILD/examples/game" || status=1; }

section game_args "the example game with two arguments per frame zone, on disk" &&
	{ bench sh "$(dirname "$0")/game_args.sh" "$BUILD" || status=1; }

section tracy "Tracy's ZoneScoped (bench_tracy, PROFEV_ZONE in the same run)" &&
	{ bench "$BUILD/bench/bench_tracy" || status=1; }

section conv "pfconv: events/s and bytes/event per target ($EVENTS events)" &&
	{ bench env PROFEV_BUILD="$BUILD" "$BUILD/bench/bench_conv" "$EVENTS" || status=1; }

section dump_stats "pfdump --stats with frame statistics ($EVENTS events, 8 threads)" &&
	{ bench sh "$(dirname "$0")/dump_stats.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-dump-$$.bin" || status=1
	  rm -f "$TMP/profev-bench-dump-$$.bin"; }

section compare "pfdump --compare of two traces ($EVENTS events each, 8 threads)" &&
	{ bench sh "$(dirname "$0")/compare.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-compare-$$.bin" || status=1
	  rm -f "$TMP/profev-bench-compare-$$.bin"; }

section svg "pfconv to svg and html against folded: CPU time, size ($EVENTS events, 8 threads)" &&
	{ bench sh "$(dirname "$0")/svg.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-svg-$$.bin" || status=1
	  rm -f "$TMP/profev-bench-svg-$$.bin"; }

section perfetto "Perfetto output of the game trace: size, and trace_processor's load ($EVENTS events)" &&
	{ bench sh "$(dirname "$0")/perfetto_load.sh" "$BUILD" "$EVENTS" "$TMP/profev-bench-conv-game-$EVENTS.pftr" ||
		status=1; }

section image "frame images: DXT1 encoding, storage, the game thread, pfrec, conversion (bench_image)" &&
	{ bench "$BUILD/bench/bench_image" || status=1; }

section sample "pfrec --sample against perf record, DWARF unwinding (bench_sample)" &&
	{ bench sh "$(dirname "$0")/sample.sh" "$BUILD" || status=1; }

section sym "pfsym against llvm-symbolizer and addr2line (100000 distinct addresses)" &&
	{ bench env PROFEV_BUILD="$BUILD" "$BUILD/bench/bench_sym" || status=1; }

# Mesa's software drivers: lavapipe unless the caller chose a Vulkan driver;
# their own allocations outlive the program (not ours to report under ASan).
lvp=/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json
vk_env=
[ -n "${VK_ICD_FILENAMES:-}" ] || [ ! -f "$lvp" ] || vk_env="VK_ICD_FILENAMES=$lvp"
section gpu "GPU zones: a zone's CPU cost against the bare timestamp calls, collect, calibration, bytes (bench_gpu)" &&
	{ bench env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" $vk_env "$BUILD/bench/bench_gpu" ||
		status=1; }

[ $status = 0 ] || echo "make bench: a benchmark failed or could not measure a figure (its reason is above)" >&2
exit $status
