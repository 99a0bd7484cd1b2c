# --thread, --from and --to as pfconv has them: a thread by TID or by name
# (matching from its first event under that name on), times after the
# trace's start with a unit. The JSONL listing gets the same filters, and
# a filtered listing is the full one with lines left out.
. "$PROFEV_ROOT/tests/cli/lib.sh"
A="$GOLDEN/allkinds.bin"
expect_exit 0 pfdump --thread 4243 "$A"
[ "$(grep -c "^ *0\." out.txt)" -eq 6 ] || { cat out.txt >&2; fail "--thread 4243: 6 events"; }
lacks out.txt "main(4242)"
expect_exit 0 pfdump --thread loader "$A"
contains out.txt 'loader(4243)           message'
contains out.txt 'asset loader(4243)     lost        17 events lost'
[ "$(grep -c "^ *0\." out.txt)" -eq 6 ] || fail "--thread loader: 6 events, renamed or not"
expect_exit 0 pfdump --thread "asset loader" "$A"
lacks out.txt "message"
[ "$(grep -c "^ *0\." out.txt)" -eq 5 ] || fail "--thread 'asset loader': 5 events, from the rename on"
expect_exit 0 pfdump --thread main "$A"
[ "$(grep -c '^ *0\.' out.txt)" -eq 10 ] || fail "--thread main: 10 events"
expect_exit 0 pfdump --thread nobody "$A"
[ ! -s out.txt ] || fail "--thread nobody lists events"
# --from/--to: both ends included; a zone end keeps the duration of a begin
# before the window.
expect_exit 0 pfdump --from 1250ns --to 2us "$A"
[ "$(grep -c '^ *0\.' out.txt)" -eq 8 ] || { cat out.txt >&2; fail "--from 1250ns --to 2us: 8 events"; }
head -1 out.txt | grep -q "0.000001250  main(4242)             zone_end    Physics \[game\]  1.000 us" ||
	fail "first line"
contains out.txt "zone_end    Update [game]  1.900 us"
lacks out.txt "frame_image"
expect_exit 0 pfdump --jsonl --from 0.0000012s --to 0.0000013s "$A"
[ "$(wc -l < out.txt)" -eq 2 ] || fail "--from/--to in seconds"
contains out.txt '"duration_ns":1000'
# On a bigger trace with arguments: the filtered JSONL is the full JSONL's
# lines of that thread and time, arguments on zone ends included.
"$MKTRACE" game-args game.bin 5000 3 || fail "mktrace"
pfdump --jsonl game.bin > all.jsonl || fail "pfdump"
pfdump --jsonl --thread 1001 --from 100us --to 400us game.bin > some.jsonl || fail "pfdump filtered"
pfdump --jsonl --thread "worker 2" game.bin > w2.jsonl || fail "pfdump worker 2"
python3 - all.jsonl some.jsonl w2.jsonl <<'PY' || fail "filtered listing"
import json, sys
full = [json.loads(l) for l in open(sys.argv[1])]
some = [json.loads(l) for l in open(sys.argv[2])]
w2 = [json.loads(l) for l in open(sys.argv[3])]
want = [e for e in full if e["tid"] == 1001 and 100000 <= e["ts"] <= 400000]
assert some == want and len(some) > 50, (len(some), len(want))
assert any("args" in e for e in some), "no zone end kept its arguments"
assert w2 == [e for e in full if e["thread"] == "worker 2"] and w2, "by name"
PY
# Usage errors, as pfconv's.
expect_exit 2 pfdump --from 2s --to 1s "$A"
contains err.txt "--to comes before --from"
expect_exit 2 pfdump --from soon "$A"
contains err.txt "invalid time 'soon' (try 1.5s, 200ms, 30us)"
expect_exit 2 pfdump --thread "" "$A"
contains err.txt "--thread needs a name or a TID"
expect_exit 2 pfdump --stats --thread main "$A"
contains err.txt "--thread applies to the event listing, not to --stats"
expect_exit 2 pfdump --leaks --from 1s "$A"
contains err.txt "--from applies to the event listing, not to --leaks"
# --help tells.
expect_exit 0 pfdump --help
contains out.txt "--from TIME"
contains out.txt "--thread NAME|TID"
contains out.txt "--window N"
contains out.txt "in time order"
