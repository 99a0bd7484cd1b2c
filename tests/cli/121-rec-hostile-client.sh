# A hostile client under pfrec (tests/cli/hostile-client.c speaks the wire
# protocol itself): pfrec stays within bounded time and memory, warns, and
# writes a trace that reads back. Before the thread table was indexed, 100k
# threads took minutes (a linear lookup per message) and 4.2 KB each.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
$CC -std=gnu99 -O1 -Wall -Wextra -Werror $SANFLAGS -I"$PROFEV_ROOT/lib" -o hostile \
	"$PROFEV_ROOT/tests/cli/hostile-client.c" || fail "cannot build the hostile client"

# record MODE N: pfrec on the hostile client, its peak RSS in KiB in rss.txt,
# its run time in seconds in secs.txt; fails after 60 s.
record() {
	start=$(date +%s)
	pfrec -q -o "$1.bin" ./hostile "$1" "$2" 2>err.txt &
	pid=$!
	max=0 i=0
	while kill -0 $pid 2>/dev/null; do
		rss=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status 2>/dev/null)
		[ "${rss:-0}" -gt "$max" ] && max=$rss
		i=$((i + 1))
		[ $i -le 1200 ] || { kill -KILL $pid; fail "pfrec on '$1 $2' still runs after 60 s"; }
		sleep 0.05
	done
	wait $pid
	echo $? >rc.txt
	echo $max >rss.txt
	echo $(($(date +%s) - start)) >secs.txt
}

# 100k threads that never exit: pfrec stops recording at 65536 alive at
# once, says so, and the trace holds what came before.
record threads 100000
# The client's next write after pfrec closed the pipe fails: it exits 3.
[ "$(cat rc.txt)" = 3 ] || { cat err.txt; fail "pfrec exited $(cat rc.txt), expected the client's 3"; }
contains err.txt "more than 65536 threads alive at once; stopped recording"
[ "$(cat secs.txt)" -le 20 ] || fail "100k threads took $(cat secs.txt) s"
[ "$(cat rss.txt)" -le 200000 ] || fail "100k threads: pfrec's RSS reached $(cat rss.txt) KiB"
expect_exit 0 pfdump --stats threads.bin
n=$(count_type threads.bin zone_begin)
[ "$n" -eq 65536 ] || fail "$n zones kept of the first 65536 threads"

# 100k threads one after the other: all kept, quickly.
record churn 100000
[ "$(cat rc.txt)" = 0 ] || { cat err.txt; fail "pfrec exited $(cat rc.txt)"; }
[ ! -s err.txt ] || { cat err.txt; fail "warnings for a well-formed stream"; }
[ "$(cat secs.txt)" -le 20 ] || fail "100k short threads took $(cat secs.txt) s"
expect_exit 0 pfdump --stats churn.bin
n=$(count_type churn.bin zone_begin)
[ "$n" -eq 100000 ] || fail "$n zones of 100000"

# One string id redefined 1.2M times with new names: capped, warned.
record names 1200000
contains err.txt "further names are recorded as '(too many names)'"
[ "$(cat rss.txt)" -le 600000 ] || fail "names: pfrec's RSS reached $(cat rss.txt) KiB"
expect_exit 0 pfdump --stats names.bin
contains out.txt "(too many names)"

# Random bytes after a good start: a warning, the good part kept.
record random 1000000
contains err.txt "client stream at byte"
expect_exit 0 pfdump --stats random.bin
n=$(count_type random.bin zone_begin)
[ "$n" -ge 1 ] || fail "the zone before the garbage was lost"

# Shared rings with absurd offsets, sizes, positions, garbage records and a
# scribbled control page, one abuse per run after a good ring.
for k in 0 1 2 3 4 5 6 7; do
	record rings $k
	contains err.txt "client stream at byte"
	expect_exit 0 pfdump --stats rings.bin
	n=$(count_type rings.bin zone_begin)
	[ "$n" -eq 1 ] || fail "rings $k: $n zones, expected the good ring's one"
done
