# --drop: the program never waits; what is lost is counted and placed.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog burst <<'C'
#include <profev.h>
PROFEV_CATEGORY(app, "application");
int main(void) {
	for (int i = 0; i < 500000; i++) { PROFEV_ZONE(app, "z"); }
	return 0;
}
C
expect_exit 0 pfrec -q --drop --buffer 16K -o d.bin ./burst
mv err.txt rec-err.txt
expect_exit 0 pfdump --stats d.bin
lost=$(sed -n 's/^lost events: *\([0-9]*\).*/\1/p' out.txt)
zones=$(count_type d.bin zone_begin)
ends=$(count_type d.bin zone_end)
[ $((zones + ends + lost)) -eq 1000000 ] || fail "$zones + $ends + $lost lost != 1000000"
if [ "$lost" -gt 0 ]; then
	contains rec-err.txt "events were dropped"
	[ "$(count_type d.bin lost)" -gt 0 ] || fail "no lost events in the trace"
fi
# Events dropped until the program ended, with no room ever made in the
# ring, are placed too (at the end): the program stops pfrec for its whole
# burst, as a loaded machine may.
build_prog stopper <<'C'
#include <profev.h>
#include <signal.h>
#include <unistd.h>
PROFEV_CATEGORY(app, "application");
int main(void) {
	kill(getppid(), SIGSTOP);
	for (int i = 0; i < 500000; i++) { PROFEV_ZONE(app, "z"); }
	kill(getppid(), SIGCONT);
	return 0;
}
C
expect_exit 0 pfrec -q --drop --buffer 16K -o s.bin ./stopper
contains err.txt "events were dropped"
expect_exit 0 pfdump --stats s.bin
lost=$(sed -n 's/^lost events: *\([0-9]*\).*/\1/p' out.txt)
zones=$(count_type s.bin zone_begin)
ends=$(count_type s.bin zone_end)
[ "$lost" -gt 0 ] && [ $((zones + ends + lost)) -eq 1000000 ] ||
	fail "stopped pfrec: $zones + $ends + $lost lost != 1000000"
[ "$(count_type s.bin lost)" -gt 0 ] || fail "stopped pfrec: no lost events in the trace"
# Without --drop nothing is lost, whatever the buffer size.
expect_exit 0 pfrec -q --buffer 16K -o l.bin ./burst
[ "$(count_type l.bin zone_end)" -eq 500000 ] || fail "lossless mode lost events"
