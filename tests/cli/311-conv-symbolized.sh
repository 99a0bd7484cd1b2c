# Callstacks of a real -g -O2 program (tests/sym/prog.c, with a library it
# dlopens) in both outputs: before pfsym as modules and addresses, after as
# functions with their inline chains, the same stacks in Perfetto as in
# Chrome, every interned frame and mapping defined before use.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t311 && cd t311 || exit 1 # tests share one scratch directory
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"
sh "$PROFEV_ROOT/tests/sym/build.sh" fx >build.log 2>&1 || { cat build.log; fail "fixtures"; }
cd fx || fail "no fx"
./prog t.bin ./libfix.so || fail "fixture program failed"
expect_exit 0 pfsym -o ts.bin t.bin
for t in t ts; do
	expect_exit 0 pfconv to perfetto $t.bin
	$CHECK perfetto $t.pftrace > $t.pf.counts || fail "invalid perfetto output of $t.bin"
	expect_exit 0 pfconv to chrome $t.bin
	$CHECK chrome $t.json > $t.ch.counts || fail "invalid chrome output of $t.bin"
done
python3 - <<'PY' || fail "callstacks differ between the outputs, or from the program's"
import json
c = {n: json.load(open(n + ".counts")) for n in ("t.pf", "t.ch", "ts.pf", "ts.ch")}
# Perfetto's rel_pc is a return address less one (the address pfsym
# resolves); every frame here is one.
def rel(s):
    return ";".join(f.split("+0x")[0] + "+0x%x" % (int(f.split("+0x")[1], 16) - 1) if "+0x" in f else f
                    for f in s.split(";"))
for t in ("t", "ts"):
    pf, ch = c[t + ".pf"], c[t + ".ch"]
    assert pf["stacks_used"] == [rel(s) for s in ch["stacks_used"]], (t, pf["stacks_used"], ch["stacks_used"])
    assert pf["callstacks"] == ch["callstacks"] == pf["zones"] > 0, (t, pf, ch)
raw, sym = c["t.pf"]["stacks_used"], c["ts.pf"]["stacks_used"]
assert len(raw) == len(sym), (raw, sym)
# unsymbolized: module+0xaddress; symbolized: work() with upper, middle and
# leaf inlined into it, and the library's frames
assert all("+0x" in f for s in raw for f in s.split(";")), raw
assert any(s.endswith(";main;work;upper;middle;leaf;fixture_capture") for s in sym), sym
assert any(";fixlib_entry;" in s for s in sym), sym
PY
