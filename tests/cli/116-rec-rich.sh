# Rich events under pfrec: every argument kind arrives on the innermost
# open zone with its exact bits (doubles included: NaN payload, -0, a
# denormal), strings cut at PROFEV_ARG_STR_MAX and marked; arguments with
# no zone open are dropped and counted; flows cross threads; async spans
# overlap and end on another thread; every zone, instant, counter and
# message has its call site; and four threads' lock contention gives the
# statistics the program knows it caused. tests/cli/rich-prog.c writes
# what it did; tests/cli/rich-check.c reads it back from the trace.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"

build_prog rich < "$PROFEV_ROOT/tests/cli/rich-prog.c"
build_reader check < "$PROFEV_ROOT/tests/cli/rich-check.c"
expect_exit 0 pfrec -q -o rich.bin ./rich did.txt
expect_exit 0 ./check rich.bin
grep -v '^LOCKS' did.txt | sort > want.txt
sort out.txt > got.txt
diff want.txt got.txt >&2 || fail "the trace differs from what the program did (< program, > trace)"

# pfdump: the listing, JSONL and the statistics.
expect_exit 0 pfdump rich.bin
contains out.txt 'i=-5'
contains out.txt 'd=0.1'
contains out.txt 'nan=nan'
contains out.txt 's="hello"'
contains out.txt '(truncated)'
contains out.txt "flow $(printf '%u' 0xabcdef0123456789)"
contains out.txt 'async_end   load [io] id 1'
contains out.txt 'rich.c:'
contains out.txt 'lock_acquired the lock'
expect_exit 0 pfdump --jsonl rich.bin
jq -s -e 'map(select(.type == "zone_end" and .name == "outer")) | length == 1 and (.[0] |
	.args.i == -5 and .args.d == 0.1 and .args.u == 18446744073709551615 and .args.yes == true and
	.args.s == "hello" and .args.sn == "abc" and .args.after == 3 and (.args | has("depth") | not) and
	.flow_out == [7] and .src.function == "main" and (.src.file | endswith("rich.c")))' \
	out.txt > /dev/null || fail "pfdump --jsonl: the outer zone's end lacks its args, flows or src"
jq -s -e 'map(select(.type == "zone_end" and .name == "job")) | length == 1 and
	.[0].flow_in == [12379813738877118345, 7] and .[0].args.job == 7' \
	out.txt > /dev/null || fail "pfdump --jsonl: the job zone's end lacks its flow_in or args"
jq -s -e 'map(select(.type == "zone_end" and .name == "spawn")) | length == 1 and
	.[0].flow_out == [12379813738877118345]' \
	out.txt > /dev/null || fail "pfdump --jsonl: the spawn zone's end lacks its flow_out"
jq -s -e '(map(select(.type == "instant" and .name == "marked")) | length == 1 and
	.[0].args == {"n": -7, "x": 2.5, "why": "because"}) and
	(map(select(.type == "message" and .text == "red")) | length == 1 and .[0].args == {"color": 16711680}) and
	(map(select(.type == "instant" and .name == "top")) | length == 1 and .[0].args == {"top": true}) and
	(map(select(.type == "instant" and .name == "tick")) | .[0] | has("args") | not) and
	(map(select(.type == "zone_end" and .name == "after_stray")) | .[0] | has("args") | not)' \
	out.txt > /dev/null || fail "pfdump --jsonl: the instants' and message's arguments are wrong"
[ "$(jq -c 'select(.type == "arg" and .key == "big") | [.truncated, (.value | length)]' out.txt)" = "[true,1024]" ] ||
	fail "pfdump --jsonl: the long string is not cut at 1024 bytes and marked"

expect_exit 0 pfdump --stats rich.bin
contains out.txt 'dropped (no zone open)'
dropped=$(sed -n 's/^arguments: *[0-9]* recorded, \([0-9]*\) dropped.*/\1/p' out.txt)
[ "$dropped" = 3 ] || { cat out.txt >&2; fail "pfdump --stats reports $dropped dropped arguments, not 3"; }
set -- $(grep '^LOCKS' did.txt)
acq=$2 contended=$3 waiters=$4 hold_us=$5
row=$(grep '^  the lock ' out.txt) || { cat out.txt >&2; fail "pfdump --stats has no row for 'the lock'"; }
set -- $row
[ "$3" = "$acq" ] || fail "lock table: $3 acquisitions, the program made $acq: $row"
[ "$4" = "$contended" ] || fail "lock table: $4 contended acquisitions, the program made $contended: $row"
n=$(echo "$row" | grep -o '(locker [0-9])' | sort -u | wc -l)
[ "$n" -eq "$waiters" ] || fail "lock table: $n threads waited, the program had $waiters: $row"
# Every waiter waited at least as long as a holder held the lock with all
# of them waiting: the longest hold and wait are at least that, and the
# total wait is at least that many times over.
expect_exit 0 pfdump --jsonl rich.bin
min_ns=$((hold_us * 1000))
jq -s --argjson min "$min_ns" --argjson n "$contended" -e '
	([.[] | select(.type == "lock_released") | .hold_ns // 0] | max) >= $min and
	([.[] | select(.type == "lock_acquired") | .wait_ns // 0] | map(select(. >= $min)) | length) >= $n' \
	out.txt > /dev/null || fail "the lock events do not show the holds and waits the program made"
