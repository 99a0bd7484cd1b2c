# perf_event_open refused (a seccomp filter, as in containers): pfrec says
# so in one line and records the program's client events without samples.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
NOPERF="$PROFEV_BUILD/tools/noperf"
build_prog app <<'C'
#include <profev.h>
PROFEV_CATEGORY(app, "application");
int main(void)
{
	for (int i = 0; i < 10; i++) {
		PROFEV_ZONE(app, "step");
	}
	return 3;
}
C
"$NOPERF" true || skip "no seccomp filters here"
expect_exit 3 "$NOPERF" pfrec -q --sample --sched -o a.bin ./app
[ "$(wc -l <err.txt)" -eq 1 ] || fail "more than one line of warning: $(cat err.txt)"
contains err.txt "pfrec: warning: perf_event_open refused: Permission denied; recording without samples and context switches"
[ "$(count_type a.bin zone_begin)" -eq 10 ] || fail "the client's zones were not recorded"
[ "$(count_type a.bin sample)" -eq 0 ] || fail "samples despite the refusal"
# Without the client either, the trace is still written, and empty.
cat >plain.c <<'C'
int main(void) { return 0; }
C
$CC -o plain plain.c || fail "cannot build plain"
expect_exit 0 "$NOPERF" pfrec -q --sample -o p.bin ./plain
contains err.txt "perf_event_open refused: Permission denied; recording without samples"
contains err.txt "did not connect to the profev client (not linked with -lprofev-client?); the trace has no events"
expect_exit 0 pfdump --stats p.bin
