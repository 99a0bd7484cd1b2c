# Allocation callstacks in Perfetto's trace_processor (tests/cli/tp-stacks.py):
# each allocation's callstack resolves through the callsite tables to the
# frames pfdump shows, outermost first, and is weighted by its bytes
# (callstack_weight, what Perfetto UI's flame graph sums), so the weights
# per callsite are the bytes per callstack. Unsymbolized, frames are
# (module, rel_pc), rel_pc the address pfsym resolves; symbolized by pfsym,
# they carry function, file and line, and the innermost frame begins at the
# user's call site: profev's inlined helper profev__mem_stack, which pfdump
# --jsonl keeps, is in neither the Perfetto nor the Chrome output; nor are
# the Tracy layer's (TracyCAllocS: profev_tracy__mem_s around it).
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need
stacks() { TP="$TP" python3 "$PROFEV_ROOT/tests/cli/tp-stacks.py" "$@" > stacks.out 2> stacks.err ||
	{ cat stacks.err >&2; fail "tp-stacks $*"; }; }

cat > mem.c <<'C'
#include <profev.h>
#include <stdlib.h>
static void *__attribute__((noinline)) get(size_t n) { void *p = malloc(n); PROFEV_ALLOC_S(p, n, 16); return p; }
static void *__attribute__((noinline)) get_tex(size_t n) { void *p = malloc(n); PROFEV_ALLOC_NAMED_S(p, n, "textures", 16); return p; }
int main(void)
{
	void *keep[48];
	for (int i = 0; i < 48; i++)
		keep[i] = i % 3 ? get(16 + i) : get_tex(4096 + i);
	for (int i = 0; i < 48; i++)
		free(keep[i]);
	return 0;
}
C
$CC -std=gnu99 -g -O1 $SANFLAGS -I"$PROFEV_ROOT/lib/include" -o mem mem.c "$CLIENT_A" -pthread ||
	fail "cannot build mem"
expect_exit 0 pfrec -q -o mem.bin ./mem
expect_exit 0 pfconv -q to perfetto -o raw.pftrace mem.bin
tp_import_ok raw.pftrace
stacks mem.bin raw.pftrace
contains stacks.out '"allocations": 48'

expect_exit 0 pfsym -q mem.bin
expect_exit 0 pfconv -q to perfetto -o sym.pftrace mem.bin
tp_import_ok sym.pftrace
stacks --symbols --no-helper profev__mem_stack mem.bin sym.pftrace
contains stacks.out '"allocations": 48'
contains stacks.out '"callsites": 2'
# 32 blocks of 16 + i bytes (i not a multiple of 3), 16 of 4096 + i
bytes=0; i=0
while [ $i -lt 48 ]; do
	if [ $((i % 3)) -ne 0 ]; then bytes=$((bytes + 16 + i)); else bytes=$((bytes + 4096 + i)); fi
	i=$((i + 1))
done
contains stacks.out "\"bytes\": $bytes"
# The weights as the UI sums them: bytes per function of the flame graph.
[ "$(tp_value sym.pftrace "select cast(sum(c.weight) as int) from __intrinsic_track_event_callstacks c
	join stack_profile_callsite s on s.id = c.callsite_id
	join stack_profile_frame f on f.id = s.frame_id where f.name = 'get_tex'")" = "$((16 * 4096 + 0 + 3 + 6 + 9 + 12 + 15 + 18 + 21 + 24 + 27 + 30 + 33 + 36 + 39 + 42 + 45))" ] ||
	fail "the callstacks innermost in get_tex do not weigh 16 textures' bytes"

# Chrome JSON: the same helper is in no stack frame.
expect_exit 0 pfdump --jsonl mem.bin
contains out.txt '"function":"profev__mem_stack"'
expect_exit 0 pfconv -q to chrome -o mem.json mem.bin
contains mem.json '"name":"get_tex"'
lacks mem.json 'profev__mem_stack'

# Tracy's C API, TracyCAllocS: two helpers inlined (profev_tracy__mem_s,
# then profev__mem_stack), both left out of the viewers' callstacks.
cat > tr.c <<'C'
#include <tracy/TracyC.h>
#include <stdlib.h>
static __attribute__((noinline)) void *tr_get(size_t n)
{
	void *p = malloc(n);
	TracyCAllocS(p, n, 16);
	return p;
}
int main(void)
{
	for (int i = 0; i < 8; i++)
		free(tr_get(100 + i));
	return 0;
}
C
$CC -std=gnu99 -g -O1 $SANFLAGS -DTRACY_ENABLE -I"$PROFEV_ROOT/lib/include" -I"$PROFEV_ROOT/lib/include/tracy" \
	-o tr tr.c "$PROFEV_BUILD/libprofev-tracy.a" "$CLIENT_A" -pthread || fail "cannot build tr"
expect_exit 0 pfrec -q -o tr.bin ./tr
expect_exit 0 pfsym -q tr.bin
expect_exit 0 pfdump --jsonl tr.bin
contains out.txt '"function":"profev_tracy__mem_s"'
expect_exit 0 pfconv -q to perfetto -o tr.pftrace tr.bin
stacks --symbols --no-helper profev_tracy__mem_s tr.bin tr.pftrace
contains stacks.out '"allocations": 8'
stacks --no-helper profev__mem_stack tr.bin tr.pftrace
expect_exit 0 pfconv -q to chrome -o tr.json tr.bin
contains tr.json '"name":"tr_get"'
lacks tr.json 'profev_tracy__'
lacks tr.json 'profev__mem_stack'
