# pfconv to html: one self-contained report (nothing fetched: no URL but
# the SVG namespace, no external script or style) that headless Chromium
# opens without a JavaScript error; its frame-time chart has one point per
# frame pfdump --frames lists, its flame graph zooms and searches, its zone
# table sorts by a click on a heading. With --compare, both runs side by
# side, each chart with its run's frames, and the differential graph. A
# screenshot of each is kept in the test's directory. Then bad input.
. "$PROFEV_ROOT/tests/cli/lib.sh"
CHECK="python3 $PROFEV_ROOT/tests/cli/flame-check.py"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "no chromium at '$CHROMIUM' (make deps installs Debian's chromium)"

expect_exit 0 pfrec -q -o game.bin "$PROFEV_BUILD/examples/game" 40
expect_exit 0 env GAME_SLOW=input:8 pfrec -q -o slow.bin "$PROFEV_BUILD/examples/game" 30
frames() { pfdump --frames --jsonl "$1" | grep -c '"duration_ns"'; }
n1=$(frames game.bin) n2=$(frames slow.bin)
[ "$n1" -gt 30 ] && [ "$n2" -gt 20 ] || fail "pfdump --frames: $n1 and $n2 frames"

expect_exit 0 pfconv to html game.bin -o report.html
expect_exit 0 pfconv to html --compare game.bin slow.bin -o compare.html
for f in report.html compare.html; do
	urls=$(grep -o "https\\?://[^\"'< )]*" "$f" | sort -u | grep -v '^http://www.w3.org/2000/svg$' || true)
	[ -z "$urls" ] || fail "$f refers to $urls"
	! grep -qi '<script[^>]*src=\|<link\|@import\|url(' "$f" || fail "$f loads something"
done
contains report.html '<h3>Frame times</h3>'
contains report.html '<table class="sortable zones">'
contains report.html 'Flame graph: zones by time'
[ "$(grep -c '<section class="run">' compare.html)" = 2 ] || fail "compare.html: not two runs"
contains compare.html 'What changed'
contains compare.html 'data-diff="1"'

browse() { # FILE PNG [options]
	f=$1 png=$2
	shift 2
	env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS \
		$CHECK browse "$f" --chromium "$CHROMIUM" --shot "$png" "$@" > "$f.browse" 2>&1 ||
		{ cat "$f.browse" >&2; fail "$f in chromium"; }
	cat "$f.browse"
}
browse report.html report.png --frames "$n1" --search 'draw|simulate' --sort
# the base's chart comes first
browse compare.html compare.png --frames "$n1" --frames "$n2"
echo "screenshots: $(pwd)/report.png compare.png"

# Bad input.
: > empty.bin
expect_exit 1 pfconv to html empty.bin -o e.html
contains err.txt "pfconv: 'empty.bin': empty file"
[ ! -e e.html ] || fail "a report of an empty trace"
head -c $(( $(wc -c < game.bin) / 2 )) game.bin > cut.bin
expect_exit 1 pfconv to html cut.bin -o cut.html
contains err.txt "pfconv: 'cut.bin': the report shows what was read before that"
contains cut.html 'the trace is cut'
expect_exit 2 pfconv to html --compare missing.bin game.bin -o m.html
contains err.txt "unable to open 'missing.bin'"
[ ! -e m.html ] || fail "a report without its base"
expect_exit 2 pfconv to html - -o p.html < game.bin
contains err.txt "html output reads the trace several times"
expect_exit 2 pfconv to html --from 1s game.bin
contains err.txt "--from, --to and --thread do not apply to html output"
expect_exit 2 pfconv to svg --compare game.bin slow.bin
contains err.txt "--compare applies to html output only"
