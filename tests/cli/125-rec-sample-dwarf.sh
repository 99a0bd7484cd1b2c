# pfrec --sample on code without frame pointers (-O2 -fomit-frame-pointer,
# and libc): pfrec unwinds each sample's stack copy with the modules'
# .eh_frame. The program spends measured shares of its CPU time in its own
# loop, in libc's memcpy and qsort (with its comparator) and in a function
# of a dlopen'ed library; the samples' shares match within 3 points, and
# 99% of the samples taken while main runs have main on their stack (the
# worker thread's, its start routine). With frame pointers only
# (--sample-stack=0) most stacks lose main: the DWARF walk is what works.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
need_perf_events
cpu_burner
[ "$(uname -m)" = x86_64 ] || skip "DWARF unwinding of samples is for x86-64"
cat >hot.c <<'C'
volatile double lsink;
__attribute__((noinline)) void in_lib_spin(long n)
{
	for (long i = 0; i < n; i++)
		lsink += i * 0.5;
}
C
cat >prog.c <<'C'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cpu_burner.h"
static char src[1 << 16], dst[1 << 16];
static int arr[4096], work[4096];
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
/* Each phase runs for a given CPU time of its thread, whatever else the
 * machine runs, and the program prints the time it really took. */
SPIN(own_spin, 100000, i)
__attribute__((noinline)) void copy_phase(double s)
{
	for (double e = cpu() + s; cpu() < e;)
		for (int i = 0; i < 50; i++) {
			memcpy(dst, src, sizeof dst);
			src[i] = dst[i + 1];
		}
}
__attribute__((noinline)) void sort_phase(double s)
{
	for (double e = cpu() + s; cpu() < e;)
		for (int i = 0; i < 4; i++) {
			memcpy(work, arr, sizeof work);
			qsort(work, 4096, sizeof *work, cmp);
		}
}
__attribute__((noinline)) void lib_phase(double s, void (*f)(long))
{
	for (double e = cpu() + s; cpu() < e;)
		f(100000);
}
static double t_worker;
static void *worker(void *a)
{
	double t0 = cpu();
	own_spin(*(double *)a);
	t_worker = cpu() - t0;
	return NULL;
}
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h)
		return 99;
	void (*f)(long) = (void (*)(long))dlsym(h, "in_lib_spin");
	for (int i = 0; i < 4096; i++)
		arr[i] = rand();
	pthread_t t;
	double w = 0.1;
	pthread_create(&t, NULL, worker, &w);
	double t0 = cpu();
	own_spin(0.2);
	double t1 = cpu();
	copy_phase(0.1);
	double t2 = cpu();
	sort_phase(0.1);
	double t3 = cpu();
	lib_phase(0.1, f);
	double t4 = cpu();
	pthread_join(t, NULL);
	printf("own_spin %.4f\ncopy_phase %.4f\nsort_phase %.4f\nlib_phase %.4f\nworker %.4f\n",
	       t1 - t0, t2 - t1, t3 - t2, t4 - t3, t_worker);
	return 0;
}
C
$CC -O2 -g $SANFLAGS -fomit-frame-pointer -fPIC -shared -Wl,--build-id=sha1 -o libhot.so hot.c ||
	fail "cannot build libhot.so"
$CC -O2 -g $SANFLAGS -fomit-frame-pointer -Wl,--build-id=sha1 -pthread -o prog prog.c -ldl ||
	fail "cannot build prog"
# No frame pointers anywhere in the program's own code: main's prologue
# does not set rbp up.
objdump -d --no-show-raw-insn prog | awk '/<own_spin>:/,/ret/' | grep -q 'mov *%rsp,%rbp' &&
	fail "own_spin keeps a frame pointer"

expect_exit 0 pfrec -q --sample=1000 -o d.bin ./prog "$PWD/libhot.so"
cp out.txt times.txt
expect_exit 0 pfsym d.bin
expect_exit 0 pfdump --jsonl d.bin
python3 - out.txt times.txt <<'PY' || fail "DWARF-unwound samples"
import json, sys
times = {}
for line in open(sys.argv[2]):
    k, v = line.split()
    times[k] = float(v)
samples = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["type"] != "sample":
        continue
    fns, mods = [], []
    for fr in e.get("stack", []):
        # inlined frames come outermost last; the function that holds the
        # code is the last one
        names = [f.get("function", "?") for f in fr.get("frames", [])] or ["?"]
        fns.append(names[-1])
        mods.append(fr.get("module", ""))
    samples.append((e["ts"], e["tid"], fns, mods))
