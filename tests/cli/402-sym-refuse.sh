# Debug files that do not belong to the module are refused with a warning
# and never used: another build's file at the build-id path, a non-ELF
# file, a file cut short.
. "$PROFEV_ROOT/tests/cli/lib.sh"
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so || fail "fixture program failed"
id=$(cat prog.build-id)

expect_exit 0 pfsym --debug-dir bad -o s.bin t.bin
contains err.txt "pfsym: warning: 'bad/.build-id/"
contains err.txt "': build-id 0123456789abcdef0123456789abcdef01234567 does not match the recorded $id"
contains err.txt "'$PWD/prog.stripped': 0 resolved, 11 unresolved, using '$PWD/prog.stripped'"
pfdump s.bin > out.txt || fail "pfdump failed"
lacks out.txt "prog.c:"
contains out.txt "fixlib.cc:"

expect_exit 0 pfsym --debug-dir notelf --debug-dir dbg -o s2.bin t.bin
contains err.txt "pfsym: warning: 'notelf/.build-id/"
contains err.txt ": not an ELF file"
contains err.txt "11 resolved, 0 unresolved, using 'dbg/.build-id/"
pfdump s2.bin > out.txt || fail "pfdump failed"
contains out.txt "prog.c:"

# a debug file cut short is refused, not taken for one without DWARF
mkdir -p cut && cp -r dbg/.build-id cut/
f=$(ls cut/.build-id/*/*.debug)
truncate -s $(($(stat -c %s "$f") / 2)) "$f"
expect_exit 0 pfsym --debug-dir cut -o s3.bin t.bin
contains err.txt "pfsym: warning: 'cut/.build-id/"
contains err.txt ": cut: its sections end past the end of the file"
