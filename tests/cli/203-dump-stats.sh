# --stats: totals that agree with the listing, top zones, bytes per event,
# how the program ended.
. "$PROFEV_ROOT/tests/cli/lib.sh"
"$MKTRACE" game game.bin 200000 4 || fail "mktrace"
expect_exit 0 pfdump --stats game.bin
cp out.txt stats.txt
contains stats.txt "program:      ./game --level 3"
contains stats.txt "ended:        exited with status 0"
contains stats.txt "bytes/event"
events=$(pfdump --jsonl game.bin | wc -l)
contains stats.txt "events:       $events in"
begins=$(pfdump --jsonl game.bin | grep -c '"type":"zone_begin"')
python3 - stats.txt "$begins" <<'PY' || fail "stats table"
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"zone_begin\s+(\d+)", text)
assert m and int(m.group(1)) == int(sys.argv[2]), (m and m.group(1), sys.argv[2])
top = text.split("top zones by total time:")[1].splitlines()[2].split()
assert top[0] == "Frame", top
# four threads listed
assert len(re.findall(r"^  100[0-3] ", text, re.M)) == 4
PY
expect_exit 0 pfdump --stats "$GOLDEN/allkinds.bin"
contains out.txt "killed by signal 11"
contains out.txt "lost events:  17"
contains out.txt "textures"
expect_exit 0 pfdump --stats --top 1 game.bin
[ "$(sed -n '/top zones/,$p' out.txt | wc -l)" -eq 3 ] || fail "--top 1 shows one zone"
