# --split-size writes several complete files, each under the size, with
# zones open at a cut closed there and reopened in the next file.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t306 && cd t306 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$MKTRACE" game game.bin 100000 4 || fail "mktrace"
for f in perfetto chrome; do
	ext=$([ $f = perfetto ] && echo pftrace || echo json)
	expect_exit 0 pfconv to $f game.bin -o whole.$ext
	$CHECK $f whole.$ext > whole.counts || fail "invalid whole $f output"
	expect_exit 0 pfconv to $f --split-size 256K game.bin
	n=$(ls game.[0-9][0-9][0-9].$ext | wc -l)
	[ "$n" -ge 3 ] || fail "$f: $n parts"
	[ -e game.000.$ext ] && [ ! -e game.$ext ] || fail "$f: part names"
	for p in game.[0-9][0-9][0-9].$ext; do
		[ "$(wc -c < $p)" -le 262144 ] || fail "$p is over 256K"
	done
	# each file is checked on its own (fresh state per file), counts summed
	$CHECK $f game.[0-9][0-9][0-9].$ext > parts.counts || fail "$f parts"
	python3 - "$n" <<'PY' || fail "$f: parts do not add up to the whole"
import json, sys
n = int(sys.argv[1])
whole, parts = json.load(open("whole.counts")), json.load(open("parts.counts"))
# each cut adds a piece to every zone open across it
pieces = lambda c: c["zones"] + c.get("frames", 0)
assert pieces(parts) == pieces(whole) + parts["cut"] - whole["cut"], (whole, parts)
assert parts["cut"] >= n - 1, parts
for k in ("counters", "instants", "messages", "lost"):
    assert parts.get(k, 0) == whole.get(k, 0), (k, whole, parts)
PY
	rm -f game.[0-9][0-9][0-9].$ext
done
