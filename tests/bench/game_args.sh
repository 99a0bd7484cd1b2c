#!/bin/sh
# The cost on disk of arguments in a real recording: the example game built
# with two arguments on every frame zone (-DGAME_ARGS) against the plain
# game, each recorded RUNS times, the median of each.
# usage: tests/bench/game_args.sh BUILD [FRAMES [RUNS]]
# (PROFEV_BENCH_TINY=1: 20 frames, one run)
BUILD=${1:-build}
if [ -n "${PROFEV_BENCH_TINY:-}" ] && [ "$PROFEV_BENCH_TINY" != 0 ]; then
	FRAMES=${2:-20}
	RUNS=${3:-1}
else
	FRAMES=${2:-400}
	RUNS=${3:-3}
fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=${TMPDIR:-/tmp}/profev-game-args-$$
mkdir -p "$TMP" || exit 1
trap 'rm -rf "$TMP"' EXIT
# A sanitizer build's client library needs its runtime (PROFEV_SAN, as make test sets it).
SANFLAGS=${PROFEV_SAN:+-fsanitize=$PROFEV_SAN}
cc $SANFLAGS -O2 -I"$ROOT/lib/include" -o "$TMP/game-plain" "$ROOT/examples/game.c" \
	"$BUILD/libprofev-client.a" -pthread -lm || exit 1
cc $SANFLAGS -O2 -I"$ROOT/lib/include" -DGAME_ARGS -o "$TMP/game-args" "$ROOT/examples/game.c" \
	"$BUILD/libprofev-client.a" -pthread -lm || exit 1
# bytes events args: the bytes of the trace's events chunks (the frame
# images the game sends are chunks of their own, and their size varies
# from run to run far more than arguments weigh), its events other than
# arguments, and its arguments. A figure missing from pfdump --stats (or
# no argument in the game built with them) fails, with the reason.
cannot() { echo "game_args.sh: cannot measure $*" >&2; exit 1; }
measure() {
	"$BUILD/pfrec" -q -o "$TMP/t.bin" "$TMP/$1" "$FRAMES" > /dev/null || cannot "$1: pfrec failed"
	"$BUILD/pfdump" --stats "$TMP/t.bin" > "$TMP/stats.txt" || cannot "$1: pfdump --stats failed"
	awk -v want_args="$2" '
		/^events:/ { ev = $2 } /^  arg / { args = $2 }
		/^on disk:/ && /events chunks / { sub(/.*events chunks /, ""); per = $1 + 0 }
		END {
			if (!ev || !per || (want_args && !args)) {
				printf "game_args.sh: cannot measure the events chunks: pfdump --stats gave" \
				       " %d events, %s bytes/event of events chunks, %d arguments\n", ev, per, args > "/dev/stderr"
				exit 1
			}
			printf "%d %d %d\n", per * ev + 0.5, ev - args, args }' "$TMP/stats.txt" || exit 1
}
median() { sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"; }
for kind in plain args; do
	: > "$TMP/$kind.txt"
	want_args=0
	[ $kind = args ] && want_args=1
	for i in $(seq "$RUNS"); do measure "game-$kind" $want_args >> "$TMP/$kind.txt" || exit 1; done
done
p_size=$(cut -d' ' -f1 "$TMP/plain.txt" | median)
a_size=$(cut -d' ' -f1 "$TMP/args.txt" | median)
events=$(cut -d' ' -f2 "$TMP/args.txt" | median)
args=$(cut -d' ' -f3 "$TMP/args.txt" | median)
awk -v p="$p_size" -v a="$a_size" -v n="$events" -v k="$args" 'BEGIN {
	printf "  %-44s %10d bytes  (%d events)\n", "events chunks without arguments (median)", p, n
	printf "  %-44s %10d bytes  (%d arguments more)\n", "events chunks with two per frame zone", a, k
	printf "  %-44s %10.3f bytes  (goal <= 0.2)\n", "growth per event", (a - p) / n
	printf "  %-44s %10.2f bytes\n", "per argument", (a - p) / (k ? k : 1)
}'
