# Names and messages that are not UTF-8 (or hold quotes, controls, ';' and
# newlines) still give output a strict parser accepts, in every format.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t308 && cd t308 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$PROFEV_BUILD/tests/conv/t_conv" --write-odd-names odd.bin || fail "t_conv --write-odd-names"
expect_exit 0 pfconv to chrome odd.bin
$CHECK chrome odd.json > /dev/null || fail "invalid JSON"
contains odd.json '\u0001'
contains odd.json "$(printf '\357\277\275')"
expect_exit 0 pfconv to perfetto odd.bin
$CHECK perfetto odd.pftrace > /dev/null || fail "invalid perfetto output"
expect_exit 0 pfconv to folded odd.bin
$CHECK folded odd.folded > /dev/null || fail "invalid folded output"
[ "$(wc -l < odd.folded)" -eq 2 ] || fail "a name's newline split a folded line"
