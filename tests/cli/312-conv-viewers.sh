# pfconv's outputs open in real viewers, headless: the Chrome JSON (X and
# B/E forms) and the folded stacks of a recorded game load in speedscope
# without an error and with every slice ended where it should be, with
# every zone and thread name pfdump shows (tests/viewers/open.mjs, which also
# tells whether chrome://tracing exists in this Chromium). Needs `make deps`:
# Debian's chromium and tests/viewers/node_modules.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
VIEWERS="$PROFEV_ROOT/tests/viewers"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "no chromium at '$CHROMIUM': run 'make deps'"
command -v node >/dev/null || fail "no node: run 'make deps'"
[ -d "$VIEWERS/node_modules/speedscope" ] && [ -d "$VIEWERS/node_modules/playwright-core" ] ||
	fail "no '$VIEWERS/node_modules': run 'make deps'"

expect_exit 0 pfrec -q -o game.bin "$PROFEV_BUILD/examples/game" 30
expect_exit 0 pfconv to chrome game.bin -o game.json
expect_exit 0 pfconv to chrome --begin-end game.bin -o game-be.json
expect_exit 0 pfconv to folded game.bin -o game.folded
# A program that aborts inside nested zones: pfconv closes them all at the
# same moment, which X events' rounded ends could disorder. (speedscope
# shows a zone's args after its name.)
build_prog crash <<'C'
#include <profev.h>
#include <stdlib.h>
PROFEV_CATEGORY(app, "application");
int main(void) {
	PROFEV_ZONE(app, "outer");
	for (int i = 0; i < 4; i++)
		PROFEV_ZONE_BEGIN(app, "level");
	abort();
}
C
export ASAN_OPTIONS=handle_abort=0
expect_exit 134 pfrec -q -o crash.bin ./crash
unset ASAN_OPTIONS
expect_exit 0 pfconv to chrome -q crash.bin -o crash.json
contains crash.json '"unclosed":true'
# Zones that begin and end at each other's times, in every way.
"$MKTRACE" ties ties.bin || fail "mktrace ties"
expect_exit 0 pfconv to chrome -q ties.bin -o ties.json

# The names pfdump shows for the trace: every zone and every thread.
expect_exit 0 pfdump --jsonl game.bin
sed -n 's/.*"type":"zone_begin","name":"\([^"\\]*\)".*/\1/p' out.txt | sort -u > names.txt
sed -n 's/.*"type":"thread_name","name":"\([^"\\]*\)".*/\1/p' out.txt | sort -u > threads.txt
for n in frame input simulate "draw frame" mix job; do
	grep -qx "$n" names.txt || fail "pfdump shows no zone '$n' for the game: $(tr '\n' ',' < names.txt)"
done
for t in main render audio "worker 0"; do
	grep -qx "$t" threads.txt || fail "pfdump shows no thread '$t' for the game: $(tr '\n' ',' < threads.txt)"
done

set -- --names names.txt
while IFS= read -r t; do set -- "$@" --thread "$t"; done < threads.txt
# Chromium is not built with the sanitizers: keep their options away from it.
env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS \
	node "$VIEWERS/open.mjs" --chromium "$CHROMIUM" "$@" game.json game-be.json game.folded > viewers.txt 2>&1 &&
	env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS \
	node "$VIEWERS/open.mjs" --chromium "$CHROMIUM" \
	--name 'outer {"unclosed":true}' --name 'level {"unclosed":true}' crash.json >> viewers.txt 2>&1 &&
	env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS \
	node "$VIEWERS/open.mjs" --chromium "$CHROMIUM" --name P --name C --name G --name D --name Q \
	--name R --name S --name T --name U --name 'V {"unclosed":true}' --name 'W {"unclosed":true}' \
	ties.json >> viewers.txt 2>&1
status=$?
cat viewers.txt
[ "$status" -eq 0 ] || fail "the viewers did not open pfconv's output (exit $status)"
contains viewers.txt "speedscope: 'game.json': importing as trace event format profile"
contains viewers.txt "speedscope: 'game-be.json': importing as trace event format profile"
contains viewers.txt "speedscope: 'game.folded': importing as collapsed stack format"
contains viewers.txt "speedscope: 'ties.json': importing as trace event format profile"
contains viewers.txt "all viewers opened every file"
