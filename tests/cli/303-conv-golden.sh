# One small trace of every event kind, converted to each format, compared
# with the reviewed outputs in tests/golden/conv-allkinds.*; each is also
# valid on its own.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t303 && cd t303 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$MKTRACE" allkinds ak.bin || fail "mktrace"
expect_exit 0 pfconv to perfetto ak.bin
protoc --decode=perfetto.protos.Trace -I "$PROFEV_ROOT/formats/perfetto" \
	"$PROFEV_ROOT/formats/perfetto/trace.proto" < ak.pftrace > ak.pftrace.txt 2>protoc.err ||
	fail "protoc: $(cat protoc.err)"
[ ! -s protoc.err ] || fail "protoc: $(cat protoc.err)"
diff -u "$GOLDEN/conv-allkinds.pftrace.txt" ak.pftrace.txt || fail "perfetto output changed"
$CHECK perfetto ak.pftrace > /dev/null || fail "invalid perfetto output"

expect_exit 0 pfconv to chrome ak.bin
diff -u "$GOLDEN/conv-allkinds.json" ak.json || fail "chrome output changed"
$CHECK chrome ak.json > /dev/null || fail "invalid chrome output"

expect_exit 0 pfconv to folded ak.bin
diff -u "$GOLDEN/conv-allkinds.folded" ak.folded || fail "folded output changed"
$CHECK folded ak.folded > /dev/null || fail "invalid folded output"
