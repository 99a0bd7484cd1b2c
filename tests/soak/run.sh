#!/bin/sh
# make soak: records the example game at full speed, with memory events and
# their callstacks, for SOAK_SECONDS (default 600) under pfrec, and checks
# that nothing was lost, that pfrec's resident memory stayed flat (sampled
# every second: the maximum and the slope of a least-squares line are
# printed), and that the trace reads back and converts.
# With RING set (make soak RING=30s, or RING=256M), pfrec runs as a flight
# recorder (--ring RING --min-interval 0) and is asked for a snapshot every
# SOAK_SNAPSHOT_EVERY seconds (60): its RSS must stay flat once the ring is
# full (the run's second half), below the ring plus 64 MiB for a RING in
# bytes, and every snapshot must read back and convert.
# usage: tests/soak/run.sh [BUILD]   (not part of make test or CI)
BUILD=${1:-build}
SECONDS_WANTED=${SOAK_SECONDS:-600}
dir="$BUILD/soak"
mkdir -p "$dir" || exit 2
trace="$dir/game.bin"
samples="$dir/rss.txt"
fail() { echo "soak: FAIL: $*" >&2; exit 1; }

RING=${RING:-}
EVERY=${SOAK_SNAPSHOT_EVERY:-60}
if [ -n "$RING" ]; then
	rm -f "$dir"/game-*.bin
	echo "soak: recording $BUILD/examples/game for $SECONDS_WANTED s (--full-speed --memory) under --ring $RING, a snapshot every $EVERY s"
	set -- --ring "$RING" --min-interval 0
else
	echo "soak: recording $BUILD/examples/game for $SECONDS_WANTED s (--full-speed --memory)"
	set --
fi
"$BUILD/pfrec" -q "$@" -o "$trace" -- "$BUILD/examples/game" 0 --seconds "$SECONDS_WANTED" \
	--full-speed --memory >"$dir/game.out" 2>"$dir/pfrec.err" &
pid=$!
: >"$samples"
t=0
while kill -0 $pid 2>/dev/null; do
	rss=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status 2>/dev/null)
	[ -n "$rss" ] && echo "$t $rss" >>"$samples"
	sleep 1
	t=$((t + 1))
	if [ -n "$RING" ] && [ $((t % EVERY)) = 0 ]; then
		"$BUILD/pfrec" --snapshot $pid 2>>"$dir/pfrec.err" || fail "pfrec --snapshot $pid"
	fi
done
wait $pid
rc=$?
[ "$rc" -eq 0 ] || { cat "$dir/pfrec.err"; fail "pfrec exited $rc"; }
if [ -n "$RING" ]; then
	# only the snapshots' lines
	grep -v "^pfrec: snapshot '.*' written$" "$dir/pfrec.err" >"$dir/pfrec.warn"
	[ ! -s "$dir/pfrec.warn" ] || { cat "$dir/pfrec.warn"; fail "pfrec warned"; }
	case $RING in
	*[0-9][kK]) bound=$((${RING%?} + 65536)) ;;
	*[0-9][mM]) bound=$((${RING%?} * 1024 + 65536)) ;;
	*[0-9][gG]) bound=$((${RING%?} * 1048576 + 65536)) ;;
	*) bound= ;;
	esac
	awk -v bound="$bound" '
		{ t[NR] = $1; r[NR] = $2; if ($2 > max) max = $2 }
		END {
			if (NR < 4) { print "soak: too few RSS samples"; exit 1 }
			h = int(NR / 2)
			for (i = 1; i <= h; i++) if (r[i] > m1) m1 = r[i]
			for (i = h + 1; i <= NR; i++) if (r[i] > m2) m2 = r[i]
			printf "soak: pfrec RSS under --ring: %d samples, peak %.1f MiB in the first half, %.1f MiB in the second (%+.1f MiB)\n", NR, m1 / 1024, m2 / 1024, (m2 - m1) / 1024
			if (m2 - m1 > 16384) { print "soak: FAIL: pfrec RSS grows once the ring is full"; exit 1 }
			if (bound != "" && max > bound) { printf "soak: FAIL: pfrec RSS %.1f MiB, past the ring plus 64 MiB\n", max / 1024; exit 1 }
		}' "$samples" || exit 1
	n=0
	for snap in "$dir"/game-*.bin; do
		[ -e "$snap" ] || fail "no snapshot written"
		"$BUILD/pfdump" --stats "$snap" >"$dir/stats.txt" 2>"$dir/dump.err" ||
			{ cat "$dir/dump.err"; fail "pfdump --stats '$snap'"; }
		grep -q "^window: " "$dir/stats.txt" || fail "'$snap' has no window"
		grep -q "^lost events: *0$" "$dir/stats.txt" || { grep "^lost" "$dir/stats.txt"; fail "'$snap': events were lost"; }
		"$BUILD/pfconv" to perfetto -q "$snap" -o /dev/null 2>"$dir/conv.err" ||
			{ cat "$dir/conv.err"; fail "pfconv to perfetto '$snap'"; }
		n=$((n + 1))
		rm -f "$snap"
	done
	[ "$n" -ge 2 ] || fail "$n snapshots"
	grep -q "^ended: *exited with status 0" "$dir/stats.txt" || fail "the last snapshot lacks the game's end"
	echo "soak: $n snapshots, each reads back (pfdump --stats) and converts (perfetto)"
	echo "soak: passed"
	exit 0
