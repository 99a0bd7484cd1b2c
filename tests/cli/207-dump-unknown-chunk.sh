# A chunk kind from a newer writer is skipped: the events read the same.
. "$PROFEV_ROOT/tests/cli/lib.sh"
"$MKTRACE" unknown u.bin || fail "mktrace"
expect_exit 0 pfdump --jsonl u.bin
cmp -s out.txt "$GOLDEN/allkinds.jsonl" || { diff "$GOLDEN/allkinds.jsonl" out.txt >&2; fail "unknown chunk changed the events"; }
expect_exit 0 pfdump --stats u.bin
contains out.txt "in 12 chunks"
contains out.txt "skipped:      1 chunks of kinds unknown"
