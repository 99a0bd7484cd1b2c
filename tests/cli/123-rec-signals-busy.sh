# SIGTERM or SIGINT sent to pfrec while the program records as fast as it
# can (its rings full, waiting for pfrec): passed on to the program, which
# dies of it, and the trace is finished. 106 does the same for a calm one.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_burst
for opt in "" --pipe; do
	for s in TERM:15 INT:2; do
		name=${s%:*}; num=${s#*:}
		rm -f started.txt
		env --default-signal=INT pfrec -q $opt --buffer 16K -o "$name.bin" ./burst 4000000000 started.txt \
			2>err.txt &
		pid=$!
		# The program writes its pid once it runs (a loaded machine may take
		# seconds to start it); then it fills its rings for a moment.
		wait_for started.txt "" 60
		sleep 0.3
		kill -"$name" $pid
		( sleep 20; kill -KILL $pid 2>/dev/null; pkill -KILL -P $pid 2>/dev/null ) &
		guard=$!
		wait $pid
		rc=$?
		kill $guard 2>/dev/null
		[ "$rc" -eq $((128 + num)) ] || { cat err.txt; fail "SIG$name $opt: pfrec exited $rc"; }
		expect_exit 0 pfdump --stats "$name.bin"
		contains out.txt "killed by signal $num"
		n=$(count_type "$name.bin" zone_end)
		[ "$n" -gt 1000 ] || fail "SIG$name $opt: only $n zones"
	done
done
