/*
 * The zones open on the program's threads when a recording's window ends
 * (a limit, a snapshot of the ring): each as a ZONE_AFTER event
 * (formats/trace.md, type 33), so that readers end them at the window's
 * edge rather than as zones never closed.
 */
#include "rec/rec_internal.h"

int open_zones_each(struct profev_recorder *r, uint64_t ts,
		    int (*fn)(void *ctx, struct profev_event *ev), void *ctx)
{
	for (uint32_t i = 0; i < r->nthr; i++) {
		const struct thr *t = r->thr[i];
		if (!t)
			continue;
		uint32_t known = t->depth < t->stack_cap ? t->depth : t->stack_cap;
		for (uint32_t k = known; k-- > 0;) {
			struct profev_event ev;
			memset(&ev, 0, sizeof ev);
			ev.ts = ts > t->last_ns ? ts : t->last_ns;
			ev.tid = t->tid;
			ev.type = PROFEV_EV_ZONE_AFTER;
			ev.name = t->stack[2 * k];
			ev.payload = t->stack[2 * k + 1];
			ev.frame = r->marks; /* a snapshot's encoder numbers no frames */
			int rc = fn(ctx, &ev);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int emit_one(void *ctx, struct profev_event *ev)
{
	return emit_event(ctx, ev);
}

int open_zones_emit(struct profev_recorder *r, uint64_t ts)
{
	return open_zones_each(r, ts, emit_one, r);
}
