# pfconv's --help, --version, the profev dispatch and the man page.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t309 && cd t309 || exit 1 # tests share one scratch directory
expect_exit 0 pfconv --help
contains out.txt "usage: pfconv to perfetto|chrome|folded"
contains out.txt "--split-size"
expect_exit 0 pfconv --version
contains out.txt "pfconv (profev)"
expect_exit 0 profev conv --help
contains out.txt "usage: pfconv"
groff -man -ww -z "$PROFEV_ROOT/man/pfconv.1" > groff.txt 2>&1 || fail "groff failed"
[ ! -s groff.txt ] || fail "groff warnings: $(cat groff.txt)"
