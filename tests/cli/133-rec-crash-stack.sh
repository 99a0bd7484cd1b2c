# A thread that faults under pfrec: the client's crash handler sends its
# callstack, unwound from the signal's context, after the last flush. The
# trace holds a crash event on that thread whose stack, once pfsym has
# resolved it, starts in the faulting function; pfdump names it in --stats;
# pfconv writes an instant "crash: SIGSEGV" with the callstack, which
# trace_processor loads with no import error, and one in Chrome's JSON.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need
case "$(uname -m)" in x86_64) ;; *) skip "the crash handler unwinds on x86-64 only" ;; esac
cat >crash.c <<'C'
#include <profev.h>
#include <pthread.h>
#include <stdint.h>
PROFEV_CATEGORY(app, "application");
volatile int sink;
__attribute__((noinline)) void crash_here(volatile int *p) { *p = 1; sink++; }
__attribute__((noinline)) void crash_caller(void) { crash_here((volatile int *)(uintptr_t)8); sink++; }
static void *worker(void *a)
{
	(void)a;
	profev_thread_name("crasher");
	{ PROFEV_ZONE(app, "work"); }
	crash_caller();
	return NULL;
}
int main(void)
{
	pthread_t t;
	{ PROFEV_ZONE(app, "start"); }
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
C
$CC -std=gnu99 -O1 -g $SANFLAGS -I"$PROFEV_ROOT/lib/include" -o crash crash.c "$CLIENT_A" -pthread ||
	fail "cannot build crash"
export ASAN_OPTIONS=handle_segv=0 TSAN_OPTIONS=handle_segv=0
expect_exit 139 pfrec -q -o c.bin ./crash
contains err.txt "pfrec: './crash' killed by signal 11 (Segmentation fault)"
expect_exit 0 pfsym c.bin
expect_exit 0 pfdump --stats c.bin
contains out.txt "crash:        SIGSEGV at 0x8 on thread "
contains out.txt " (crasher) in crash_here"
expect_exit 0 pfdump c.bin
grep -A3 ' crash ' out.txt >crash.txt || fail "no crash event"
contains crash.txt "SIGSEGV at 0x8"
sed -n 2p crash.txt | grep -q '#0  crash_here ' || fail "frame 0 is not crash_here: $(cat crash.txt)"
sed -n 3p crash.txt | grep -q '#1  crash_caller ' || fail "frame 1 is not crash_caller: $(cat crash.txt)"
sed -n 4p crash.txt | grep -q '#2  worker ' || fail "frame 2 is not worker: $(cat crash.txt)"
expect_exit 0 pfdump --jsonl c.bin
grep '"type":"crash"' out.txt >crash.json || fail "no crash event in JSON"
contains crash.json '"signal":"SIGSEGV","addr":8'
contains crash.json '"thread":"crasher"'
# The crash is its thread's last event.
tid=$(sed 's/.*"tid":\([0-9]*\).*/\1/' crash.json)
[ "$(grep "\"tid\":$tid," out.txt | tail -n 1 | grep -c '"type":"crash"')" -eq 1 ] ||
	fail "the crash is not the last event of thread $tid"

expect_exit 0 pfconv -q to perfetto -o c.pftrace c.bin
tp_import_ok c.pftrace
[ "$(tp_value c.pftrace "select count(*) from slice s join thread_track tt on tt.id = s.track_id
	join thread using (utid) where s.name = 'crash: SIGSEGV' and thread.name = 'crasher'")" = 1 ] ||
	fail "no instant 'crash: SIGSEGV' on the crasher's track"
[ "$(tp_value c.pftrace "select f.name from __intrinsic_track_event_callstacks c
	join stack_profile_callsite s on s.id = c.callsite_id
	join stack_profile_frame f on f.id = s.frame_id")" = crash_here ] ||
	fail "the crash's callstack does not start in crash_here"
expect_exit 0 pfconv -q to chrome -o c.json c.bin
contains c.json '"name":"crash: SIGSEGV"'
contains c.json '"name":"crash_here"'
