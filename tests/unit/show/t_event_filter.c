/* The listing's filter: TIDs and names as pfconv reads them, both ends of
 * the time window included, a name matched from its first event on. */
#include "../check.h"
#include "show/event_filter.h"

static int keep(struct event_filter *f, uint64_t ts, uint32_t tid, const char *thread)
{
	struct profev_event ev = { .ts = ts, .tid = tid };
	return event_filter_keep(f, &ev, thread);
}

int main(void)
{
	struct event_filter f;
	event_filter_init(&f, NULL, 0, UINT64_MAX);
	event_filter_start(&f, 1000);
	CHECK_EQ(keep(&f, 0, 1, ""), 1); /* before the start: still kept */
	CHECK_EQ(keep(&f, UINT64_MAX, 1, ""), 1);
	event_filter_free(&f);

	event_filter_init(&f, "42", 100, 200);
	event_filter_start(&f, 1000);
	CHECK_EQ(keep(&f, 1099, 42, ""), 0);
	CHECK_EQ(keep(&f, 1100, 42, ""), 1);
	CHECK_EQ(keep(&f, 1200, 42, ""), 1);
	CHECK_EQ(keep(&f, 1201, 42, ""), 0);
	CHECK_EQ(keep(&f, 1150, 43, "42"), 0);
	event_filter_free(&f);

	/* "0" and "4x" are names; a name matches from its first event on. */
	event_filter_init(&f, "0", 0, UINT64_MAX);
	event_filter_start(&f, 5);
	CHECK_EQ(keep(&f, 6, 0, "main"), 0);
	CHECK_EQ(keep(&f, 7, 9, "0"), 1);
	event_filter_free(&f);
	event_filter_init(&f, "render", 0, UINT64_MAX);
	event_filter_start(&f, 5);
	CHECK_EQ(keep(&f, 6, 3, "loader"), 0);
	CHECK_EQ(keep(&f, 7, 3, "render"), 1);
	CHECK_EQ(keep(&f, 8, 3, "render 2"), 1); /* renamed: still chosen */
	CHECK_EQ(keep(&f, 9, 4, "render 2"), 0);
	event_filter_free(&f);

	/* Windows past the end of time select nothing, and do not wrap. */
	event_filter_init(&f, NULL, UINT64_MAX - 10, UINT64_MAX);
	event_filter_start(&f, 1000);
	CHECK_EQ(keep(&f, UINT64_MAX - 1, 1, ""), 0);
	event_filter_free(&f);
	event_filter_init(&f, NULL, 0, UINT64_MAX - 10);
	event_filter_start(&f, 1000);
	CHECK_EQ(keep(&f, UINT64_MAX, 1, ""), 1);
	event_filter_free(&f);
	return CHECK_DONE();
}
