# pfdump into a pipe that closes after 1000 bytes ends at once, by SIGPIPE
# like any filter (141 in a shell), silently; and with its output on
# /dev/full it says so and exits 1.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
"$MKTRACE" game big.bin 1000000 4 || fail "mktrace"
for opt in "" --jsonl --stats; do
	ends_within 30 "{ pfdump $opt big.bin 2>err.txt; echo \$? >rc.txt; } | head -c 1000 >/dev/null"
	rc=$(cat rc.txt)
	# --stats writes less than a pipe holds: it may finish first.
	[ "$rc" = 141 ] || { [ "$opt" = --stats ] && [ "$rc" = 0 ]; } ||
		fail "pfdump $opt exited $rc on a closed pipe"
	[ ! -s err.txt ] || { cat err.txt; fail "pfdump $opt printed something on SIGPIPE"; }
done
expect_exit 1 sh -c 'pfdump --jsonl big.bin >/dev/full'
contains err.txt "pfdump: unable to write '<stdout>'"
contains err.txt "No space left on device"
