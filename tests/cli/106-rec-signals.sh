# SIGTERM or SIGINT sent to pfrec reaches the program, and the trace is
# finished properly.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog forever <<'C'
#include <profev.h>
#include <unistd.h>
PROFEV_CATEGORY(app, "application");
int main(void) {
	for (;;) { PROFEV_ZONE(app, "tick"); usleep(1000); }
}
C
for s in TERM:15 INT:2; do
	name=${s%:*}; num=${s#*:}
	# A background job starts with SIGINT ignored, and the program would
	# inherit that: give pfrec the default disposition back.
	env --default-signal=INT pfrec -q -o "$name.bin" ./forever 2>err.txt &
	pid=$!
	sleep 0.5
	kill -"$name" $pid
	# Never hang the test run: give up after 10 s.
	( sleep 10; kill -KILL $pid 2>/dev/null; pkill -KILL -P $pid 2>/dev/null ) &
	guard=$!
	wait $pid
	rc=$?
	kill $guard 2>/dev/null
	[ "$rc" -eq $((128 + num)) ] || fail "SIG$name: pfrec exited $rc"
	expect_exit 0 pfdump --stats "$name.bin"
	contains out.txt "killed by signal $num"
	n=$(count_type "$name.bin" zone_end)
	[ "$n" -gt 50 ] || fail "SIG$name: only $n zones"
done
