# A cut trace shows every whole chunk, then says where it stopped (exit 1).
. "$PROFEV_ROOT/tests/cli/lib.sh"
"$MKTRACE" game full.bin 300000 2 || fail "mktrace"
size=$(wc -c < full.bin)
head -c $((size / 2)) full.bin > cut.bin
expect_exit 1 pfdump --jsonl cut.bin
contains err.txt "pfdump: 'cut.bin': chunk"
contains err.txt "trace is cut"
n=$(wc -l < out.txt)
[ "$n" -gt 100000 ] && [ "$n" -lt 300000 ] || fail "cut trace gave $n events"
python3 -c "import json,sys; [json.loads(l) for l in open('out.txt')]" || fail "partial output is not whole lines"
expect_exit 1 pfdump --stats cut.bin
contains out.txt "(cut: no end chunk)"
contains out.txt "ended:        unknown: the trace is cut"
# A file cut exactly between chunks: no end chunk.
"$MKTRACE" allkinds a.bin
head -c $(( $(wc -c < a.bin) - 35 )) a.bin > nocut.bin
expect_exit 1 pfdump nocut.bin
contains err.txt "without an end chunk"
