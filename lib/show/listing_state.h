/* pfdump's event listing: the state its text and JSON Lines writers share. */
#ifndef PROFEV_SHOW_LISTING_STATE_H
#define PROFEV_SHOW_LISTING_STATE_H
#include <stdint.h>
#include <stdio.h>
#include "common/common.h"
#include "common/outbuf.h"
#include "common/u64_map.h"
#include "profev_dump.h"
#include "show/event_filter.h"
#include "show/time_order.h"
#include "show/zone_track.h"

/* JSONL: the arguments and flow marks of each thread's open zones, kept
 * until the zone ends, whose line lists them; and the arguments of its
 * next instant or message (POINT_ARG), which come right before it. */
struct pending {
	struct profev_event *ev;
	uint32_t n, cap;
	uint32_t *mark;       /* per open zone: n when it began */
	uint32_t depth, mark_cap;
	struct profev_event *point;
	uint32_t npoint, point_cap;
};

/* Lock names by address, from their waits, for the events that have none. */
struct lock_name {
	uint64_t addr;        /* the map's key */
	uint32_t name;
};

/* A thread's wait in progress, for the acquisition's wait time, and the
 * locks it holds, for their hold times: a thread's own events are in order. */
#define HELD_MAX 8
struct waiting {
	uint64_t addr, ts;
	struct { uint64_t addr, ts; } held[HELD_MAX];
	unsigned nheld;
};

struct dump {
	struct profev_reader *r;
	struct outbuf o;
	struct zone_track *zones;
	enum profev_dump_format format;
	uint64_t origin;
	int have_origin;
	struct pending *pend;  /* by zone_track thread index */
	struct waiting *waits; /* by zone_track thread index */
	uint32_t npend;
	struct u64_map locks;  /* struct lock_name by address */
	struct time_order *order;
	struct event_filter filter;
	uint64_t listed;
	int gpu_failed;        /* a GPU zone could not be held: no memory */
};

/* The name of the lock an event is about ("" if no wait named it yet). */
static inline const char *lock_name_of(struct dump *d, const struct profev_event *ev)
{
	uint32_t name = ev->name;
	if (!name && ev->payload) {
		const struct lock_name *l = u64_map_find(&d->locks, ev->payload);
		name = l ? l->name : 0;
	}
	return profev_reader_string(d->r, name);
}

/* The listing's output, a FILE. */
static inline int listing_sink_file(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : PROFEV_E_IO;
}

/* Text: an event's line, and its callstack's lines below it. */
void listing_text_event(struct dump *d, const struct profev_event *ev, const struct profev_event_info *in,
			uint64_t rel, int has_duration, uint64_t duration);

/* JSON Lines: an event's line; for a zone end (pend set), instant or
 * message, with the arguments and flows pend holds for it, which it then
 * forgets. */
void listing_json_event(struct dump *d, const struct profev_event *ev, const struct profev_event_info *in,
			uint64_t rel, int has_duration, uint64_t duration, struct pending *pend);

#endif
