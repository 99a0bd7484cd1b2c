# Memory events and callstacks end to end: pfdump --leaks is exact for a
# known pattern of allocations, and the stacks it shows point at the
# functions that allocated (llvm-symbolizer on the module and offset).
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog leaky <<'C'
#include <profev.h>
#include <stdlib.h>
void *small_site(void);
void *big_site(void);
__attribute__((noinline)) void *small_site(void)
{
	void *p = malloc(100);
	PROFEV_ALLOC_S(p, 100, 8);
	return p;
}
__attribute__((noinline)) void *big_site(void)
{
	void *p = malloc(1000);
	PROFEV_ALLOC_NAMED_S(p, 1000, "big", 8);
	return p;
}
/* volatile bounds: an unrolled loop would make one call site per turn */
volatile int ten = 10, three = 3;
int main(void)
{
	void *keep[16];
	for (int i = 0; i < ten; i++)
		keep[i] = small_site();
	for (int i = 0; i < 4; i++) {
		PROFEV_FREE(keep[i]);
		free(keep[i]);
	}
	for (int i = 0; i < three; i++)
		keep[10 + i] = big_site();
	PROFEV_FREE_NAMED(keep[10], "big");
	free(keep[10]);
	keep[10] = big_site(); /* another call site: its own group */
	for (int i = 0; i < 5; i++) {
		void *p = malloc(8);
		PROFEV_ALLOC(p, 8);
		PROFEV_FREE_S(p, 4);
		free(p);
	}
	void *r = malloc(50);
	PROFEV_ALLOC(r, 50);
	return 0;
}
C
# The program leaks on purpose; in a sanitizer build LeakSanitizer would say so.
export ASAN_OPTIONS=detect_leaks=0
expect_exit 0 pfrec -q -o leaky.bin ./leaky
unset ASAN_OPTIONS
expect_exit 0 pfdump --leaks leaky.bin
sed -n '1p;/ blocks, pool /p' out.txt >groups.txt
cat >want.txt <<'T'
3650 bytes in 10 blocks still allocated at the end, in 4 groups
2000 bytes in 2 blocks, pool big, allocated at:
1000 bytes in 1 blocks, pool big, allocated at:
600 bytes in 6 blocks, pool (default), allocated at:
50 bytes in 1 blocks, pool (default), allocated at:
T
diff want.txt groups.txt || fail "pfdump --leaks groups differ"
# Each group's innermost frames: the allocating function, then main.
frames() { # GROUP-LINE-PATTERN: "offset" of frames #0 and #1 after it
	sed -n "/$1/,/^\$/p" out.txt | sed -n 's/^ *#[01] *leaky+\(0x[0-9a-f]*\)$/\1/p'
}
set -- $(frames "2000 bytes")
[ $# -eq 2 ] || fail "big group: expected 2 frames in the program, got '$*'"
[ "$(fn_at leaky "$1")" = big_site ] || fail "big group frame #0 is $(fn_at leaky "$1")"
[ "$(fn_at leaky "$2")" = main ] || fail "big group frame #1 is $(fn_at leaky "$2")"
loop_site=$2
set -- $(frames "1000 bytes")
[ "$(fn_at leaky "$1")" = big_site ] || fail "1000-byte group frame #0 is $(fn_at leaky "$1")"
[ "$(fn_at leaky "$2")" = main ] || fail "1000-byte group frame #1 is $(fn_at leaky "$2")"
[ "$2" != "$loop_site" ] || fail "the two big_site call sites have the same return address"
set -- $(frames "600 bytes")
[ "$(fn_at leaky "$1")" = small_site ] || fail "small group frame #0 is $(fn_at leaky "$1")"
[ "$(fn_at leaky "$2")" = main ] || fail "small group frame #1 is $(fn_at leaky "$2")"
sed -n '/^50 bytes/,$p' out.txt | grep -q "no callstack recorded" || fail "50-byte block has a stack"

expect_exit 0 pfdump --stats leaky.bin
contains out.txt "memory by pool:"
grep -q '^  big  *4  *1  *4000  *3000  *3000$' out.txt || { cat out.txt; fail "pool big totals"; }
grep -q '^  (default)  *16  *9  *1090  *' out.txt || { cat out.txt; fail "default pool totals"; }
# Frees with a stack carry it; the trace has no absolute code address.
expect_exit 0 pfdump --jsonl leaky.bin
[ "$(grep '"type":"free"' out.txt | grep -c '"stack"')" -eq 5 ] || fail "expected 5 frees with stacks"
