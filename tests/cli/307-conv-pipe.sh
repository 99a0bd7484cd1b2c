# Streaming: a trace on standard input converts, to a file or to standard
# output, exactly as from a file.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t307 && cd t307 || exit 1 # tests share one scratch directory
"$MKTRACE" game game.bin 100000 3 || fail "mktrace"
expect_exit 0 pfconv to perfetto game.bin -o file.pftrace
cat game.bin | pfconv to perfetto - -o pipe.pftrace || fail "pipe to perfetto"
cmp file.pftrace pipe.pftrace || fail "perfetto from a pipe differs"
expect_exit 0 pfconv to chrome game.bin -o file.json
cat game.bin | pfconv to chrome - > pipe.json 2>err.txt || fail "pipe to chrome"
cmp file.json pipe.json || fail "chrome to stdout differs"
cat game.bin | pfconv to folded - -o - > pipe.folded 2>err.txt || fail "pipe to folded"
expect_exit 0 pfconv to folded game.bin
cmp game.folded pipe.folded || fail "folded to stdout differs"
# A cut stream: exit 1, the output so far complete.
head -c 60000 game.bin | pfconv to chrome - > cut.json 2>err.txt && fail "cut stream exited 0"
contains err.txt "pfconv: '<stdin>': "
python3 -c "import json; json.load(open('cut.json'))" || fail "cut stream gave invalid JSON"
