# pfconv's output fails: /dev/full gives an error naming it and exit 1; a
# pipe that closes after 1000 bytes ends pfconv at once, by SIGPIPE like
# any filter (141 in a shell), silently.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
"$MKTRACE" game big.bin 1000000 4 || fail "mktrace"
for t in perfetto chrome folded; do
	expect_exit 1 pfconv to $t -q big.bin -o /dev/full
	contains err.txt "pfconv: unable to write '/dev/full': No space left on device"
	ends_within 30 "{ pfconv to $t -q big.bin -o - 2>err.txt; echo \$? >rc.txt; } | head -c 1000 >/dev/null"
	# Folded stacks are small: they may fit the pipe before it closes.
	rc=$(cat rc.txt)
	[ "$rc" = 141 ] || { [ $t = folded ] && [ "$rc" = 0 ]; } ||
		fail "pfconv to $t exited $rc on a closed pipe"
	[ ! -s err.txt ] || { cat err.txt; fail "pfconv to $t printed something on SIGPIPE"; }
done
