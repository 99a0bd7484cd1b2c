# Every packet of every kind of Perfetto output follows the sequencing rules
# of Perfetto's trace_packet.proto, as conv-check.py reads them: each
# sequence's incremental state cleared by its first packet before any use,
# TracePacketDefaults before the packets they apply to, every interned id
# (names, categories, source locations, annotation names, callstacks and
# their frames) defined on its sequence before use, and
# SEQ_NEEDS_INCREMENTAL_STATE on each packet that needs it: every packet
# after a sequence's TracePacketDefaults, every packet that refers to
# interned data. The traces: every kind mktrace writes and the goldens,
# whole, split, windowed, filtered, without images, and compressed.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t339 && cd t339 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
check() { $CHECK perfetto "$@" > /dev/null || fail "'$*' breaks Perfetto's sequencing rules"; }

for kind in allkinds nested ties images lost-samples; do
	"$MKTRACE" "$kind" "$kind.bin" || fail "mktrace $kind"
done
"$MKTRACE" game game.bin 100000 8 || fail "mktrace game"
"$MKTRACE" game-args args.bin 50000 3 || fail "mktrace game-args"
"$PROFEV_BUILD/tests/conv/t_conv" --write-clock-back back.bin || fail "t_conv --write-clock-back"
cp "$GOLDEN/images-v3.bin" .
cp "$GOLDEN/nested.bin" golden-nested.bin
for t in allkinds nested ties images lost-samples game args back images-v3 golden-nested; do
	expect_exit 0 pfconv -q to perfetto -o "$t.pftrace" "$t.bin"
	check "$t.pftrace"
done
expect_exit 0 pfconv -q to perfetto --split-size 64K -o part.pftrace game.bin
[ -f part.002.pftrace ] || fail "the split wrote fewer than three parts"
for p in part.[0-9][0-9][0-9].pftrace; do check "$p"; done
expect_exit 0 pfconv -q to perfetto --from 1ms --to 2ms -o win.pftrace game.bin
check win.pftrace
expect_exit 0 pfconv -q to perfetto --thread main -o main.pftrace allkinds.bin
check main.pftrace
expect_exit 0 pfconv -q to perfetto --no-images -o plain.pftrace images.bin
check plain.pftrace

# Inside compressed_packets the packets are the same.
expect_exit 0 pfconv -q to perfetto --compress -o z.pftrace allkinds.bin
python3 - z.pftrace z.inflated <<'PY' || fail "cannot inflate z.pftrace"
import sys, zlib
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
d = open(sys.argv[1], 'rb').read(); out = bytearray(); i = 0
while i < len(d):
    n, i = varint(d, i + 1)
    p = d[i:i + n]; i += n
    _, j = varint(p, 0); m, j = varint(p, j)
    out += zlib.decompress(p[j:j + m])
open(sys.argv[2], 'wb').write(out)
PY
check z.inflated
