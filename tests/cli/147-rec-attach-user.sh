# Only the program's own user, or root, may attach: pfrec run as another
# user (nobody) is refused with the reason, and the program runs on; root
# may attach to a program of nobody's. Needs root to switch users.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"

[ "$(id -u)" = 0 ] || skip "switching users needs root"
command -v setpriv >/dev/null || skip "no setpriv"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody true 2>/dev/null || skip "setpriv cannot switch to nobody here"
as_nobody test -x "$PROFEV_BUILD/pfrec" || skip "nobody cannot run '$PROFEV_BUILD/pfrec'"
as_nobody test -x "$GAME" || skip "nobody cannot run '$GAME'"

# root's program, nobody's pfrec: refused.
PROFEV_ON_DEMAND=1 "$GAME" 0 --seconds 4 >game.out 2>&1 &
game=$!
sleep 1
as_nobody "$PROFEV_BUILD/pfrec" -q --attach $game -o - >/dev/null 2>err.txt
st=$?
[ $st = 1 ] || { cat err.txt >&2; fail "pfrec as nobody exited $st, expected 1"; }
contains err.txt "process $game refused: user 65534 may not attach to a program of user 0"
alive $game || fail "the game died after the refusal"
wait $game || fail "the game exited $? after a refused attach"

# nobody's program, root's pfrec: recorded.
PROFEV_ON_DEMAND=1 setpriv --reuid=65534 --regid=65534 --clear-groups "$GAME" 0 --seconds 3 \
	>game2.out 2>&1 &
game=$!
sleep 1
# setpriv execs the game: the pid is the game's.
expect_exit 0 pfrec -q --attach $game -o root.bin
wait $game || fail "nobody's game exited $?"
n=$(count_type root.bin zone_begin)
[ "$n" -gt 100 ] || fail "root.bin holds $n zones"
