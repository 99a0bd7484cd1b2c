# SIGTERM or SIGINT sent to pfrec reaches the program, and the trace is
# finished properly.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
# The program says when it has made 100 zones (a fixed sleep before the
# signal gave a loaded machine's program too little time for them).
build_prog forever <<'C'
#include <profev.h>
#include <stdio.h>
#include <unistd.h>
PROFEV_CATEGORY(app, "application");
int main(int argc, char **argv) {
	(void)argc;
	for (int i = 1;; i++) {
		{ PROFEV_ZONE(app, "tick"); usleep(1000); }
		if (i == 100) {
			FILE *f = fopen(argv[1], "w");
			if (f) { fputs("100 zones\n", f); fclose(f); }
		}
	}
}
C
for s in TERM:15 INT:2; do
	name=${s%:*}; num=${s#*:}
	# A background job starts with SIGINT ignored, and the program would
	# inherit that: give pfrec the default disposition back.
	rm -f "$name.ready"
	env --default-signal=INT pfrec -q -o "$name.bin" ./forever "$name.ready" 2>err.txt &
	pid=$!
	i=0
	until grep -qF "100 zones" "$name.ready" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 600 ] || { pkill -KILL -P $pid; kill -KILL $pid; fail "SIG$name: no 100 zones in 60 s"; }
		sleep 0.1
	done
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
	[ "$n" -ge 100 ] || fail "SIG$name: only $n zones, after the program said it made 100"
done
