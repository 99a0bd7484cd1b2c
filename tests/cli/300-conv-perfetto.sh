# pfconv to perfetto: the output decodes with protoc against formats/perfetto,
# follows Perfetto's sequence rules (tests/cli/conv-check.py) and holds what
# pfdump --stats counts in the trace.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t300 && cd t300 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$MKTRACE" game game.bin 200000 4 || fail "mktrace"

# Default output: beside the input, extension replaced.
expect_exit 0 pfconv to perfetto game.bin
[ -s game.pftrace ] || fail "no game.pftrace"
[ ! -s out.txt ] || fail "output on stdout"
# Not a terminal: warnings only, no progress line.
lacks err.txt "events,"
$CHECK perfetto game.pftrace > counts.json || fail "invalid perfetto output"

expect_exit 0 pfdump --stats game.bin
cp out.txt stats.txt
stat() { awk -v t="$1" 'NF == 2 && $1 == t && $2 ~ /^[0-9]+$/ { print $2 }' stats.txt; }
python3 - "$(stat zone_begin)" "$(stat counter)" "$(stat instant)" "$(stat message)" \
	"$(stat lost)" "$(stat frame)" <<'PY' || fail "counts differ from pfdump --stats"
import json, sys
want = [int(x or 0) for x in sys.argv[1:]]
c = json.load(open("counts.json"))
got = [c.get(k, 0) for k in ("zones", "counters", "instants", "messages", "lost", "frames")]
if got != want:
    sys.exit("zones, counters, instants, messages, lost, frames: %s != pfdump's %s" % (got, want))
if len(c["threads"]) != 4:
    sys.exit("threads: %s" % c["threads"])
PY

# -o, and a name with no extension.
cp game.bin trace
expect_exit 0 pfconv to perfetto trace
[ -s trace.pftrace ] || fail "no trace.pftrace"
cmp -s trace.pftrace game.pftrace || fail "same trace, different output"
expect_exit 0 pfconv -q to perfetto -o other.pb game.bin
cmp -s other.pb game.pftrace || fail "-o output differs"
[ ! -s err.txt ] || fail "-q still printed: $(cat err.txt)"
