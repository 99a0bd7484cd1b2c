/* Which events the listing shows: pfdump's --thread, --from and --to, with
 * pfconv's meaning. Not installed. */
#ifndef PROFEV_EVENT_FILTER_H
#define PROFEV_EVENT_FILTER_H
#include <stdint.h>
#include "common/u64_map.h"
#include "profev_trace.h"

struct event_filter {
	const char *name;     /* a thread name to match, NULL for none */
	uint32_t tid;         /* the thread given by TID, 0 for none */
	uint64_t from_ns, to_ns; /* after the trace's start; to_ns UINT64_MAX: no end */
	uint64_t from, to;    /* the same as timestamps, once the start is known */
	struct u64_map chosen; /* tid + 1 of each thread that has had the name */
};

/* thread: a TID (digits, not 0) or a thread name, NULL for every thread. */
void event_filter_init(struct event_filter *f, const char *thread, uint64_t from_ns, uint64_t to_ns);
void event_filter_free(struct event_filter *f);
/* The trace's start: what from_ns and to_ns count from. */
void event_filter_start(struct event_filter *f, uint64_t start);
/* 1 to show ev, whose thread then had the name thread; 0 to leave it out;
 * -1 on no memory. A thread matches a name from the first event that shows
 * it with that name, and goes on matching after a rename. */
int event_filter_keep(struct event_filter *f, const struct profev_event *ev, const char *thread);
#endif
