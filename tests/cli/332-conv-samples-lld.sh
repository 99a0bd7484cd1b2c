# pfrec --sample of a program linked with lld, whose executable segment
# shares its first file page with the read-only segment (p_vaddr !=
# p_offset): the samples' frames are the functions that ran (pfsym finds the
# spinning function, not what precedes it in the file), and in Perfetto's
# trace_processor each sample frame's pc lies inside its mapping, whose
# load_bias is the segment's p_vaddr - p_offset.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need
command -v clang > /dev/null || skip "no clang (Debian package clang)"
command -v ld.lld > /dev/null || skip "no ld.lld (Debian package lld)"
command -v readelf > /dev/null || skip "no readelf (Debian package binutils)"
need_perf_events
cpu_burner

cat > spin.c <<'C'
#include "cpu_burner.h"
SPIN(spin_here, 100000, i)
int main(void) { spin_here(0.3); return 0; }
C
clang -g -O1 -fno-omit-frame-pointer -fuse-ld=lld -o spin spin.c || fail "cannot build spin with lld"
set -- $(readelf -lW spin | awk '$1 == "LOAD" && ($7 $8) ~ /E/ { print $2, $3; exit }')
bias=$(($2 - $1))
[ "$bias" -ne 0 ] || fail "lld gave spin p_vaddr == p_offset: nothing to test"
expect_exit 0 pfrec -q --sample -o spin.bin ./spin
grep -q "could not\|refused\|not permitted" err.txt && skip "the kernel refused sampling: $(head -n 1 err.txt)"
expect_exit 0 pfsym -q spin.bin
expect_exit 0 pfdump --stats spin.bin
expect_exit 0 pfdump --jsonl spin.bin
python3 - out.txt <<'PY' || fail "the samples' innermost frames are not spin_here"
import json, sys
inner = [e["stack"][0] for e in map(json.loads, open(sys.argv[1])) if e["type"] == "sample" and e.get("stack")]
mine = [f for f in inner if f["module"].endswith("/spin")]
fns = [(f.get("frames") or [{}])[-1].get("function") for f in mine]
if len(mine) < 20 or fns.count("spin_here") < 0.8 * len(mine):
    sys.exit("%d samples in spin, functions %s" % (len(mine), sorted(set(map(str, fns)))))
PY
expect_exit 0 pfconv -q to perfetto -o spin.pftrace spin.bin
tp_import_ok spin.pftrace
[ "$(tp_value spin.pftrace "select load_bias from stack_profile_mapping where name like '%/spin'")" = "$bias" ] ||
	fail "spin's mapping has not the load_bias $bias"
# Modules without a file ([vdso], whose clock_gettime the spin calls) have
# no segment the trace knows. trace_processor joins a mapping's path
# components each after a '/', so they are named '/[vdso]' and file
# modules '/usr/...'.
outside=$(tp_sql spin.pftrace "select count(*) from perf_sample p
	join stack_profile_callsite c on c.id = p.callsite_id join stack_profile_frame f on f.id = c.frame_id
	join stack_profile_mapping m on m.id = f.mapping where m.name like '/%' and m.name not like '/[%' and
	(m.end <= m.start or m.start + f.rel_pc - m.load_bias - m.exact_offset not between m.start and m.end - 1)")
if [ "$outside" != 0 ]; then
	# Which frames, for whoever reads the log: their mapping and rel_pc.
	tp_sql spin.pftrace "select m.name, m.start, m.end, m.load_bias, m.exact_offset, m.build_id, f.rel_pc
		from perf_sample p join stack_profile_callsite c on c.id = p.callsite_id
		join stack_profile_frame f on f.id = c.frame_id join stack_profile_mapping m on m.id = f.mapping
		where m.name like '/%' and m.name not like '/[%' and (m.end <= m.start or
		m.start + f.rel_pc - m.load_bias - m.exact_offset not between m.start and m.end - 1)" >&2
	fail "$outside sample frames lie outside their mapping"
fi
[ "$(tp_value spin.pftrace "select count(*) from perf_sample p join stack_profile_callsite c on c.id = p.callsite_id
	join stack_profile_frame f on f.id = c.frame_id where f.name = 'spin_here'")" -ge 20 ] ||
	fail "fewer than 20 samples in spin_here in trace_processor"
