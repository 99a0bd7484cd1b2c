# Bad input gets a clear message naming the file, and the documented exit
# status: 1 for a bad or cut trace, 2 for usage and unreadable files.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 1 pfdump "$GOLDEN/bad-empty.bin"
contains err.txt "pfdump: '$GOLDEN/bad-empty.bin': empty file"
expect_exit 1 pfdump "$GOLDEN/bad-magic.bin"
contains err.txt "not a profev trace"
expect_exit 1 pfdump "$GOLDEN/bad-version.bin"
contains err.txt "format version 7.0 is not supported"
expect_exit 1 pfdump "$GOLDEN/bad-checksum.bin"
contains err.txt "chunk 0 at offset 16: checksum mismatch"
head -c 100000 /dev/urandom > garbage.bin
expect_exit 1 pfdump garbage.bin
contains err.txt "'garbage.bin': not a profev trace"
mkdir adir
expect_exit 2 pfdump adir
contains err.txt "unable to read 'adir': is a directory"
expect_exit 2 pfdump missing.bin
contains err.txt "unable to open 'missing.bin': No such file or directory"
# Garbage after a valid header: a chunk error, not a crash.
head -c 16 "$GOLDEN/allkinds.bin" > hdr.bin
head -c 5000 /dev/urandom >> hdr.bin
expect_exit 1 pfdump --stats hdr.bin
contains err.txt "chunk 0 at offset 16"
