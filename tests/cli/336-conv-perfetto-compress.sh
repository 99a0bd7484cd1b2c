# pfconv to perfetto --compress: the packets deflated into TracePackets of
# compressed_packets (field 50), as Perfetto's service writes them with
# compression_type DEFLATE. Inflated, they are byte for byte the output
# without --compress, whole packets in each; at most 4 bytes per event on
# the benchmark's game trace (13 without); and Perfetto's trace_processor
# shows the same tables as pfdump, to the ns (tests/cli/tp-check.py): the
# game trace, the golden with every kind of event (images, memory,
# callstacks), the parts of a split and a window.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
mkdir -p t336 && cd t336 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"

# inflate OUT PLAIN: the packets of OUT, each only compressed_packets,
# inflated into PLAIN; fails when one holds a cut packet.
inflate() {
	python3 - "$1" "$2" <<'PY' || fail "'$1' is not made of whole compressed packets"
import sys, zlib
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def packets(b):
    i = 0
    while i < len(b):
        if b[i] != 0x0a: sys.exit("a field other than packet at %d" % i)
        n, i = varint(b, i + 1)
        if i + n > len(b): sys.exit("a cut packet at %d" % i)
        yield b[i:i + n]; i += n
d = open(sys.argv[1], 'rb').read()
out = bytearray(); count = 0
for p in packets(d):
    tag, i = varint(p, 0)
    if tag != (50 << 3 | 2): sys.exit("a packet with field %d, not compressed_packets" % (tag >> 3))
    n, i = varint(p, i)
    if i + n != len(p): sys.exit("compressed_packets is not the whole packet")
    inner = zlib.decompress(p[i:])
    for _ in packets(inner): pass
    out += inner; count += 1
open(sys.argv[2], 'wb').write(out)
print(count)
PY
}

"$MKTRACE" game game.bin 200000 4 || fail "mktrace"
expect_exit 0 pfconv -q to perfetto -o plain.pftrace game.bin
expect_exit 0 pfconv -q to perfetto --compress -o game.pftrace game.bin
inflate game.pftrace game.inflated > count.txt
cmp -s game.inflated plain.pftrace || fail "inflated, the compressed output is not the plain one"
[ "$(cat count.txt)" -ge 2 ] || fail "one compressed packet for 2.6 MB: not cut at the outbuf's drains"
size=$(wc -c < game.pftrace)
[ "$size" -le $((200000 * 4)) ] || fail "$size bytes for 200000 events: over 4 bytes per event"
# standard output too
pfconv -q to perfetto --compress - < game.bin > stdout.pftrace || fail "pfconv --compress to stdout"
cmp -s stdout.pftrace game.pftrace || fail "the output on stdout differs from the file"

# The golden with every kind of event: the same bytes once inflated.
cp "$GOLDEN/allkinds.bin" .
expect_exit 0 pfconv -q to perfetto -o allkinds.plain allkinds.bin
expect_exit 0 pfconv -q to perfetto --compress -o allkinds.pftrace allkinds.bin
inflate allkinds.pftrace allkinds.inflated > /dev/null
cmp -s allkinds.inflated allkinds.plain || fail "inflated, the compressed allkinds output is not the plain one"
$CHECK perfetto allkinds.inflated > /dev/null || fail "invalid perfetto output inside compressed_packets"

# Parts of a split: each a whole compressed trace; --split-size counts the
# bytes before compression (what trace_processor holds of a part).
expect_exit 0 pfconv -q to perfetto --compress --split-size 1M -o part.pftrace game.bin
[ -f part.002.pftrace ] || fail "the split wrote fewer than three parts"
for p in part.[0-9][0-9][0-9].pftrace; do
	inflate "$p" "$p.inflated" > /dev/null
	[ "$(wc -c < "$p.inflated")" -le 1048576 ] || fail "part '$p' holds more than 1M before compression"
done
$CHECK perfetto part.[0-9][0-9][0-9].pftrace.inflated > /dev/null || fail "invalid perfetto parts"

# Only Perfetto's format has compressed packets.
expect_exit 2 pfconv to chrome --compress -o x.json game.bin
contains err.txt "--compress applies to perfetto output only"

tp_need
tpcheck game.bin game.pftrace
contains check.out '"threads": 4'
tpcheck allkinds.bin allkinds.pftrace
contains check.out '"lost": 1, "messages": 1'
tpcheck game.bin part.[0-9][0-9][0-9].pftrace
expect_exit 0 pfconv -q to perfetto --compress --from 1ms --to 3ms -o win.pftrace game.bin
tpcheck --window 1000000 3000000 game.bin win.pftrace
# The images of allkinds arrive as Perfetto's screenshots from inside the
# compressed packets too.
[ "$(tp_value allkinds.pftrace "select count(*) from slice where name = 'Screenshot'")" -eq 1 ] ||
	fail "no screenshot from the compressed output"
