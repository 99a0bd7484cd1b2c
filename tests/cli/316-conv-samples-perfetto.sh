# pfconv to perfetto with samples and context switches (pfrec --sample
# --sched), loaded by trace_processor: every sample is in perf_sample with
# its callsite, per thread as pfdump counts them, in the right function and
# under main; the switches give each thread its thread_state (the sleeping
# thread Sleeping for as long as it slept) and sched slices on the CPUs.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need
need_perf_events
cpu_burner
build_prog busy <<'C'
#include <profev.h>
#include <pthread.h>
#include <time.h>
PROFEV_CATEGORY(app, "application");
#include "cpu_burner.h"
SPIN(spin_main, 200000, i)
static void *sleeper(void *a)
{
	(void)a;
	profev_thread_name("sleeper");
	for (int i = 0; i < 4; i++) {
		PROFEV_ZONE(app, "nap");
		struct timespec d = { 0, 50000000 };
		nanosleep(&d, NULL);
	}
	return NULL;
}
int main(void)
{
	profev_thread_name("main");
	pthread_t t;
	pthread_create(&t, NULL, sleeper, NULL);
	spin_main(0.15);
	pthread_join(t, NULL);
	return 0;
}
C
# -g for pfsym; the frame pointers are kept for the kernel's unwinding.
$CC -std=gnu99 -O1 -g -fno-omit-frame-pointer $SANFLAGS -I"$PROFEV_ROOT/lib/include" -o busy busy.c \
	"$CLIENT_A" -pthread || fail "cannot build busy"
expect_exit 0 pfrec -q --sample --sched -o b.bin ./busy
expect_exit 0 pfsym b.bin
expect_exit 0 pfconv -q to perfetto -o b.pftrace b.bin
fields_known b.pftrace
# Records the kernel dropped (a ring pfrec could not drain in time, as on
# a loaded machine) are data loss the trace records: trace_processor counts
# them, and the CPUs' switch chains they break.
if [ "$(count_type b.bin sample_lost)" -gt 0 ]; then
	tp_import_ok b.pftrace perf_cpu_lost_records mismatched_sched_switch_tids
else
	tp_import_ok b.pftrace
fi

n=$(count_type b.bin sample)
[ "$n" -ge 100 ] || fail "only $n samples for 0.15 s of CPU at 1000 Hz"
[ "$(tp_value b.pftrace "select count(*) from perf_sample")" -eq "$n" ] ||
	fail "perf_sample holds $(tp_value b.pftrace "select count(*) from perf_sample") samples, the trace $n"
[ "$(tp_value b.pftrace "select count(*) from perf_sample where callsite_id is null")" -eq 0 ] ||
	fail "samples without a callsite"
# Per thread, as pfdump counts them.
expect_exit 0 pfdump --stats b.bin
sed -n '/^samples and CPU time/,/^$/p' out.txt | awk 'NR > 2 && NF > 3 && $3 > 0 { print $1 "," $3 }' | sort >want.csv
tp_sql b.pftrace "select t.tid || ',' || count(*) from perf_sample s join thread t using (utid) group by t.tid" |
	tr -d '"' | sort >got.csv
diff want.csv got.csv >&2 || fail "samples per thread differ (< pfdump, > trace_processor)"
# main's samples: mostly in spin_main (the rest in the clock it reads),
# and main is on 99% of the stacks of the samples taken while main ran
# (from the first sample under main to the last; before and after are the
# dynamic linker's and a sanitizer's start and exit). Frame pointers alone
# lost frames in the vdso's clock, whose code keeps none, and in a
# sanitizer's interceptors; pfrec's DWARF unwinding of the stack copy
# (.eh_frame of the vdso, libc and the sanitizer's runtime) walks them.
main_tid=$(tp_value b.pftrace "select tid from thread where name = 'main'")
total=$(tp_value b.pftrace "select count(*) from perf_sample s join thread t using (utid) where t.tid = $main_tid")
leaf=$(tp_value b.pftrace "select count(*) from perf_sample s join thread t using (utid)
	join stack_profile_callsite c on c.id = s.callsite_id join stack_profile_frame f on f.id = c.frame_id
	where t.tid = $main_tid and f.name = 'spin_main'")
[ $((leaf * 10)) -ge $((total * 8)) ] || fail "$leaf of $total samples of main in spin_main"
up="with recursive up(sample, ts, cs) as (
		select s.id, s.ts, s.callsite_id from perf_sample s join thread t using (utid) where t.tid = $main_tid
		union all select up.sample, up.ts, c.parent_id from up join stack_profile_callsite c on c.id = up.cs
		where c.parent_id is not null),
	under as (select distinct up.sample, up.ts from up join stack_profile_callsite c on c.id = up.cs
		join stack_profile_frame f on f.id = c.frame_id where f.name = 'main')"
under=$(tp_value b.pftrace "$up select count(*) from under")
during=$(tp_value b.pftrace "$up select count(*) from perf_sample s join thread t using (utid)
	where t.tid = $main_tid and s.ts between (select min(ts) from under) and (select max(ts) from under)")
echo "main is on $under of the $during stacks of main's samples while main ran ($total in all)"
[ $((under * 100)) -ge $((during * 99)) ] || fail "main is on $under of $during stacks"
# The sleeper: four stretches Sleeping, each as long as a nap slept: at
# least the 50 ms asked for and inside its "nap" zone (1 ms either side for
# the client clock's calibration). A stretch ends when the thread is back
# on a CPU, so under load it can outlast the 50 ms by the wait for a CPU,
# as the nap does; no bound but the nap's own holds there.
naps=$(tp_value b.pftrace "select count(*) from slice s join thread_track tt on s.track_id = tt.id
	join thread t using (utid) where t.name = 'sleeper' and s.name = 'nap'")
[ "$naps" -eq 4 ] || fail "the sleeper has $naps nap slices, not 4"
long="select ts.ts, ts.dur from thread_state ts join thread t using (utid)
	where t.name = 'sleeper' and ts.state = 'S' and ts.dur >= 49000000"
s=$(tp_value b.pftrace "select count(*) from ($long)")
in_nap=$(tp_value b.pftrace "select count(*) from ($long) st where exists (select 1 from slice n
	join thread_track tt on n.track_id = tt.id join thread t using (utid)
	where t.name = 'sleeper' and n.name = 'nap' and st.ts >= n.ts - 1000000
	and st.ts + st.dur <= n.ts + n.dur + 1000000)")
if [ "$s" -ne 4 ] || [ "$in_nap" -ne 4 ]; then
	tp_sql b.pftrace "select 'state', ts.ts, ts.dur, ts.state from thread_state ts join thread t using (utid)
		where t.name = 'sleeper' union all select 'zone', s.ts, s.dur, s.name from slice s
		join thread_track tt on s.track_id = tt.id join thread t using (utid) where t.name = 'sleeper'" >&2
	fail "the sleeper has $s stretches Sleeping of 49 ms or more, $in_nap of them inside a nap, not 4"
fi
[ "$(tp_value b.pftrace "select count(*) from sched s join thread t using (utid) where t.name = 'sleeper'")" -ge 4 ] ||
	fail "no sched slices for the sleeper"
[ "$(tp_value b.pftrace "select count(*) from thread_state ts join thread t using (utid)
	where t.name = 'main' and ts.state = 'Running'")" -ge 1 ] || fail "main never Running"
