# A consumer that reads nothing for 5 s: pfrec's output blocks, the rings
# fill and the program waits, and nothing is lost. The program is
# deterministic, so every count is known; both transports.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog det <<'C'
#include <pthread.h>
#include <profev.h>
PROFEV_CATEGORY(app, "application");
static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < 300000; i++) {
		PROFEV_ZONE(app, "step");
		if (i % 100 == 0)
			PROFEV_COUNTER(app, "i", (double)i);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
C
for mode in shared pipe; do
	opt=; [ $mode = pipe ] && opt=--pipe
	# Small buffers fill at once.
	pfrec -q $opt --buffer 64K -o - ./det 2>err.txt | (sleep 5; cat) >slow.bin
	[ ! -s err.txt ] || { cat err.txt; fail "$mode: warnings"; }
	expect_exit 0 pfdump --stats slow.bin
	contains out.txt "lost events:  0"
	# The counts of "events by type" (a listing of 2.4M events is slow
	# under the sanitizers).
	by_type() { awk -v t="$1" '$1 == t { print $2; exit }' out.txt; }
	[ "$(by_type zone_begin)" = 1200000 ] || fail "$mode: zones lost: $(by_type zone_begin)"
	[ "$(by_type zone_end)" = 1200000 ] || fail "$mode: zone ends lost: $(by_type zone_end)"
	[ "$(by_type counter)" = 12000 ] || fail "$mode: counters lost: $(by_type counter)"
done
