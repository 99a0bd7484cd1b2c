#!/bin/sh
# The Perfetto output of bench_conv's game trace: its bytes per event beside
# the 22.2 of the one-sequence format it replaced (issue 10; that format is
# gone, so the figure cannot be measured in the same run), and the time
# Perfetto's trace_processor_shell takes to load it, the wait a user has
# before the first query or the UI's first picture. A figure, not a goal.
# The same for the output of --compress (compressed_packets).
# usage: tests/bench/perfetto_load.sh BUILD EVENTS TRACE
# A figure that cannot be measured (no trace_processor_shell, a count
# missing from a tool's output) fails the script, with the reason.
cannot() { echo "perfetto_load.sh: cannot measure $*" >&2; exit 1; }
BUILD=$1
EVENTS=$2
TRACE=$3
TMP=${TMPDIR:-/tmp}
OUT=$TMP/profev-bench-perfetto-$$.pftrace
OUTZ=$TMP/profev-bench-perfetto-$$.z.pftrace
[ -s "$TRACE" ] || "$BUILD/tools/mktrace" game "$TRACE" "$EVENTS" 4 || exit 1
trap 'rm -f "$OUT" "$OUTZ" "$OUT.sql" "$OUT.rows" "$OUT.time"' EXIT INT TERM
"$BUILD/pfconv" -q to perfetto -o "$OUT" "$TRACE" || exit 1
"$BUILD/pfconv" -q to perfetto --compress -o "$OUTZ" "$TRACE" || exit 1
# The events pfconv counts: bench_conv's "events" column, from --stats.
"$BUILD/pfdump" --stats "$TRACE" > "$OUT.stats" 2>/dev/null
events=$(awk '/^events:/ { print $2; exit }' "$OUT.stats")
rm -f "$OUT.stats"
[ "${events:-0}" -gt 0 ] 2>/dev/null || cannot "bytes per event: pfdump --stats gave no event count for '$TRACE'"
bytes=$(wc -c < "$OUT")
zbytes=$(wc -c < "$OUTZ")
[ "$bytes" -gt 0 ] && [ "$zbytes" -gt 0 ] || cannot "bytes per event: an output of pfconv is empty"
awk -v b="$bytes" -v z="$zbytes" -v e="$events" 'BEGIN {
	printf "%-34s %12s %12s\n", "", "bytes/event", "output MiB"
	printf "%-34s %12.1f %12s\n", "one sequence (before issue 10)", 22.2, "-"
	printf "%-34s %12.1f %12.1f\n", "a sequence per thread (now)", b / e, b / 1048576
	printf "%-34s %12.1f %12.1f\n", "the same, --compress", z / e, z / 1048576 }'

TP=${TRACE_PROCESSOR:-}
if [ -z "$TP" ]; then
	for TP in "$(dirname "$0")/../../../shared/tools/trace_processor_shell" \
		"$(command -v trace_processor_shell 2>/dev/null)"; do
		[ -n "$TP" ] && [ -x "$TP" ] && break
	done
fi
if [ -z "$TP" ] || [ ! -x "$TP" ]; then
	cannot "trace_processor's load: no trace_processor_shell (\$TRACE_PROCESSOR, ../shared/tools, PATH)"
fi
echo "select count(*) as slices from slice;" > "$OUT.sql"
# load WHAT FILE: one line of trace_processor's load time and memory.
load() {
	load=$(uptime | sed 's/.*load average: //')
	# CPU time and peak memory too where GNU time is there: on a shared
	# machine the wall time is mostly other programs' turn.
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%e %U %S %M" -o "$OUT.time" "$TP" -q "$OUT.sql" "$2" > "$OUT.rows" 2>/dev/null ||
			{ echo "trace_processor_shell failed on the $1 output"; return 1; }
		set -- "$1" $(cat "$OUT.time")
	else
		t0=$(date +%s.%N)
		"$TP" -q "$OUT.sql" "$2" > "$OUT.rows" 2>/dev/null ||
			{ echo "trace_processor_shell failed on the $1 output"; return 1; }
		t1=$(date +%s.%N)
		set -- "$1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "" "" ""
	fi
	rows=$(sed -n 2p "$OUT.rows")
	rm -f "$OUT.rows" "$OUT.time"
	# trace_processor prints the column's name, then its value.
	[ "${rows:-0}" -gt 0 ] 2>/dev/null ||
		{ echo "perfetto_load.sh: cannot measure the $1 output's load: trace_processor_shell counted no slice" >&2
		  return 1; }
	awk -v w="$2" 'BEGIN { exit !(w > 0) }' ||
		{ echo "perfetto_load.sh: cannot measure the $1 output's load: no time from /usr/bin/time" >&2; return 1; }
	awk -v what="$1" -v wall="$2" -v user="$3" -v sys="$4" -v rss="$5" -v e="$events" -v n="$rows" -v l="$load" 'BEGIN {
		printf "trace_processor_shell, %s output, load and one query: %.1f s wall (%.2f M events/s)", what, wall, e / wall / 1e6
		if (user != "")
			printf ", %.1f s CPU (%.2f M events/s), peak %.0f MiB", user + sys, e / (user + sys) / 1e6, rss / 1024
		printf "; %s slices; load average %s\n", n, l }'
}
load plain "$OUT" || exit 1
load --compress "$OUTZ" || exit 1
