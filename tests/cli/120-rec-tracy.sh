# Tracy's macros as a drop-in: programs written in Tracy's documented style
# (tests/tracy/all_macros.cpp and .c, every public macro) build against
# profev's <tracy/Tracy.hpp> and <tracy/TracyC.h> with g++ and clang++ from
# C++11 to C++20 and gcc and clang from C99, record under pfrec, and their
# events arrive with the right names, nesting, values and counts
# (tests/tracy/check.py). Without TRACY_ENABLE nothing of profev remains.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
SRC=$PROFEV_ROOT/tests/tracy
INC="-I$PROFEV_ROOT/lib/include -I$PROFEV_ROOT/lib/include/tracy"
LIBS="$PROFEV_BUILD/libprofev-tracy.a $CLIENT_A -pthread"
W="-Wall -Wextra -Werror $SANFLAGS"

for cxx in g++ clang++; do
	command -v $cxx >/dev/null || continue
	for std in c++11 c++14 c++17 c++20; do
		$cxx -std=$std -O1 $W -DTRACY_ENABLE -DTRACY_FIBERS $INC -o "px-$cxx-$std" "$SRC/all_macros.cpp" \
			$LIBS 2>err.txt || { cat err.txt; fail "$cxx -std=$std with TRACY_ENABLE failed"; }
		# Without TRACY_ENABLE the macros are empty: arguments used only
		# by them are unused, as with Tracy, so no -Werror.
		$cxx -std=$std -O1 -Wall $SANFLAGS -DTRACY_FIBERS $INC -o "pxd-$cxx-$std" "$SRC/all_macros.cpp" -pthread 2>err.txt ||
			{ cat err.txt; fail "$cxx -std=$std without TRACY_ENABLE failed"; }
		! nm "pxd-$cxx-$std" | grep -qi 'profev\|___tracy' || fail "$cxx -std=$std: profev symbols without TRACY_ENABLE"
	done
done
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for std in c99 c11 gnu17; do
		$cc -std=$std -pedantic -O1 $W -DTRACY_ENABLE -DTRACY_FIBERS $INC -o "pc-$cc-$std" "$SRC/all_macros.c" \
			$LIBS 2>err.txt || { cat err.txt; fail "$cc -std=$std with TRACY_ENABLE failed"; }
		$cc -std=$std -pedantic -O1 -Wall $SANFLAGS -DTRACY_FIBERS $INC -o "pcd-$cc-$std" "$SRC/all_macros.c" -pthread 2>err.txt ||
			{ cat err.txt; fail "$cc -std=$std without TRACY_ENABLE failed"; }
		! nm "pcd-$cc-$std" | grep -qi 'profev\|tracy' || fail "$cc -std=$std: profev symbols without TRACY_ENABLE"
	done
done

# Nested ZoneScoped shadow the outer zone's variable; Clang is told not to
# warn, as Tracy's header does.
cat >shadow.cpp <<'C'
#include <tracy/Tracy.hpp>
int f(int x) { ZoneScoped; { ZoneScopedN("inner"); x++; { ZoneScopedC(0xff); x++; } } return x; }
int main() { return f(0) == 2 ? 0 : 1; }
C
if command -v clang++ >/dev/null; then
	clang++ -std=c++17 $W -Wshadow -DTRACY_ENABLE $INC -o shadow shadow.cpp $LIBS 2>err.txt ||
		{ cat err.txt; fail "nested ZoneScoped warn with clang++ -Wshadow"; }
fi

# Every build records the same events; check one of each compiler and language fully.
for p in px-g++-c++11 px-clang++-c++20 px-g++-c++17; do
	[ -x "$p" ] || continue
	expect_exit 0 pfrec -q -o "$p.bin" "./$p"
	contains out.txt "connected 1 started 1"
	pfdump --jsonl "$p.bin" >"$p.jsonl" || fail "pfdump $p.bin"
	python3 "$SRC/check.py" cpp "$p.jsonl" || fail "$p: wrong events"
done
for p in pc-gcc-c99 pc-clang-gnu17; do
	[ -x "$p" ] || continue
	expect_exit 0 pfrec -q -o "$p.bin" "./$p"
	contains out.txt "connected 1 started 1"
	pfdump --jsonl "$p.bin" >"$p.jsonl" || fail "pfdump $p.bin"
	python3 "$SRC/check.py" c "$p.jsonl" || fail "$p: wrong events"
done
# The contended lock in pfdump's lock table: 100 acquisitions, some contended.
pfdump --stats px-g++-c++11.bin >stats.txt || fail "pfdump --stats"
awk '$1 == "contended" && $2 == 100 && $3 > 0 { ok = 1 } END { exit !ok }' stats.txt ||
	{ cat stats.txt; fail "the lock table lacks 'contended' with 100 acquisitions, some contended"; }

# Outside pfrec the program runs and knows it is not recorded.
expect_exit 0 ./px-g++-c++11
contains out.txt "connected 0 started 0"
expect_exit 0 ./pxd-g++-c++11
contains out.txt "connected 0 started 0"

# TRACY_CALLSTACK=N: every zone and memory event carries its callstack, as in Tracy.
c++ -std=c++17 -O1 $W -DTRACY_ENABLE -DTRACY_CALLSTACK=6 $INC -o pxs "$SRC/all_macros.cpp" $LIBS ||
	fail "C++ with TRACY_CALLSTACK failed"
cc -std=c11 -O1 $W -DTRACY_ENABLE -DTRACY_CALLSTACK=6 $INC -o pcs "$SRC/all_macros.c" $LIBS ||
	fail "C with TRACY_CALLSTACK failed"
expect_exit 0 pfrec -q -o pxs.bin ./pxs
pfdump --jsonl pxs.bin >pxs.jsonl
python3 "$SRC/check.py" cpp pxs.jsonl callstack || fail "C++ TRACY_CALLSTACK: wrong events"
expect_exit 0 pfrec -q -o pcs.bin ./pcs
pfdump --jsonl pcs.bin >pcs.jsonl
python3 "$SRC/check.py" c pcs.jsonl callstack || fail "C TRACY_CALLSTACK: wrong events"

# The checker itself fails on a trace that lacks what it expects.
grep -v '"name":"leaf"' px-g++-c++11.jsonl >cut.jsonl
! python3 "$SRC/check.py" cpp cut.jsonl 2>/dev/null || fail "check.py accepts a trace without 'leaf'"

# pfrec --categories -tracy turns the Tracy zones, plots and messages off.
expect_exit 0 pfrec -q --categories=-tracy -o off.bin ./px-g++-c++11
[ "$(count_type off.bin zone_begin)" -eq 0 ] || fail "zones recorded with the category tracy off"
[ "$(count_type off.bin counter)" -eq 0 ] || fail "plots recorded with the category tracy off"
[ "$(count_type off.bin alloc)" -eq 40 ] || fail "memory events depend on the category tracy"
