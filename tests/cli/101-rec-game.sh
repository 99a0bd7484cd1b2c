# Record the example game: threads, names, zones, frames, counters, exit status.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
expect_exit 0 pfrec -q -o game.bin "$GAME" 30
contains out.txt "30 frames"
[ -s game.bin ] || fail "no trace written"
expect_exit 0 pfdump --stats game.bin
contains out.txt "ended:        exited with status 0"
contains out.txt "lost events:  0"
for t in main render audio "worker 0" "worker 1" "worker 2"; do
	grep -q " $t  " out.txt || fail "thread '$t' missing from --stats"
done
contains out.txt "frame                  30"
expect_exit 0 pfdump --jsonl game.bin
[ "$(grep -c '"type":"zone_begin","name":"frame"' out.txt)" -eq 30 ] ||
	[ "$(grep '"name":"frame"' out.txt | grep -c zone_begin)" -eq 30 ] || fail "expected 30 frame zones"
[ "$(grep -c '"type":"zone_begin"' out.txt)" -eq "$(grep -c '"type":"zone_end"' out.txt)" ] ||
	fail "zone begins and ends do not pair up"
contains out.txt '"category":"physics"'
contains out.txt 'level 1: 512 entities'
# Through a wrapper that does not link the client: the pipe reaches the game.
expect_exit 0 pfrec -q -o wrapped.bin sh -c "\"$GAME\" 3; exit 0"
expect_exit 0 pfdump --stats wrapped.bin
contains out.txt "frame                   3"
