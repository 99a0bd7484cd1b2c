# The public headers compile silently: <profev.h> with every macro
# (tests/cli/all-macros.c), in C and C++, with and without PROFEV_DISABLE,
# and <tracy/Tracy.hpp> and <tracy/TracyC.h> with every macro of
# profev-tracy(3) (tests/tracy/all_macros.*), with TRACY_ENABLE, with
# TRACY_CALLSTACK and without TRACY_ENABLE; by gcc, g++, clang and clang++
# at -O0, -O2 and -Os under -Wall -Wextra -Werror. -O0 matters: GCC's
# -Wmaybe-uninitialized looks at calls it does not inline there.
. "$PROFEV_ROOT/tests/cli/lib.sh"
for c in gcc g++ clang clang++; do
	command -v $c >/dev/null || skip "$c not found (make deps installs it)"
done
INC="-I$PROFEV_ROOT/lib/include -I$PROFEV_ROOT/lib/include/tracy"
W="-Wall -Wextra -Werror"
# Without TRACY_ENABLE the macros are empty, as in Tracy's header: values
# that only they use are unused, and `if (x) Macro();` has an empty body.
# Those warnings are about the program; any other fails.
QUIET_OFF="-Wno-unused-variable -Wno-unused-parameter -Wno-unused-function -Wno-unused-const-variable -Wno-unused-but-set-variable -Wno-empty-body"

# Memory macros given fresh blocks of malloc, as allocators do: GCC -O0
# warned that the block "may be used uninitialized" when an inline
# function took the pointer as `const void *`.
cat >mem.c <<'C'
#include <stdlib.h>
#include <tracy/TracyC.h>
void mem(size_t n);
void mem(size_t n)
{
	void *a = malloc(n), *b = malloc(n), *c = malloc(n), *d = malloc(n), *e = malloc(n), *f = malloc(n);
	TracyCAlloc(a, n); TracyCAllocS(b, n, 4); TracyCAllocN(c, n, "pool"); TracyCAllocNS(d, n, 4, "pool");
	TracyCSecureAlloc(e, n); TracyCSecureAllocN(f, n, "pool");
	TracyCFree(a); TracyCFreeS(b, 4); TracyCFreeN(c, "pool"); TracyCFreeNS(d, 4, "pool");
	TracyCSecureFree(e); TracyCSecureFreeN(f, "pool");
	free(a); free(b); free(c); free(d); free(e); free(f);
}
C
cat >mem.cpp <<'C'
#include <stdlib.h>
#include <tracy/Tracy.hpp>
void mem(size_t n);
void mem(size_t n)
{
	void *a = malloc(n), *b = malloc(n), *c = malloc(n), *d = malloc(n), *e = malloc(n), *f = malloc(n);
	TracyAlloc(a, n); TracyAllocS(b, n, 4); TracyAllocN(c, n, "pool"); TracyAllocNS(d, n, 4, "pool");
	TracySecureAlloc(e, n); TracySecureAllocN(f, n, "pool");
	TracyFree(a); TracyFreeS(b, 4); TracyFreeN(c, "pool"); TracyFreeNS(d, 4, "pool");
	TracySecureFree(e); TracySecureFreeN(f, "pool");
	free(a); free(b); free(c); free(d); free(e); free(f);
}
C

# build COMPILER FLAGS... : compiles quietly or fails with what it said.
build() {
	"$@" -c -o obj.o 2>err.txt && [ ! -s err.txt ] || { cat err.txt >&2; fail "not silent: $*"; }
}

for o in -O0 -O2 -Os; do
	for cc in gcc clang; do
		for d in "" -DPROFEV_DISABLE; do
			build $cc -std=c99 -pedantic $W $o $d $INC "$PROFEV_ROOT/tests/cli/all-macros.c"
		done
		for cs in "" -DTRACY_CALLSTACK=4; do
			build $cc -std=c99 -pedantic $W $o -DTRACY_ENABLE -DTRACY_FIBERS $cs $INC "$PROFEV_ROOT/tests/tracy/all_macros.c"
			build $cc -std=c11 $W $o -DTRACY_ENABLE $cs $INC mem.c
		done
		build $cc -std=c99 -pedantic $W $QUIET_OFF $o -DTRACY_FIBERS $INC "$PROFEV_ROOT/tests/tracy/all_macros.c"
	done
	for cxx in g++ clang++; do
		for d in "" -DPROFEV_DISABLE; do
			build $cxx -std=c++11 $W $o $d $INC -x c++ "$PROFEV_ROOT/tests/cli/all-macros.c"
		done
		for cs in "" -DTRACY_CALLSTACK=4; do
			build $cxx -std=c++11 $W $o -DTRACY_ENABLE -DTRACY_FIBERS $cs $INC "$PROFEV_ROOT/tests/tracy/all_macros.cpp"
			build $cxx -std=c++11 $W $o -DTRACY_ENABLE $cs $INC mem.cpp
		done
		build $cxx -std=c++11 $W $QUIET_OFF $o -DTRACY_FIBERS $INC "$PROFEV_ROOT/tests/tracy/all_macros.cpp"
	done
done
exit 0
