# pfconv to svg on bad input: an empty or cut trace, a --diff base that is
# missing, empty or cut, options that do not go together, an output that
# cannot be written. Clear messages naming the file; 1 for a bad or cut
# trace (after drawing what was whole: a well-formed SVG), 2 for usage and
# unreadable files.
. "$PROFEV_ROOT/tests/cli/lib.sh"
CHECK="python3 $PROFEV_ROOT/tests/cli/flame-check.py"

: > empty.bin
expect_exit 1 pfconv to svg empty.bin
contains err.txt "pfconv: 'empty.bin': empty file"
[ ! -e empty.svg ] || fail "output made for an empty trace"

"$MKTRACE" game full.bin 300000 2 || fail "mktrace"
head -c $(( $(wc -c < full.bin) / 2 )) full.bin > cut.bin
expect_exit 1 pfconv to svg cut.bin -o cut.svg
contains err.txt "pfconv: 'cut.bin': chunk"
contains err.txt "pfconv: 'cut.bin': stopped after"
expect_exit 1 pfconv to folded -q cut.bin -o cut.folded
$CHECK svg cut.svg cut.folded || fail "the cut trace's SVG"

# --diff: a base that is missing, not a trace, empty or cut.
expect_exit 2 pfconv to svg --diff missing.bin full.bin -o d.svg
contains err.txt "unable to open 'missing.bin': No such file or directory"
[ ! -e d.svg ] || fail "output made without its base"
expect_exit 1 pfconv to svg --diff empty.bin full.bin -o d.svg
contains err.txt "pfconv: 'empty.bin': empty file"
expect_exit 1 pfconv to svg -q --diff cut.bin full.bin -o d.svg
contains err.txt "pfconv: 'cut.bin': chunk"
contains err.txt "pfconv: 'cut.bin': the base is what was read before that"
python3 -c "import xml.etree.ElementTree as E; E.parse('d.svg')" || fail "d.svg is not well-formed"
contains d.svg 'data-diff="1"'
expect_exit 0 pfconv to svg -q --diff full.bin full.bin -o same.svg
# the same trace against itself: no box changed, all white
! grep -q 'fill="rgb(255,' same.svg || fail "a trace against itself has red boxes"
! grep -q ',255)"' same.svg || fail "a trace against itself has blue boxes"

# Options.
expect_exit 2 pfconv to chrome --diff full.bin full.bin
contains err.txt "--diff applies to svg output only"
expect_exit 2 pfconv to svg --diff - - < full.bin
contains err.txt "cannot both be standard input"
expect_exit 2 pfconv to perfetto --alloc full.bin
contains err.txt "--alloc applies to folded and svg output only"
expect_exit 2 pfconv to svg --alloc=dead full.bin
contains err.txt "--alloc takes 'live' or nothing, not 'dead'"
expect_exit 2 pfconv to svg --alloc --samples full.bin
contains err.txt "--samples, --gpu and --alloc cannot go together"
expect_exit 2 pfconv to svg --split-size 1M full.bin
contains err.txt "--split-size does not apply to svg output"

# A trace with nothing to draw gives a picture that says so.
expect_exit 0 pfconv to svg --alloc full.bin -o none.svg
contains none.svg "Nothing to draw: no allocations"

# An output that cannot be written.
if [ -w /dev/full ]; then
	expect_exit 1 pfconv to svg full.bin -o /dev/full
	contains err.txt "pfconv: unable to write '/dev/full': No space left on device"
fi
