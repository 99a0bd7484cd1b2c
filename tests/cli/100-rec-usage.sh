# Options, --help, usage errors.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 0 pfrec --help
contains out.txt "usage: pfrec [-o FILE|-]"
contains out.txt "--categories LIST"
expect_exit 0 pfrec --version
contains out.txt "pfrec (profev)"
expect_exit 2 pfrec
contains err.txt "pfrec: no program to record"
contains err.txt "see 'pfrec --help'"
expect_exit 2 pfrec --bogus true
contains err.txt "unknown option '--bogus'"
expect_exit 2 pfrec --zstd-level x true
contains err.txt "invalid zstd level 'x'"
expect_exit 2 pfrec --buffer 1 true
contains err.txt "invalid buffer size '1'"
# Options after PROGRAM belong to the program.
expect_exit 0 pfrec -q -o t.bin sh -c 'test "$1" = --drop' sh --drop
expect_exit 1 pfrec -q -o /nonexistent/dir/t.bin true
contains err.txt "pfrec: unable to create '/nonexistent/dir/t.bin'"
