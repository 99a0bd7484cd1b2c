# Chrome JSON that chrome://tracing cannot load (256 MiB and more: V8's
# longest string) is written, with a warning that names the file, its size
# and what to do instead; exit status 0. A smaller output has no warning.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t323 && cd t323 || exit 1
"$MKTRACE" game big.bin 6000000 || fail "mktrace game"
# /dev/null as the output: 277 MiB of JSON need not reach the disk.
expect_exit 0 pfconv to chrome -o /dev/null big.bin
contains err.txt "pfconv: warning: '/dev/null' has 277 MiB of JSON: chrome://tracing fails near 256 MiB; try --split-size 200M, or 'pfconv to perfetto'"
expect_exit 0 pfconv -q to chrome -o /dev/null big.bin
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"
expect_exit 0 pfconv to perfetto -o /dev/null big.bin
lacks err.txt "chrome://tracing"
"$MKTRACE" game small.bin 100000 || fail "mktrace game"
expect_exit 0 pfconv to chrome -o small.json small.bin
lacks err.txt "chrome://tracing"
rm -f big.bin
