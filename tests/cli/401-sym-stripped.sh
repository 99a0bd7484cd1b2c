# A stripped program's trace symbolized with its debug file found by
# build-id under --debug-dir; in place, to a file and through a pipe; a
# second run keeps what is there. (t_rewrite compares every frame with
# llvm-symbolizer; this checks the command around it.)
. "$PROFEV_ROOT/tests/cli/lib.sh"
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog.stripped t.bin ./libfix.so || fail "fixture program failed"

expect_exit 0 pfdump t.bin
lacks out.txt "prog.c:"

expect_exit 0 pfsym --debug-dir dbg -o s.bin t.bin
contains err.txt "pfsym: '$PWD/prog.stripped': 11 resolved, 0 unresolved, using 'dbg/.build-id/"
contains err.txt "pfsym: './libfix.so': 6 resolved, 0 unresolved, using './libfix.so'"
lacks err.txt "warning"
expect_exit 0 pfdump s.bin
contains out.txt "prog.c:"
contains out.txt "fixlib.cc:"
contains out.txt "fixture::Walker::run(int)"
contains out.txt "fixture::Box<int>::twice(void (*)()) const"
# (GCC splits a cold part off work_rare on x86-64, not on aarch64)
if nm prog | grep -q 'work_rare[.]cold'; then contains out.txt "work_rare.cold "; fi
# no DWARF covers the start-up code and the assembly function: the debug
# file's .symtab names them (the stripped module's .dynsym does not)
contains out.txt "_start ??:0"
contains out.txt "fixture_asm_call ??:0"

# the same through a pipe, byte for byte
cat t.bin | pfsym -q -d dbg - > p.bin 2>err.txt || fail "pipe run failed"
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"
cmp s.bin p.bin || fail "pipe output differs from file output"

# in place
cp t.bin inplace.bin
expect_exit 0 pfsym -d dbg inplace.bin
cmp s.bin inplace.bin || fail "in-place output differs"
ls | grep -q pfsym- && fail "temporary file left behind"

# again: nothing new to do, same symbols
expect_exit 0 pfsym -o again.bin s.bin
contains err.txt "'./libfix.so': all 6 addresses already symbolized"
pfdump s.bin > a.txt && pfdump again.bin > b.txt || fail "pfdump failed"
cmp a.txt b.txt || fail "second run changed the symbols"

# without the debug dir the program gets no lines; a later run adds them
expect_exit 0 pfsym -o nodbg.bin t.bin
contains err.txt "'$PWD/prog.stripped': 0 resolved, 11 unresolved, using '$PWD/prog.stripped'"
expect_exit 0 pfsym -d dbg -o filled.bin nodbg.bin
contains err.txt "11 resolved, 0 unresolved"
pfdump filled.bin > c.txt || fail "pfdump failed"
cmp a.txt c.txt || fail "filling in later differs from symbolizing at once"

# on another machine: the program file is gone, only its debug file is here
mkdir elsewhere && cp t.bin elsewhere/ && cp -r dbg elsewhere/ && mv prog.stripped prog.gone
(cd elsewhere && pfsym -d dbg -o s.bin t.bin) 2>err.txt || { cat err.txt; fail "run without the module failed"; }
contains err.txt "'$PWD/prog.stripped': 11 resolved, 0 unresolved, using 'dbg/.build-id/"
contains err.txt "'./libfix.so': no debug info found, 6 unresolved"
pfdump elsewhere/s.bin > d.txt || fail "pfdump failed"
contains d.txt "prog.c:"
mv prog.gone prog.stripped
