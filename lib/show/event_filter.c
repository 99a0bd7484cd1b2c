/* The listing's filter; see event_filter.h. */
#include <stdlib.h>
#include <string.h>
#include "show/event_filter.h"

void event_filter_init(struct event_filter *f, const char *thread, uint64_t from_ns, uint64_t to_ns)
{
	*f = (struct event_filter){ .from_ns = from_ns, .to_ns = to_ns, .to = UINT64_MAX };
	u64_map_init(&f->chosen, sizeof(uint64_t));
	if (!thread)
		return;
	/* As pfconv: all digits and not 0 is a TID, anything else a name. */
	char *end;
	unsigned long long v = strtoull(thread, &end, 10);
	if (*thread >= '0' && *thread <= '9' && !*end && v && v <= UINT32_MAX)
		f->tid = (uint32_t)v;
	else
		f->name = thread;
}

void event_filter_free(struct event_filter *f)
{
	u64_map_free(&f->chosen);
}

void event_filter_start(struct event_filter *f, uint64_t start)
{
	f->from = 0;
	if (f->from_ns)
		f->from = start + f->from_ns < start ? UINT64_MAX : start + f->from_ns;
	f->to = f->to_ns == UINT64_MAX || start + f->to_ns < start ? UINT64_MAX : start + f->to_ns;
}

int event_filter_keep(struct event_filter *f, const struct profev_event *ev, const char *thread)
{
	if (ev->ts < f->from || ev->ts > f->to)
		return 0;
	if (f->tid)
		return ev->tid == f->tid;
	if (!f->name)
		return 1;
	uint64_t key = (uint64_t)ev->tid + 1;
	if (u64_map_find(&f->chosen, key))
		return 1;
	if (strcmp(thread, f->name) != 0)
		return 0;
	return u64_map_insert(&f->chosen, key, NULL) ? 1 : -1;
}
