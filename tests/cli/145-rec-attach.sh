# pfrec --attach records a program that runs on demand (PROFEV_ON_DEMAND=1):
# the example game, attached to after 2 s for 2 s, detached, attached to
# again until its end. Both traces are whole: every zone in the window
# begun and ended (or marked as open at its edge), frames numbered from the
# game's first, every thread named; the game's status is its own.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"

# (qemu-user starts and runs it several times slower: it runs longer there)
secs=7
[ -z "${PROFEV_EMULATOR:-}" ] || secs=25
PROFEV_ON_DEMAND=1 "$GAME" 0 --seconds $secs >game.out 2>&1 &
game=$!
sleep 2

# --list names it (once it listens: under qemu-user on a loaded machine
# its start may take longer than 2 s).
i=0
while :; do
	expect_exit 0 pfrec --list
	grep -E "^ *$game +[a-z0-9_]+ +game\$" out.txt >/dev/null && break
	i=$((i + 1))
	[ $i -lt 300 ] || { cat out.txt >&2; fail "--list lacks the game"; }
	sleep 0.1
done

pfrec -q --attach "$game" -o a.bin 2>a.err &
rec=$!
sleep 2
# and until the trace has grown past its first chunks (under qemu-user the
# attach itself may take seconds), 60 s at the most
i=0
while [ "$(stat -c %s a.bin 2>/dev/null || echo 0)" -lt 16384 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT "$rec"
wait "$rec" || { cat a.err >&2; fail "pfrec --attach exited $? after SIGINT"; }
contains a.err "detached, the program runs on"
alive "$game" || fail "the game ended with the detach"
sleep 0.5
pfrec -q --attach "$game" -o b.bin 2>b.err || { cat b.err >&2; fail "second attach exited $?"; }
contains b.err "the program ended"
wait "$game"
st=$?
[ "$st" = 0 ] || fail "the game exited $st after two attaches"

# A trace's attach and detach events, frames and zones, as pfdump reads them.
check() {
	pfdump --jsonl "$1" >"$1.jsonl" || fail "pfdump cannot read $1"
	grep -q '"type":"attach"' "$1.jsonl" || fail "$1 has no attach event"
	before=$(grep '"type":"attach"' "$1.jsonl" | sed 's/.*"frames_before":\([0-9]*\).*/\1/')
	# (fewer under qemu-user on a loaded machine: the counts say the
	# windows hold real work; the checks that follow say it is whole)
	[ "$before" -gt 10 ] || fail "$1: $before frames before the attach (the game ran 2 s)"
	first=$(grep '"type":"frame"' "$1.jsonl" | head -1 | sed 's/.*"frame":\([0-9]*\).*/\1/')
	[ "$first" = "$before" ] || fail "$1: the first frame is #$first, $before were made before"
	begins=$(grep -c '"type":"zone_begin"' "$1.jsonl")
	ends=$(grep -c '"type":"zone_end"' "$1.jsonl")
	before_z=$(grep -c '"type":"zone_before"' "$1.jsonl" || true)
	after_z=$(grep -c '"type":"zone_after"' "$1.jsonl" || true)
	[ "$begins" -gt 200 ] || fail "$1: only $begins zones"
	[ $((begins + before_z)) = $((ends + after_z)) ] ||
		fail "$1: $begins begins + $before_z begun before != $ends ends + $after_z open after"
	for t in main render audio "worker 0" "worker 1" "worker 2"; do
		grep -q "\"thread\":\"$t\"" "$1.jsonl" || fail "$1: no thread named '$t'"
	done
}
check a.bin
check b.bin
grep -q '"type":"detach"' a.bin.jsonl || fail "a.bin has no detach event"
a_end=$(grep '"type":"detach"' a.bin.jsonl | sed 's/.*"frames_before":\([0-9]*\).*/\1/')
a_last=$(grep '"type":"frame"' a.bin.jsonl | tail -1 | sed 's/.*"frame":\([0-9]*\).*/\1/')
[ "$a_end" = $((a_last + 1)) ] || fail "a.bin: detach after $a_end frames, its last frame is #$a_last"
b_first=$(grep '"type":"attach"' b.bin.jsonl | sed 's/.*"frames_before":\([0-9]*\).*/\1/')
[ "$b_first" -gt "$a_end" ] || fail "b.bin attached after frame $b_first, not after a.bin's $a_end"
# The program ended: no detach.
lacks b.bin.jsonl '"type":"detach"'
expect_exit 0 pfdump --stats b.bin
# The path comes from /proc/PID/exe, which under qemu-user through
# binfmt_misc (make ARCH=aarch64 test) names the emulator.
if [ -z "${PROFEV_EMULATOR:-}" ]; then
	contains out.txt "program:      $GAME"
else
	contains out.txt "program:      "
fi

# Each trace holds the modules with their build-ids: the game's and libc's.
id=$(readelf -n "$GAME" | sed -n 's/.*Build ID: *//p')
[ -n "$id" ] || fail "the game has no build-id"
for t in a.bin b.bin; do
	"$PROFEV_BUILD/tools/modules" $t >$t.mods || fail "cannot read the modules of $t"
	contains $t.mods "module $GAME $id"
	grep -q "^module .*libc\.so\.6 [0-9a-f]\{40\}\$" $t.mods || { cat $t.mods >&2; fail "$t: libc without its build-id"; }
done
