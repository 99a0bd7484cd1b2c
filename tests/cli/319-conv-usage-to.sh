# A command line that forgets 'to' is told so, rather than that the trace
# is missing; each operand is checked where it stands.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t319 && cd t319 || exit 1
"$MKTRACE" game g.bin 1000 || fail "mktrace game"
expect_exit 2 pfconv perfetto g.bin
contains err.txt "pfconv: unknown action 'perfetto'; did you mean 'pfconv to perfetto'?"
lacks err.txt "missing trace"
contains err.txt "see 'pfconv --help'"
expect_exit 2 pfconv chrome
contains err.txt "did you mean 'pfconv to chrome'?"
expect_exit 2 pfconv png -o d g.bin extra
contains err.txt "did you mean 'pfconv to png'?"
expect_exit 2 pfconv to g.bin
contains err.txt "unknown format 'g.bin'"
expect_exit 2 pfconv to perfetto
contains err.txt "missing trace"
[ ! -e g.pftrace ] || fail "a usage error wrote output"
