#!/bin/sh
# Builds OUT/big: a large -g -O2 program for the pfsym benchmark, generated
# so that nothing large is committed. FILES files (every eighth one C++) of
# FUNCS functions each; every function calls always-inline helpers nested
# three deep and a few other functions, so the DWARF holds many subprograms,
# inlined_subroutine trees and line rows, like real optimized code.
# BIG_FLAGS (default -g -O2) are the compile flags: the benchmark's split
# DWARF build adds -gsplit-dwarf (skeleton units in big, OUT/src/*.dwo).
# usage: big.sh OUT [FILES] [FUNCS]
set -eu
FLAGS=${BIG_FLAGS:--g -O2}
OUT=$1
FILES=${2:-32}
FUNCS=${3:-250}
CC=${CC:-cc}
CXX=${CXX:-c++}
[ -x "$OUT/big" ] && exit 0
mkdir -p "$OUT/src"
cd "$OUT/src"

gen() { # file-index language
	awk -v f="$1" -v n="$FUNCS" -v lang="$2" 'BEGIN {
		srand(f * 7919 + 17);
		print "extern volatile int big_sink;"
		if (lang == "cc") print "namespace big" f " {"
		for (h = 0; h < 8; h++) {
			print "static inline __attribute__((always_inline)) int leaf" h "(int x) {"
			print "\tif (x & " (h + 1) ") big_sink += x * " (h + 3) ";"
			print "\treturn x ^ (x >> " (h % 5 + 1) ");\n}"
		}
		for (h = 0; h < 8; h++) {
			print "static inline __attribute__((always_inline)) int mid" h "(int x) {"
			print "\tint y = leaf" h "(x + " h ") + leaf" ((h + 1) % 8) "(x * 3);"
			print "\tfor (int i = 0; i < (x & 3); i++) y += leaf" ((h + 2) % 8) "(y + i);"
			print "\treturn y;\n}"
		}
		for (h = 0; h < 8; h++) {
			print "static inline __attribute__((always_inline)) int top" h "(int x) {"
			print "\tswitch (x & 3) {\n\tcase 0: return mid" h "(x) + 1;"
			print "\tcase 1: return mid" ((h + 3) % 8) "(x - 1);"
			print "\tdefault: return mid" ((h + 5) % 8) "(x ^ 0x55) * 2;\n\t}\n}"
		}
		if (lang == "cc") {
			print "template <typename T> struct Acc {\n\tT v;"
			print "\tinline T add(T x) { v += x; return v; }\n};"
		}
		for (i = 0; i < n; i++) {
			printf "int f%d_%d(int x)", f, i
			if (lang == "cc") printf " /* C++ */"
			print " {"
			print "\tint r = x;"
			if (lang == "cc") print "\tAcc<long> acc{0};"
			k = int(rand() * 4) + 2
			for (j = 0; j < k; j++) {
				h = int(rand() * 8)
				print "\tif (r & " (1 + int(rand() * 64)) ") r += top" h "(r + " j ");"
				print "\telse r -= mid" ((h + j) % 8) "(r);"
				if (lang == "cc") print "\tacc.add(r);"
			}
			if (i > 0 && rand() < 0.5)
				print "\tif (r == " int(rand() * 1000) ") r += f" f "_" int(rand() * i) "(r - 1);"
			if (lang == "cc") print "\treturn r + (int)acc.v;\n}"
			else print "\treturn r;\n}"
		}
		if (lang == "cc") {
			print "}"
			for (i = 0; i < n; i += 50)
				print "extern \"C\" int call_big" f "_" i "(int x) { return big" f "::f" f "_" i "(x); }"
		}
	}' > "g$1.$2"
}

i=0
while [ $i -lt "$FILES" ]; do
	if [ $((i % 8)) -eq 7 ]; then gen $i cc; else gen $i c; fi
	i=$((i + 1))
done
{
	echo "volatile int big_sink;"
	echo "int main(int argc, char **argv) { (void)argv; int r = argc;"
	i=0
	while [ $i -lt "$FILES" ]; do
		if [ $((i % 8)) -eq 7 ]; then
			echo "{ extern int call_big${i}_0(int); r += call_big${i}_0(r); }"
		else
			echo "{ extern int f${i}_0(int); r += f${i}_0(r); }"
		fi
		i=$((i + 1))
	done
	echo "return r & 1; }"
} > main.c

compile() { # source
	case "$1" in
	*.cc) $CXX $FLAGS -c "$1" -o "$1.o" ;;
	*) $CC $FLAGS -c "$1" -o "$1.o" ;;
	esac
}
# two at a time
set -- g*.c g*.cc main.c
while [ $# -gt 0 ]; do
	compile "$1" &
	p1=$!
	if [ $# -gt 1 ]; then compile "$2"; shift; fi
	wait $p1
	shift
done
$CXX -o ../big ./*.o
