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
	[ "$(count_type slow.bin zone_begin)" -eq 1200000 ] || fail "$mode: zones lost"
	[ "$(count_type slow.bin zone_end)" -eq 1200000 ] || fail "$mode: zone ends lost"
	[ "$(count_type slow.bin counter)" -eq 12000 ] || fail "$mode: counters lost"
done
