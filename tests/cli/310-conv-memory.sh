# Memory and callstacks: live bytes per pool exact in both outputs (and equal
# to pfdump --stats' "live at end"), allocations (with their sizes) and zones carry their
# callstacks, interned before use in every file of a split conversion, and
# Chrome's sf chains are the callstacks.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t310 && cd t310 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
"$MKTRACE" allkinds ak.bin || fail "mktrace"
expect_exit 0 pfconv to perfetto ak.bin
$CHECK perfetto ak.pftrace > pf.counts || fail "invalid perfetto output"
expect_exit 0 pfconv to chrome ak.bin
$CHECK chrome ak.json > ch.counts || fail "invalid chrome output"
expect_exit 0 pfdump --stats ak.bin
# "live at end" per pool, the default pool as "default"
awk '/^memory by pool:/ { on = 1; next } on && NF >= 6 && $NF ~ /^[0-9]+$/ {
	print ($1 == "(default)" ? "default" : $1), $NF }' out.txt > pfdump.live
python3 - <<'PY' || fail "memory or callstacks differ from what allkinds holds"
import json
pf, ch = json.load(open("pf.counts")), json.load(open("ch.counts"))
live = {"textures": 0, "default": 64}
# textures: 4096 at 1.5 us, 0 at 1.6 us; default: 64 at 1.51 us
assert pf["live"] == live and ch["live"] == live, (pf["live"], ch["live"])
assert pf["memory"] == ch["memory"] == 3, (pf, ch)
assert pf["allocs"] == 2 and pf["alloc_bytes"] == 4096 + 64, pf
dumped = dict((p, int(v)) for p, v in (l.split() for l in open("pfdump.live")))
assert dumped == live, dumped
# zone Update's callstack and the textures allocation's, outermost first;
# return addresses, which Perfetto's rel_pc holds less one (the address
# pfsym resolves)
full = "game+0x1000;libfoo.so+0x42;main;inner_inlined"
assert ch["stacks_used"] == ["game+0x1000;libfoo.so+0x42", full], ch["stacks_used"]
assert pf["stacks_used"] == ["game+0xfff;libfoo.so+0x41", "game+0xfff;libfoo.so+0x41;main;inner_inlined"], \
    pf["stacks_used"]
assert pf["callstacks"] == ch["callstacks"] == 2, (pf, ch)
assert ch["allocs"] == 2 and ch["alloc_bytes"] == 4096 + 64, ch
PY

# The unit test's memory pattern (tests/unit/t_conv.c, memory_trace): a
# free of an unknown address, an address allocated again while live, a free
# naming another pool than its block's, an allocation at address 0.
"$PROFEV_BUILD/tests/conv/t_conv" --write-memory mem.bin || fail "t_conv --write-memory"
for f in perfetto chrome; do
	ext=$([ $f = perfetto ] && echo pftrace || echo json)
	expect_exit 0 pfconv to $f mem.bin
	$CHECK $f mem.$ext > mem.counts || fail "invalid $f output"
	python3 - $f <<'PY' || fail "$f: memory of the known pattern differs"
import json, sys
c = json.load(open("mem.counts"))
assert c["live"] == {"default": 35, "gpu": 0}, c
assert c["memory"] == 8, c
assert c["allocs"] == 5 and c["alloc_bytes"] == 255, c
# game+0x200 is the one frame that is no return address
if sys.argv[1] == "chrome":
    used = ["game+0x10;lib.so+0x20;outer;inl", "game+0x200", "0x7fff1234", "game+0x10;game+0x10"]
else:
    used = ["game+0xf;lib.so+0x1f;outer;inl", "game+0x200", "0x7fff1234", "game+0xf;game+0xf"]
assert c["stacks_used"] == sorted(used), c
PY
done
