/*
 * window.c - the start and end of an attached recording as trace events
 * (rec_internal.h, formats/trace.md): the attach (34) with the frames the
 * program made before it, so that frames keep their true numbers; at a
 * detach, a zone-after event (33) for each zone still open, then the
 * detach (35). Zones open at the attach are found as their ends arrive
 * (decode.c writes the zone-before events, 32).
 */
#include "rec/rec_internal.h"

/* The trace time of a client tick, on no thread's clock. */
static uint64_t window_ns(const struct profev_recorder *r, uint64_t tick)
{
	if (tick < r->h.tick0)
		return early_tick_ns(r, tick);
	return r->h.mono0 + (uint64_t)((double)(tick - r->h.tick0) * r->ns_per_tick);
}

int window_begin(struct profev_recorder *r)
{
	if (!r->attached || r->window_open)
		return 0;
	r->window_open = 1;
	r->window_ns = window_ns(r, r->attach_tick);
	struct profev_event ev = { 0 };
	ev.ts = r->window_ns;
	ev.tid = r->h.pid;
	ev.type = PROFEV_EV_ATTACH;
	ev.payload = r->marks;
	return emit_event(r, &ev) < 0 ? -2 : 0;
}

int window_end(struct profev_recorder *r, uint64_t tick, uint64_t frames)
{
	if (!r->window_open || r->detached)
		return 0;
	r->detached = 1;
	uint64_t end = tick ? window_ns(r, tick) : 0;
	for (uint32_t i = 0; i < r->nthr; i++)
		if (r->thr[i] && r->thr[i]->last_ns > end)
			end = r->thr[i]->last_ns;
	for (uint32_t i = 0; i < r->nthr; i++) {
		struct thr *t = r->thr[i];
		if (!t)
			continue;
		while (t->depth > 0) {
			t->depth--;
			struct profev_event ev = { 0 };
			ev.ts = end;
			ev.tid = t->tid;
			ev.type = PROFEV_EV_ZONE_AFTER;
			if (t->depth < t->stack_cap) {
				ev.name = t->stack[2 * t->depth];
				ev.payload = t->stack[2 * t->depth + 1];
			}
			if (emit_event(r, &ev) < 0)
				return -2;
		}
		t->last_ns = end;
	}
	struct profev_event ev = { 0 };
	ev.ts = end;
	ev.tid = r->h.pid;
	ev.type = PROFEV_EV_DETACH;
	ev.payload = frames ? frames : r->marks;
	return emit_event(r, &ev) < 0 ? -2 : 0;
}
