# The program under pfrec never hangs because of the recorder (default
# transport, shared rings). When pfrec's output fails it tells the client to
# stop recording; when pfrec dies the client notices (the pipe has no
# reader) and runs on. Before the fix the program waited for room in its
# full ring forever in both cases.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_burst

# 1. The output fails (EPIPE): the program runs to its end, its status is
# reported, pfrec exits 1 naming its output. timeout turns a hang into 124.
timeout -k 2 60 sh -c 'pfrec -q -o - ./burst 50000000 2>err.txt | head -c 1000 >/dev/null; echo $? >rc.txt' ||
	fail "'pfrec -o - | head -c 1000' did not end in 60 s (the program hangs)"
[ "$(cat rc.txt)" = 0 ] || fail "head failed"
contains err.txt "done 50000000"
contains err.txt "pfrec: '<stdout>': write failed"
contains err.txt "exited with status 7"
# pfrec's own status through a pipe: run it with its output on a pipe that
# closes early.
timeout -k 2 60 sh -c '{ pfrec -q -o - ./burst 50000000 2>err2.txt; echo $? >rc2.txt; } | head -c 1000 >/dev/null'
[ "$(cat rc2.txt)" = 1 ] || fail "pfrec exited $(cat rc2.txt) after its output failed, expected 1"

# 2. pfrec is killed: the program's ring fills and nobody reads it; the
# client sees the pipe without a reader and runs on.
rm -f pid.txt
pfrec -q -o killed.bin ./burst 400000000 pid.txt 2>err.txt &
rec=$!
wait_for pid.txt "" 10
prog=$(cat pid.txt)
sleep 0.5
# Stopped first, pfrec reads nothing more while the client announces its
# full ring; then killed, it leaves the client nothing new to write, so no
# write can fail with EPIPE: only the liveness check sees it is gone.
orphan_finishes $rec "$prog" "with its ring full"
contains err.txt "done 400000000"
# What was written reads back, cut.
expect_exit 1 pfdump --stats killed.bin
contains err.txt "cut"
n=$(grep -E '^ +tick ' out.txt | awk '{print $2}')
[ "${n:-0}" -gt 1000 ] || fail "the cut trace kept ${n:-0} zones"