fi
[ ! -s "$dir/pfrec.err" ] || { cat "$dir/pfrec.err"; fail "pfrec warned"; }

# RSS: the maximum, and the slope after a warm-up (buffers and tables
# filling up: the first 30 s, or 10% of a long run, or half of a short one);
# flat means under 2 MiB of growth over the rest of the run.
awk -v secs="$SECONDS_WANTED" '
	{ t[NR] = $1; r[NR] = $2; if ($2 > max) max = $2 }
	END {
		if (NR < 3) { print "soak: too few RSS samples"; exit 1 }
		skip = int(NR / 10)
		if (skip < 30) skip = 30
		if (skip > NR / 2) skip = int(NR / 2)
		for (i = skip + 1; i <= NR; i++) { n++; st += t[i]; sr += r[i]; stt += t[i] * t[i]; str += t[i] * r[i] }
		slope = (n * str - st * sr) / (n * stt - st * st)
		growth = slope * (t[NR] - t[skip + 1])
		printf "soak: pfrec RSS: %d samples, max %.1f MiB, first %.1f MiB, last %.1f MiB, slope %.2f KiB/min (%.2f MiB over the run after warm-up)\n", NR, max / 1024, r[1] / 1024, r[NR] / 1024, slope * 60, growth / 1024
		if (growth > 2048) { print "soak: FAIL: pfrec RSS grows"; exit 1 }
	}' "$samples" || exit 1

"$BUILD/pfdump" --stats "$trace" >"$dir/stats.txt" 2>"$dir/dump.err" || { cat "$dir/dump.err"; fail "pfdump --stats"; }
grep -q "^ended: *exited with status 0" "$dir/stats.txt" || fail "the game did not end well"
grep -q "^lost events: *0$" "$dir/stats.txt" || { grep "^lost" "$dir/stats.txt"; fail "events were lost"; }
allocs=$(awk '$1 == "alloc" { print $2; exit }' "$dir/stats.txt")
frees=$(awk '$1 == "free" { print $2; exit }' "$dir/stats.txt")
[ -n "$allocs" ] && [ "$allocs" -gt 0 ] && [ "$allocs" = "$frees" ] ||
	fail "memory events: $allocs allocs, $frees frees"
events=$(awk '/^events:/ { print $2 }' "$dir/stats.txt")
size=$(wc -c <"$trace")
echo "soak: $events events in $size bytes, $allocs allocs with callstacks; $(sed -n 's/^duration: *//p' "$dir/stats.txt")"
# Every frame of the game ran: frames in the trace equal the game's count.
frames=$(awk '$1 == "frame" { print $2; exit }' "$dir/stats.txt")
ran=$(sed -n 's/^\([0-9]*\) frames.*/\1/p' "$dir/game.out")
[ "$frames" = "$ran" ] || fail "$frames frame marks in the trace, the game ran $ran frames"
"$BUILD/pfconv" to perfetto -q "$trace" -o /dev/null 2>"$dir/conv.err" || { cat "$dir/conv.err"; fail "pfconv to perfetto"; }
"$BUILD/pfconv" to folded -q "$trace" -o "$dir/game.folded" 2>"$dir/conv.err" || { cat "$dir/conv.err"; fail "pfconv to folded"; }
echo "soak: the trace reads back and converts (perfetto, folded)"
rm -f "$trace" "$dir/game.folded"
echo "soak: passed"
