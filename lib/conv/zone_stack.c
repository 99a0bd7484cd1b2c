/*
 * Each track's open zones through the window and the parts: the cold half
 * of the zone stack, whose hot half (push, pop, the window test) zone_stack.h
 * inlines into the loop.
 */
#include <inttypes.h>
#include "conv/zone_stack.h"

int conv_open_all(struct conv_loop *l, struct conv_thread *t, uint64_t ts)
{
	int rc = 0;
	for (unsigned i = 0; i < t->depth && !rc; i++)
		rc = conv_zone_emit_begin(l, t, &t->stack[i], ts, CONV_EDGE_CUT);
	return rc;
}

int conv_close_all(struct conv_loop *l, struct conv_thread *t, uint64_t ts, int edge)
{
	int rc = 0;
	unsigned depth = t->depth;
	for (; t->depth && !rc; t->depth--)
		rc = conv_zone_emit_end(l, t, ts, edge);
	t->depth = depth;
	return rc;
}

__attribute__((noinline)) int conv_advance_slow(struct conv_loop *l, struct conv_thread *t, uint64_t ts)
{
	int rc = 0;
	if (t->phase == 0 && ts >= l->from) {
		t->phase = 1;
		if (t->selected)
			rc = conv_open_all(l, t, l->from > t->last_ts ? l->from : t->last_ts);
	}
	if (!rc && t->phase == 1 && ts > l->to) {
		if (t->selected)
			rc = conv_close_all(l, t, l->to, CONV_EDGE_CUT);
		t->phase = 2;
	}
	return rc;
}

void conv_zone_too_deep(struct conv_loop *l, struct conv_thread *t, uint64_t ts, uint32_t name)
{
	char tb[32], wb[40];
	t->dropped++;
	conv_warn(l, PROFEV_CONV_W_TOO_DEEP, "%s (%" PRIu32 "): zone '%s' at %s nested deeper than %d: dropped",
		  conv_track_name(t, tb), t->tid, profev_reader_string(l->c.r, name), conv_when(l, ts, wb),
		  PROFEV_CONV_MAX_DEPTH);
}
