# pfsym's --help, --version and usage errors.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 0 pfsym --help
contains out.txt "usage: pfsym"
contains out.txt "--debug-dir"
expect_exit 0 profev sym --help
contains out.txt "usage: pfsym"
expect_exit 0 pfsym --version
contains out.txt "pfsym (profev)"
expect_exit 2 pfsym
contains err.txt "pfsym: no trace given"
contains err.txt "see 'pfsym --help'"
expect_exit 2 pfsym a.bin b.bin
contains err.txt "pfsym: more than one trace given"
expect_exit 2 pfsym --bogus a.bin
contains err.txt "pfsym: unknown option '--bogus'"
expect_exit 2 pfsym a.bin --debug-dir
contains err.txt "pfsym: option '--debug-dir' needs a value"
expect_exit 2 pfsym -o
contains err.txt "needs a value"
