# "-" reads standard input: traces stream through pipes.
. "$PROFEV_ROOT/tests/cli/lib.sh"
"$MKTRACE" game - 50000 3 | pfdump --stats - > stats.txt || fail "pipe"
contains stats.txt "events:       500"
pfdump --jsonl - < "$GOLDEN/allkinds.bin" > a.jsonl || fail "stdin"
cmp -s a.jsonl "$GOLDEN/allkinds.jsonl" || fail "stdin output differs"
head -c 300 "$GOLDEN/allkinds.bin" | pfdump - > /dev/null 2> err.txt
[ $? -eq 1 ] || fail "cut pipe should exit 1"
contains err.txt "pfdump: '<stdin>':"