main_tid = min(tid for _, tid, _, _ in samples)
total = len(samples)
print(total, "samples;", "CPU times:", times)
cpu_sum = sum(times.values())
ok = True
def share(pred):
    return 100.0 * sum(1 for s in samples if pred(s)) / total
def on(name):
    return lambda s: name in s[2]
checks = [
    ("own_spin (main)", lambda s: s[1] == main_tid and "own_spin" in s[2], times["own_spin"]),
    ("worker", on("worker"), times["worker"]),
    ("copy_phase", on("copy_phase"), times["copy_phase"]),
    ("sort_phase", on("sort_phase"), times["sort_phase"]),
    ("lib_phase", on("lib_phase"), times["lib_phase"]),
    # inside libc and the dlopen'ed library, under their callers
    # (under ASan memcpy is its interceptor's, which checks the ranges in
    # functions of its own: memcpy is on the stack, not always innermost)
    ("memcpy under copy_phase", lambda s: "copy_phase" in s[2] and any("memcpy" in f for f in s[2]), times["copy_phase"] * 0.9),
    ("qsort under sort_phase", lambda s: "sort_phase" in s[2] and any("qsort" in f for f in s[2]), times["sort_phase"]),
    ("in_lib_spin in libhot.so", lambda s: s[2][0] == "in_lib_spin" and s[3][0].endswith("/libhot.so") and "lib_phase" in s[2], times["lib_phase"]),
]
for name, pred, t in checks:
    got, want = share(pred), 100.0 * t / cpu_sum
    # memcpy: the copy loop also reads the clock; at least 90% of its time
    tol = 3.0 if "memcpy" not in name else None
    good = abs(got - want) <= tol if tol else got >= want - 3.0
    print("%-28s %5.1f%% of samples, %5.1f%% of CPU time%s" % (name, got, want, "" if good else "  <-- off"))
    ok &= good
# the comparator is called by qsort's merge sort, in libc
cmp_ok = [s for s in samples if s[2][0] == "cmp"]
if not cmp_ok or not all(any("msort" in f or "qsort" in f for f in s[2]) for s in cmp_ok):
    print("cmp samples not under qsort"); ok = False
# 99% of the samples taken while main ran (from the first sample under
# main to the last: the dynamic linker's start and exit are before and
# after) reach main or the worker's start routine
under = [s[0] for s in samples if s[1] == main_tid and "main" in s[2]]
during = [s for s in samples if under[0] <= s[0] <= under[-1]]
reach = sum(1 for s in during if (s[1] == main_tid and "main" in s[2]) or (s[1] != main_tid and "worker" in s[2] and "start_thread" in s[2]))
print("%d of %d samples while main ran reach main or the start routine (%.2f%%)" % (reach, len(during), 100.0 * reach / len(during)))
ok &= reach * 100 >= 99 * len(during)
sys.exit(0 if ok else 1)
PY
# The dlopen'ed library came through PERF_RECORD_MMAP2 with its build-id.
"$PROFEV_BUILD/tools/modules" d.bin >mods.txt || fail "cannot read d.bin"
id=$(readelf -n libhot.so | sed -n 's/.*Build ID: *//p')
[ -n "$id" ] || fail "libhot.so has no build-id"
grep -q "^module $PWD/libhot\.so $id\$" mods.txt || { cat mods.txt; fail "libhot.so missing or with another build-id"; }

# Frame pointers only: the kernel's chain loses main on most samples.
expect_exit 0 pfrec -q --sample=1000 --sample-stack=0 -o f.bin ./prog "$PWD/libhot.so"
expect_exit 0 pfsym f.bin
expect_exit 0 pfdump --jsonl f.bin
n=$(grep -c '"type":"sample"' out.txt)
m=$(grep '"type":"sample"' out.txt | grep -c '"function":"main"' || true)
echo "frame pointers only: $m of $n samples reach main"
[ $((m * 2)) -lt "$n" ] || fail "frame pointers reached main on $m of $n samples: the test proves nothing"
# Bad sizes are usage errors.
expect_exit 2 pfrec --sample-stack=12 true
contains err.txt "invalid sample stack size '12'"
expect_exit 2 pfrec --sample-stack=1M true
