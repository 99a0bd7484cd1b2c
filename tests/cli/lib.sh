# Sourced by the CLI tests: small assertions that say what broke.
# Tests run from a scratch directory with the build directory first in PATH.
set -u
GOLDEN="$PROFEV_ROOT/tests/golden"
MKTRACE="$PROFEV_BUILD/tools/mktrace"

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_exit CODE CMD...: runs CMD with stdout in out.txt, stderr in err.txt.
expect_exit() {
	want=$1; shift
	"$@" >out.txt 2>err.txt
	got=$?
	[ "$got" -eq "$want" ] || { cat err.txt >&2; fail "'$*' exited $got, expected $want"; }
}

# contains FILE TEXT: FILE has a line containing TEXT (fixed string).
contains() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "'$1' lacks '$2'"; }; }
lacks() { ! grep -qF -- "$2" "$1" || { grep -F -- "$2" "$1" | head -n 5 >&2; fail "'$1' has '$2'"; }; }

# skip REASON: ends the test as skipped (exit 77, which tests/run.sh counts
# as skipped, never as passed) when a tool or kernel feature it needs is
# missing.
skip() { echo "SKIP: $*"; exit 77; }

# need_perf_events: skips unless perf_event_open may sample this user's
# programs (perf_event_paranoid 2 or less: the default needs no privilege)
# and the commands run natively (qemu-user does not emulate the call).
need_perf_events() {
	[ -z "${PROFEV_EMULATOR:-}" ] ||
		skip "$PROFEV_EMULATOR (qemu-user) has no perf_event_open: no samples or context switches"
	[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)" -le 2 ] ||
		skip "perf_event_paranoid above 2"
}

# cpu_burner: writes ./cpu_burner.h for the programs of the sampling tests,
# which include it: cpu(), the calling thread's CPU time in seconds, a
# volatile sink, and SPIN(name, n, add), which defines a function
# `void name(double s)` that burns s seconds of its thread's CPU time
# whatever else the machine runs (noinline, so that samples land in it),
# reading the clock once every n additions of add to the sink so that
# nearly all the time is spent in the loop. A different add per function
# keeps the compiler from folding identical ones into one.
cpu_burner() {
	cat >cpu_burner.h <<'C'
#include <time.h>
__attribute__((unused)) static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
volatile double sink;
#define SPIN(name, n, add) \
	__attribute__((noinline)) void name(double s) \
	{ \
		for (double e = cpu() + s; cpu() < e;) \
			for (int i = 0; i < (n); i++) \
				sink += add; \
	}
C
}
