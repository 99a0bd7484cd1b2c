# Outputs that succeed but match nothing say so, on standard error, and the
# exit status stays 0: png of a trace without frame images (or none in the
# window or on the thread), --thread naming no thread (by name or TID).
# -q silences the warnings.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t324 && cd t324 || exit 1
"$MKTRACE" game g.bin 20000 || fail "mktrace game"
"$MKTRACE" images i.bin || fail "mktrace images"

expect_exit 0 pfconv to png -o pngs g.bin
contains err.txt "pfconv: warning: no frame images in 'g.bin': nothing written to 'pngs'"
[ "$(ls pngs | wc -l)" -eq 0 ] || fail "PNG files from a trace without images"
expect_exit 0 pfconv to png --from 1s -o none i.bin
contains err.txt "pfconv: warning: no frame images in 'i.bin' within --from/--to: nothing written to 'none'"
expect_exit 0 pfconv to png -o all i.bin
lacks err.txt "warning"
expect_exit 0 pfconv to png --thread nosuch -o nosuch i.bin
contains err.txt "pfconv: warning: --thread 'nosuch' matched no thread of 'i.bin'"
contains err.txt "pfconv: warning: no frame images in 'i.bin' of thread 'nosuch': nothing written to 'nosuch'"
expect_exit 0 pfconv -q to png -o quiet g.bin
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"

expect_exit 0 pfconv -q to chrome -o all.json g.bin
expect_exit 0 pfconv to chrome --thread nosuch -o n.json g.bin
contains err.txt "pfconv: warning: --thread 'nosuch' matched no thread of 'g.bin'"
expect_exit 0 pfconv to perfetto --thread 424242 -o n.pftrace - < g.bin
contains err.txt "pfconv: warning: --thread '424242' matched no thread of '<stdin>'"
expect_exit 0 pfconv to folded --thread main -o main.folded g.bin
lacks err.txt "matched no thread"
[ -s main.folded ] || fail "--thread main wrote nothing"
expect_exit 0 pfconv -q to chrome --thread nosuch -o q.json g.bin
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"
