# A trace that cannot be opened is the caller's mistake, exit 2 as in pfdump
# and pfconv (pfsym(1), EXIT STATUS), with the file and the reason named.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 2 pfsym nofile.bin
contains err.txt "pfsym: unable to open 'nofile.bin': No such file or directory"
expect_exit 2 pfsym -o out.bin nofile.bin
[ ! -e out.bin ] || fail "an output was made for a missing input"
mkdir dir.bin
expect_exit 2 pfsym -o out.bin dir.bin
contains err.txt "pfsym: unable to read 'dir.bin': is a directory"
