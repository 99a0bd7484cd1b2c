# Bad inputs: clear messages, exit 1, no output and no half-written file.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 1 pfsym -o out.bin "$GOLDEN/bad-magic.bin"
contains err.txt "pfsym: '$GOLDEN/bad-magic.bin': "
expect_exit 1 pfsym -o out.bin "$GOLDEN/bad-empty.bin"
contains err.txt "pfsym: '$GOLDEN/bad-empty.bin': "
expect_exit 1 pfsym -o out.bin "$GOLDEN/bad-checksum.bin"
contains err.txt "checksum"
cp "$GOLDEN/bad-cut.bin" cut.bin
expect_exit 1 pfsym cut.bin
contains err.txt "pfsym: 'cut.bin': "
cmp cut.bin "$GOLDEN/bad-cut.bin" || fail "cut input was modified"
ls | grep -q pfsym- && fail "temporary file left behind"
expect_exit 1 pfsym -o nodir/out.bin "$GOLDEN/allkinds.bin"
contains err.txt "pfsym: unable to create 'nodir/out.bin'"
cat "$GOLDEN/bad-cut.bin" | pfsym - > piped.bin 2>err.txt && fail "cut pipe accepted"
contains err.txt "pfsym: '<stdin>': "

# a trace without callstacks comes out with the same content
expect_exit 0 pfsym -o same.bin "$GOLDEN/allkinds.bin"
pfdump "$GOLDEN/allkinds.bin" > a.txt && pfdump same.bin > b.txt || fail "pfdump failed"
cmp a.txt b.txt || fail "content changed"
