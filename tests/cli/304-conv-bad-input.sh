# Bad input as for pfdump: clear messages naming the file; 1 for a bad or
# cut trace (after converting what was whole), 2 for usage and unreadable
# files. Output files are complete even when the trace is not.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t304 && cd t304 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
: > empty.bin
expect_exit 1 pfconv to perfetto empty.bin
contains err.txt "pfconv: 'empty.bin': empty file"
[ ! -e empty.pftrace ] || fail "output made for an empty trace"
printf 'this is not a trace at all' > magic.bin
expect_exit 1 pfconv to chrome magic.bin
contains err.txt "pfconv: 'magic.bin': not a profev trace"
head -c 100000 /dev/urandom > garbage.bin
expect_exit 1 pfconv to chrome garbage.bin
contains err.txt "'garbage.bin': not a profev trace"
mkdir adir
expect_exit 2 pfconv to chrome adir
contains err.txt "unable to read 'adir': is a directory"
expect_exit 2 pfconv to chrome missing.bin
contains err.txt "unable to open 'missing.bin': No such file or directory"
expect_exit 1 pfconv to chrome "$GOLDEN/bad-checksum.bin"
contains err.txt "checksum mismatch"

# Cut in the middle: converted up to the cut, each format complete.
"$MKTRACE" game full.bin 300000 2 || fail "mktrace"
head -c $(( $(wc -c < full.bin) / 2 )) full.bin > cut.bin
for f in perfetto chrome folded; do
	expect_exit 1 pfconv to $f cut.bin -o cut.$f
	contains err.txt "pfconv: 'cut.bin': chunk"
	contains err.txt "pfconv: 'cut.bin': stopped after"
	contains err.txt "never closed"
	$CHECK $f cut.$f > cut-$f.json || fail "cut trace gave invalid $f output"
done
python3 -c "import json; c = json.load(open('cut-chrome.json')); assert c['zones'] > 50000, c" ||
	fail "too little of the cut trace converted"

# Garbage after a valid header: a chunk error, not a crash.
"$MKTRACE" allkinds ak.bin
head -c 16 ak.bin > hdr.bin
head -c 5000 /dev/urandom >> hdr.bin
expect_exit 1 pfconv to perfetto hdr.bin
contains err.txt "chunk 0 at offset 16"

# Usage errors.
expect_exit 2 pfconv
contains err.txt "see 'pfconv --help'"
expect_exit 2 pfconv to
expect_exit 2 pfconv to gif ak.bin
contains err.txt "unknown format 'gif'"
expect_exit 2 pfconv from perfetto ak.bin
contains err.txt "unknown action 'from'"
expect_exit 2 pfconv to chrome ak.bin extra
contains err.txt "too many arguments"
expect_exit 2 pfconv --bogus to chrome ak.bin
contains err.txt "unknown option '--bogus'"
expect_exit 2 pfconv to chrome ak.bin -o
contains err.txt "needs a value"
expect_exit 2 pfconv to chrome --from 1parsec ak.bin
contains err.txt "invalid time '1parsec'"
expect_exit 2 pfconv to chrome --from 2s --to 1s ak.bin
expect_exit 2 pfconv to chrome --split-size lots ak.bin
expect_exit 2 pfconv to chrome --split-size 100 ak.bin
expect_exit 2 pfconv to folded --split-size 1M ak.bin
expect_exit 2 pfconv to perfetto --merge-threads ak.bin
expect_exit 2 pfconv to chrome --split-size 1M -o - ak.bin
cp ak.bin ak.json
expect_exit 2 pfconv to chrome ak.json
contains err.txt "'ak.json' would overwrite the trace"

# Output that cannot be written: exit 1 with the reason.
expect_exit 1 pfconv to chrome ak.bin -o /dev/full
contains err.txt "pfconv: unable to write '/dev/full': No space left on device"
expect_exit 1 pfconv to chrome ak.bin -o nodir/x.json
contains err.txt "pfconv: unable to create 'nodir/x.json': No such file or directory"

# Cut anywhere: never a crash, always complete output that checks.
"$MKTRACE" game small.bin 20000 3 || fail "mktrace"
size=$(wc -c < small.bin)
for k in 1 7 17 23 31; do
	n=$((size * k / 32 + k))
	head -c $n small.bin > c.bin
	for f in perfetto chrome folded; do
		pfconv -q to $f c.bin -o c.$f > /dev/null 2>err.txt
		rc=$?
		[ $rc -eq 1 ] || fail "cut at $n: $f exited $rc: $(cat err.txt)"
		$CHECK $f c.$f > /dev/null || fail "cut at $n: invalid $f output"
	done
done
