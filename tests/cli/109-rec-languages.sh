# <profev.h> compiles as C99, C11 and C++11 (GCC and Clang) without
# warnings; PROFEV_DISABLE removes everything, the client included; an
# undeclared category and a non-literal name are compile errors.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
cat >prog.c <<'C'
#include <profev.h>
#include <stdio.h>
PROFEV_CATEGORY(app, "application");
PROFEV_CATEGORY_EXTERN(app);
static void f(int i) {
	PROFEV_ZONE(app, "f");
	PROFEV_ZONE(app, "f2");
	PROFEV_COUNTER(app, "i", i);
	PROFEV_INSTANT(app, "in f");
	PROFEV_ZONE_S(app, "f3", 4);
	PROFEV_ALLOC(&i, sizeof i);
	PROFEV_FREE(&i);
	PROFEV_ALLOC_S(&i, sizeof i, 2);
	PROFEV_FREE_S(&i, 2);
	PROFEV_ALLOC_NAMED(&i, sizeof i, "pool");
	PROFEV_FREE_NAMED(&i, "pool");
	PROFEV_ALLOC_NAMED_S(&i, sizeof i, "pool", 62);
	PROFEV_FREE_NAMED_S(&i, "pool", 3);
	PROFEV_SECURE_ALLOC(&i, sizeof i);
	PROFEV_SECURE_FREE(&i);
}
int main(void) {
	char name[8] = "dyn";
	profev_thread_name("main");
	for (int i = 0; i < 3; i++) {
		PROFEV_ZONE_BEGIN(app, "loop");
		f(i);
		{ PROFEV_ZONE_DYN(app, name, 3); }
		PROFEV_MESSAGE(app, "i=%d", i);
		PROFEV_MESSAGE(app, "no arguments");
		PROFEV_ZONE_END(app);
		PROFEV_FRAME_MARK();
	}
	PROFEV_FRAME_MARK_NAMED("other");
	printf("active %d\n", profev_active());
	return 0;
}
C
cp prog.c prog.cc
W="-Wall -Wextra -Werror $SANFLAGS -I$PROFEV_ROOT/lib/include"
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for std in c99 c11 gnu17; do
		$cc -std=$std $W -pedantic -o p prog.c "$CLIENT_A" -pthread 2>err.txt ||
			{ cat err.txt; fail "$cc -std=$std failed"; }
	done
	$cc -std=c99 $W -DPROFEV_DISABLE -o pd prog.c || fail "$cc PROFEV_DISABLE build failed"
	! nm pd | grep -q profev || fail "$cc PROFEV_DISABLE left profev symbols"
done
for cxx in g++ clang++; do
	command -v $cxx >/dev/null || continue
	for std in c++11 c++17; do
		$cxx -std=$std $W -o px prog.cc "$CLIENT_A" -pthread 2>err.txt ||
			{ cat err.txt; fail "$cxx -std=$std failed"; }
	done
	$cxx -std=c++11 $W -DPROFEV_DISABLE -o pdx prog.cc || fail "$cxx PROFEV_DISABLE failed"
done
expect_exit 0 ./p
contains out.txt "active 0"
expect_exit 0 pfrec -q -o c.bin ./p
contains out.txt "active 1"
expect_exit 0 pfrec -q -o x.bin ./px
[ "$(count_type x.bin zone_begin)" -eq "$(count_type c.bin zone_begin)" ] || fail "C++ and C traces differ"
[ "$(count_type x.bin zone_begin)" -eq 15 ] || fail "expected 15 zones"
[ "$(count_type x.bin message)" -eq 6 ] || fail "expected 6 messages"
[ "$(count_type x.bin alloc)" -eq 15 ] || fail "expected 15 allocations"
[ "$(count_type c.bin free)" -eq 15 ] || fail "expected 15 frees"
[ "$(pfdump --jsonl x.bin | grep -c '"stack"')" -eq 15 ] || fail "expected 15 events with a stack"

printf '#include <profev.h>\nvoid g(void) { PROFEV_ZONE(nosuch, "x"); }\n' >bad1.c
! $CC -std=c99 -I"$PROFEV_ROOT/lib/include" -c bad1.c -o bad1.o 2>/dev/null || fail "undeclared category compiled"
! $CC -std=c99 -DPROFEV_DISABLE -I"$PROFEV_ROOT/lib/include" -c bad1.c -o bad1.o 2>/dev/null ||
	fail "undeclared category compiled with PROFEV_DISABLE"
printf '#include <profev.h>\nPROFEV_CATEGORY(a, "a");\nvoid g(const char *n) { PROFEV_ZONE(a, n); }\n' >bad2.c
! $CC -std=c99 -I"$PROFEV_ROOT/lib/include" -c bad2.c -o bad2.o 2>/dev/null || fail "non-literal name compiled"
