# The disk fills while pfconv writes (a small tmpfs), whole or in the middle
# of --split-size parts: the error names the file being written, the exit
# status is 1, and the parts written before it stay whole.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/fault-lib.sh"
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$MKTRACE" game big.bin 1000000 4 || fail "mktrace"
small_fs 1024
for t in perfetto chrome; do
	ext=$([ $t = perfetto ] && echo pftrace || echo json)
	expect_exit 1 pfconv to $t -q big.bin -o full/whole.$ext
	contains err.txt "pfconv: unable to write 'full/whole.$ext': No space left on device"
	rm -f full/*
	expect_exit 1 pfconv to $t -q --split-size 256K big.bin -o full/part.$ext
	contains err.txt "No space left on device"
	last=$(ls full/part.*.$ext | tail -n 1)
	contains err.txt "'$last'"
	n=$(ls full/part.*.$ext | wc -l)
	[ "$n" -ge 2 ] || fail "$t: the disk filled before the second part ($n)"
	# Every part before the one that failed is complete.
	for p in $(ls full/part.*.$ext | head -n $((n - 1))); do
		$CHECK $t "$p" >/dev/null || fail "$t: '$p' before the failure is not whole"
	done
	rm -f full/*
done
