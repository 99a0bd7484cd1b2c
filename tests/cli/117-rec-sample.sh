# pfrec --sample --sched on a program without the client: cpu-clock samples
# of every thread (one created later, a forked child that does not exec)
# with frame-pointer callstacks that pfsym resolves, and context switches.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
need_perf_events
cpu_burner
cat >plain.c <<'C'
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cpu_burner.h"
SPIN(hot_main, 200000, 1)
SPIN(hot_worker, 200000, 2)
SPIN(hot_child, 200000, 3)
static void *worker(void *a) { (void)a; hot_worker(0.1); return NULL; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	hot_main(0.2);
	pthread_join(t, NULL);
	pid_t p = fork();
	if (p == 0) {
		hot_child(0.05);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	return 0;
}
C
$CC -O2 -g -fno-omit-frame-pointer -pthread -o plain plain.c || fail "cannot build plain"
expect_exit 0 pfrec -q --sample=1000 --sched -o s.bin ./plain
contains err.txt "'./plain' did not connect to the profev client; the trace holds only samples and context switches"
expect_exit 0 pfdump --jsonl s.bin
# Three threads in two processes sampled.
[ "$(grep '"type":"sample"' out.txt | sed 's/.*"tid":\([0-9]*\).*/\1/' | sort -u | wc -l)" -eq 3 ] ||
	fail "samples of $(grep '"type":"sample"' out.txt | sed 's/.*"tid":\([0-9]*\).*/\1/' | sort -u | wc -l) threads, expected 3"
grep -q '"type":"switch_out".*"preempted":\(true\|false\)' out.txt || fail "no switch_out"
grep -q '"type":"switch_in","name":"","cpu":[0-9]' out.txt || grep -q '"type":"switch_in".*"cpu":[0-9]' out.txt || fail "no switch_in"
# The program's module carries its build-id.
id=$(readelf -n plain | sed -n 's/.*Build ID: *//p')
expect_exit 0 pfsym s.bin
expect_exit 0 pfdump s.bin
# Innermost frames: the spinning functions, in the right proportions
# (samples per CPU second: 1000, within 15%).
count() { grep -A1 ' sample ' out.txt | grep -c "#0  $1 " || true; }
m=$(count hot_main) w=$(count hot_worker) c=$(count hot_child)
echo "hot_main $m hot_worker $w hot_child $c"
[ "$m" -ge 170 ] && [ "$m" -le 230 ] || fail "hot_main: $m samples for 0.2 s of CPU"
[ "$w" -ge 85 ] && [ "$w" -le 115 ] || fail "hot_worker: $w samples for 0.1 s of CPU"
[ "$c" -ge 40 ] && [ "$c" -le 60 ] || fail "hot_child: $c samples for 0.05 s of CPU"
# Frame pointers lead back to main and to the thread's start routine.
grep -A3 ' sample ' out.txt | grep -A1 '#0  hot_main ' | grep -q '#1  main ' || fail "hot_main not called from main"
grep -A3 ' sample ' out.txt | grep -A1 '#0  hot_worker ' | grep -q '#1  worker ' || fail "hot_worker not called from worker"
# The trace names the module with its build-id (pfsym found it by path).
expect_exit 0 pfdump --jsonl s.bin
contains out.txt "\"module\":\"$PWD/plain\""
[ -n "$id" ] || fail "plain has no build-id"
# A flame graph of the samples: one line per distinct stack, outermost
# first under the thread, its weight the samples that stack had.
expect_exit 0 pfconv -q to folded --samples -o s.folded s.bin
awk '{ n += $NF } END { print n }' s.folded >folded-total.txt
[ "$(cat folded-total.txt)" -eq "$(count_type s.bin sample)" ] ||
	fail "the flame graph weighs $(cat folded-total.txt), the trace has $(count_type s.bin sample) samples"
w=$(awk '/;main;hot_main [0-9]+$/ { n += $NF } END { print n + 0 }' s.folded)
[ "$w" -eq "$m" ] || { cat s.folded; fail "main;hot_main weighs $w in the flame graph, $m samples in the listing"; }
grep -q '^plain ([0-9]*);.*;worker;hot_worker [0-9]*$' s.folded || { cat s.folded; fail "no worker;hot_worker stack"; }
expect_exit 2 pfconv to chrome --samples s.bin
contains err.txt "--samples applies to folded and svg output only"
# Chrome JSON: every sample a P event whose sf is in stackFrames, its
# innermost frame the function the listing names.
expect_exit 0 pfconv -q to chrome -o s.json s.bin
python3 - s.json "$(count_type s.bin sample)" "$m" <<'PY' || fail "the Chrome JSON's samples"
import json, sys
d = json.load(open(sys.argv[1]))
p = [e for e in d["traceEvents"] if e["ph"] == "P"]
sf = d.get("stackFrames", {})
assert len(p) == int(sys.argv[2]), (len(p), sys.argv[2])
assert all(e["sf"] in sf for e in p)
hot = sum(1 for e in p if sf[e["sf"]]["name"] == "hot_main")
assert hot == int(sys.argv[3]), (hot, sys.argv[3])
PY
