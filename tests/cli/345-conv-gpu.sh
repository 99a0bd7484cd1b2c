# GPU zones in every output: in Perfetto a track per GPU context, named as
# the program named it, under the process, with the zones as slices nested
# as issued (trace_processor loads them with no import error); in Chrome
# JSON a pseudo-thread per context; in folded stacks (--gpu) the GPU time
# by zone path. The program is the manual API's (gpu-manual.c): a parent
# of 400 us holding two zones of 100 and 300 us, ten times.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
CHECK="python3 $PROFEV_ROOT/tests/cli/conv-check.py"

build_prog gpuman <"$PROFEV_ROOT/tests/cli/gpu-manual.c"
expect_exit 0 pfrec -q -o gpu.bin ./gpuman

expect_exit 0 pfconv -q to folded --gpu -o gpu.folded gpu.bin
cat >want.folded <<'F'
GPU 0: compute;pass 200
GPU 0: compute;pass;shadow 999900
GPU 0: compute;pass;opaque 2999900
F
cmp -s want.folded gpu.folded || fail "folded --gpu: $(cat gpu.folded)"
expect_exit 0 pfconv -q to folded -o cpu.folded gpu.bin
lacks cpu.folded GPU
expect_exit 2 pfconv -q to chrome --gpu gpu.bin
contains err.txt "--gpu applies to folded and svg output only"

expect_exit 0 pfconv -q to chrome -o gpu.json gpu.bin
$CHECK chrome gpu.json >/dev/null || fail "conv-check refuses gpu.json"
python3 - gpu.json <<'PY' || fail "Chrome JSON's GPU pseudo-thread"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["args"]["name"] == "GPU: compute"]
assert len(names) == 1, names
tid = names[0]["tid"]
gpu = [e for e in ev if e.get("tid") == tid and e["ph"] in "BE"]
assert [e["ph"] for e in gpu] == ["B", "B", "E", "B", "E", "E"] * 10, [e["ph"] for e in gpu][:8]
assert [e["name"] for e in gpu if e["ph"] == "B"] == ["pass", "shadow", "opaque"] * 10
for i in range(0, 60, 6):
    b, e = gpu[i]["ts"], gpu[i + 5]["ts"]
    assert abs(e - b - 400) < 0.002, (b, e)
    assert gpu[i]["pid"] == names[0]["pid"]
PY

tp_need
expect_exit 0 pfconv -q to perfetto -o gpu.pftrace gpu.bin
fields_known gpu.pftrace
$CHECK perfetto gpu.pftrace >/dev/null || fail "conv-check refuses gpu.pftrace"
tp_import_ok gpu.pftrace
got=$(tp_sql gpu.pftrace "select s.name, s.depth, count(*), min(s.dur), max(s.dur), p.name
	from slice s join process_track t on s.track_id = t.id join process p using (upid)
	where t.name = 'compute' group by 1, 2 order by 2, 1" | tr -d '"' | tr '\n' ' ')
[ "$got" = "pass,0,10,400000,400000,gpuman opaque,1,10,299990,299990,gpuman shadow,1,10,99990,99990,gpuman " ] ||
	fail "GPU slices in trace_processor: $got"
parent=$(tp_value gpu.pftrace "select count(*) from slice c join slice p on c.parent_id = p.id
	where c.name in ('shadow', 'opaque') and p.name = 'pass' and c.ts >= p.ts and c.ts + c.dur <= p.ts + p.dur")
[ "$parent" = 20 ] || fail "20 GPU zones inside their pass expected, got $parent"

# A window keeps the zones within it, cut at its edges.
expect_exit 0 pfconv -q to perfetto --from 0 --to 1ms -o none.pftrace gpu.bin
tp_import_ok none.pftrace
[ "$(tp_value none.pftrace "select count(*) from slice where name = 'pass'")" = 0 ] ||
	fail "GPU zones outside the window written"
