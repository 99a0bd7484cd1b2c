# pfdump's --help, --version and usage errors; the multi-call dispatch.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 0 pfdump --help
contains out.txt "usage: pfdump"
contains out.txt "--stats"
expect_exit 0 pfdump --version
contains out.txt "pfdump (profev)"
expect_exit 0 profev dump --help
contains out.txt "usage: pfdump"
expect_exit 0 profev --help
contains out.txt "dump"
expect_exit 2 profev nosuchcommand
contains err.txt "'nosuchcommand' is not a profev command"
expect_exit 2 pfdump
contains err.txt "pfdump: no trace given"
expect_exit 2 pfdump --bogus x.bin
contains err.txt "unknown option '--bogus'"
expect_exit 2 pfdump --top
contains err.txt "needs a value"
expect_exit 2 pfdump --top x "$GOLDEN/allkinds.bin"
expect_exit 2 pfdump a.bin b.bin
contains err.txt "more than one trace"
expect_exit 2 pfdump --jsonl --stats "$GOLDEN/allkinds.bin"
contains err.txt "choose one of --jsonl, --stats, --leaks and --frames (--frames may have --jsonl)"
