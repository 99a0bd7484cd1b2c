# pfconv to perfetto, loaded by Perfetto's own trace_processor, holds
# exactly what pfdump shows of the same trace (tests/cli/tp-check.py):
# zones per thread with their times, depths, names and categories to the
# ns, thread and process names, instants, messages, lost events, counter
# values bit for bit, frames, live bytes per pool and allocations; and
# imports without an error. For the goldens, the recorded game, a program
# that crashes inside zones, one with memory and callstacks, a program's
# memory pattern with unknown frees and reused addresses, the parts of a
# --split-size conversion and a --from/--to window. The Chrome JSON of each
# loads there too, with as many slices, counter values and threads.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need
# both TRACE: the Perfetto output checked, the Chrome JSON beside it
both() {
	expect_exit 0 pfconv -q to perfetto -o "$1.pftrace" "$1"
	expect_exit 0 pfconv -q to chrome -o "$1.json" "$1"
	tpcheck --chrome "$1.json" "$1" "$1.pftrace"
}

cp "$GOLDEN/allkinds.bin" "$GOLDEN/nested.bin" .
both allkinds.bin
contains check.out '"lost": 1, "messages": 1'
both nested.bin
"$MKTRACE" ties ties.bin || fail "mktrace ties"
both ties.bin

expect_exit 0 pfrec -q -o game.bin -- "$PROFEV_BUILD/examples/game" 30
both game.bin
contains check.out '"threads": 6'

build_prog crash <<'C'
#include <profev.h>
#include <stdlib.h>
PROFEV_CATEGORY(app, "application");
int main(void) {
	profev_thread_name("crasher");
	PROFEV_ZONE(app, "outer");
	PROFEV_MESSAGE(app, "about to\ncrash");
	for (int i = 0; i < 4; i++)
		PROFEV_ZONE_BEGIN(app, "level");
	abort();
}
C
export ASAN_OPTIONS=handle_abort=0
expect_exit 134 pfrec -q -o crash.bin ./crash
unset ASAN_OPTIONS
both crash.bin

build_prog mem <<'C'
#include <profev.h>
#include <stdlib.h>
PROFEV_CATEGORY(app, "application");
static void *__attribute__((noinline)) get(size_t n) { void *p = malloc(n); PROFEV_ALLOC_S(p, n, 16); return p; }
static void *__attribute__((noinline)) get_tex(size_t n) { void *p = malloc(n); PROFEV_ALLOC_NAMED_S(p, n, "textures", 16); return p; }
int main(void) {
	void *keep[64];
	for (int i = 0; i < 64; i++) {
		PROFEV_ZONE(app, "load");
		keep[i] = i % 3 ? get(16 + i) : get_tex(4096);
		if (i % 2) {
			if (i % 3) { PROFEV_FREE(keep[i]); } else { PROFEV_FREE_NAMED(keep[i], "textures"); }
			free(keep[i]);
		}
	}
	return 0;
}
C
# The program keeps half its blocks on purpose: no leak report under ASan.
ASAN_OPTIONS=detect_leaks=0 expect_exit 0 pfrec -q -o mem.bin ./mem
both mem.bin
"$PROFEV_BUILD/tests/conv/t_conv" --write-memory pattern.bin || fail "t_conv --write-memory"
both pattern.bin

# A split: every part imports; together they are the trace.
"$MKTRACE" game synth.bin 60000 4 || fail "mktrace"
expect_exit 0 pfconv -q to perfetto --split-size 128K -o synth.pftrace synth.bin
[ -f synth.002.pftrace ] || fail "the split wrote fewer than three parts"
tpcheck synth.bin synth.[0-9][0-9][0-9].pftrace
# A window: its zones cut at the edges, its instants and counters; and the
# tpcheck can fail: the same output against a window 10 ns wider.
expect_exit 0 pfconv -q to perfetto --from 2ms --to 6ms -o win.pftrace synth.bin
tpcheck --window 2000000 6000000 synth.bin win.pftrace
! TP="$TP" python3 "$PROFEV_ROOT/tests/cli/tp-check.py" --window 2000000 6000010 synth.bin win.pftrace \
	2> check.err > /dev/null || fail "tp-check accepts a window that is not the output's"
contains check.err "zone slices (tid, ts, dur, depth, name, category) differ"
