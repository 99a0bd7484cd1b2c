# pfconv to folded: "a;b;c weight" lines for flamegraph.pl and speedscope,
# self time per stack, per thread or merged, with exact weights on a known
# trace.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t302 && cd t302 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$MKTRACE" nested nested.bin || fail "mktrace"
# main: A(0..1000) { B(100..400) { C(150..200) } D(500..900) }, then E from
# 1100 left open, closed at the thread's last event (1200)
expect_exit 0 pfconv to folded nested.bin
contains err.txt "pfconv: warning: main (7): zone 'E' never closed: closed at"
sort nested.folded > got.txt
cat > want.txt <<'W'
main (7);A 300
main (7);A;B 250
main (7);A;B;C 50
main (7);A;D 400
main (7);E 100
W
diff -u want.txt got.txt || fail "wrong weights"

"$MKTRACE" game game.bin 200000 4 || fail "mktrace"
expect_exit 0 pfconv to folded game.bin
$CHECK folded game.folded > per.json || fail "invalid folded output"
expect_exit 0 pfconv to folded --merge-threads game.bin -o merged.folded
$CHECK folded merged.folded > merged.json || fail "invalid merged output"
python3 - <<'PY' || fail "merged and per-thread profiles disagree"
import json
per, merged = json.load(open("per.json")), json.load(open("merged.json"))
assert per["weight"] == merged["weight"] > 0, (per, merged)
assert per["stacks"] > merged["stacks"], (per, merged)
PY
cut -d';' -f1 game.folded | sort -u > roots.txt
contains roots.txt "main (1000)"
contains roots.txt "worker 1 (1001)"
! grep -q '^main\|^worker' merged.folded || fail "thread frames in merged output"
