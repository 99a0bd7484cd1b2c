#!/bin/sh
# Builds the split DWARF fixtures (-gsplit-dwarf) into OUT (never committed):
#   prog        tests/sym/prog.c -O2 with its split unit in obj/prog.dwo
#               (its libprofev units keep their DWARF in the program)
#   libfix.so   tests/sym/fixlib.cc -O2, its only unit split: obj/fixlib.dwo
# compiled in OUT/obj, so DW_AT_comp_dir is OUT/obj and DW_AT_dwo_name the
# .dwo's name there. KIND picks the compiler and form:
#   gcc4   gcc -gdwarf-4: GNU DW_AT_GNU_dwo_name, DW_FORM_GNU_addr_index, ...
#   gcc5   gcc -gdwarf-5: DW_UT_skeleton, DW_FORM_addrx, DW_FORM_strx, ...
#   clang4, clang5  the same with clang (C++ with clang++)
# usage: split.sh OUT KIND   (PROFEV_ROOT, PROFEV_BUILD: repo and build dir)
set -eu
OUT=$1
KIND=$2
ROOT=${PROFEV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${PROFEV_BUILD:-$ROOT/build}
case $KIND in
gcc4) CC=gcc CXX=g++ V=4 ;;
gcc5) CC=gcc CXX=g++ V=5 ;;
clang4) CC=clang CXX=clang++ V=4 ;;
clang5) CC=clang CXX=clang++ V=5 ;;
*) echo "split.sh: unknown kind '$KIND'" >&2; exit 2 ;;
esac
LIBS="$BUILD/libprofev.a -lzstd -lxxhash -lelf -ldwarf -lz -lm"
SAN=
nm "$BUILD/libprofev.a" 2>/dev/null | grep -q __asan_ && SAN=address
nm "$BUILD/libprofev.a" 2>/dev/null | grep -q __ubsan_ && SAN=${SAN:+$SAN,}undefined
[ -n "$SAN" ] && LIBS="$LIBS -fsanitize=$SAN"
mkdir -p "$OUT/obj"
OUT=$(cd "$OUT" && pwd)
cd "$OUT/obj"
cp "$ROOT/tests/sym/prog.c" "$ROOT/tests/sym/fixlib.cc" .
F="-g -O2 -gdwarf-$V -gsplit-dwarf"
$CXX $F -fPIC -c fixlib.cc -o fixlib.o
$CXX -shared -o "$OUT/libfix.so" fixlib.o
$CC $F -I"$ROOT/lib/include" -c prog.c -o prog.o
cc -c -o asm_call.o "$ROOT/tests/sym/asm_call.S"
$CC -o "$OUT/prog" prog.o asm_call.o $LIBS -ldl
rm -f prog.c fixlib.cc ./*.o
ls ./*.dwo >/dev/null
