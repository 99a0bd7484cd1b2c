#!/bin/sh
# Builds the symbolization fixtures into OUT (never committed):
#   prog           -g -O2 program (DWARF 5) writing a trace of its own stacks
#   libfix.so      C++ library it dlopens (-g -O2, DWARF 4)
#   prog.stripped  prog without symbols or debug info, with a .gnu_debuglink
#                  (its start-up code and fixture_asm_call, which has no
#                  DWARF, are named only by the debug file's .symtab)
#   dbg/.build-id/xx/rest.debug   prog's debug info, found by build-id
#   bad/.build-id/xx/rest.debug   debug info of a build with another build-id,
#                  placed under prog's build-id path: must be refused
#   notelf/.build-id/xx/rest.debug  a text file at that path
# usage: build.sh OUT   (PROFEV_ROOT, PROFEV_BUILD: repo and build dir)
set -eu
OUT=$1
ROOT=${PROFEV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PROFEV_BUILD:-$ROOT/build}
CC=${CC:-cc}
CXX=${CXX:-c++}
mkdir -p "$OUT"
LIBS="$BUILD/libprofev.a -lzstd -lxxhash -lelf -ldwarf -lz -lm"
# a sanitizer build's library needs the sanitizer runtimes linked in
SAN=
nm "$BUILD/libprofev.a" 2>/dev/null | grep -q __asan_ && SAN=address
nm "$BUILD/libprofev.a" 2>/dev/null | grep -q __ubsan_ && SAN=${SAN:+$SAN,}undefined
[ -n "$SAN" ] && LIBS="$LIBS -fsanitize=$SAN"

$CXX -g -O2 -gdwarf-4 -fPIC -shared -o "$OUT/libfix.so" "$ROOT/tests/sym/fixlib.cc"
# assembled without -g: no DWARF unit covers fixture_asm_call
$CC -c -o "$OUT/asm_call.o" "$ROOT/tests/sym/asm_call.S"
$CC -g -O2 -I"$ROOT/lib/include" -o "$OUT/prog" "$ROOT/tests/sym/prog.c" "$OUT/asm_call.o" $LIBS -ldl
# same program, another build-id: its debug info must not be used for prog
$CC -g -O2 -I"$ROOT/lib/include" -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 \
	-o "$OUT/prog.other" "$ROOT/tests/sym/prog.c" "$OUT/asm_call.o" $LIBS -ldl

id=$(readelf -n "$OUT/prog" | sed -n 's/.*Build ID: *//p')
dir=$(echo "$id" | cut -c1-2)
rest=$(echo "$id" | cut -c3-)
mkdir -p "$OUT/dbg/.build-id/$dir" "$OUT/bad/.build-id/$dir" "$OUT/notelf/.build-id/$dir"
objcopy --only-keep-debug "$OUT/prog" "$OUT/dbg/.build-id/$dir/$rest.debug"
objcopy --only-keep-debug "$OUT/prog.other" "$OUT/bad/.build-id/$dir/$rest.debug"
echo "not an ELF file" > "$OUT/notelf/.build-id/$dir/$rest.debug"
cp "$OUT/dbg/.build-id/$dir/$rest.debug" "$OUT/prog.debug"
strip --strip-all -o "$OUT/prog.stripped" "$OUT/prog"
objcopy --add-gnu-debuglink="$OUT/prog.debug" "$OUT/prog.stripped"
rm "$OUT/prog.debug"
echo "$id" > "$OUT/prog.build-id"
