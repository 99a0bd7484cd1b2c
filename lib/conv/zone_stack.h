/*
 * conv/zone_stack.h - the hot half of the read loop's zone stack (not
 * installed): inlined into the loop, which calls it for every event and
 * zone, and shared with the loop's other files (conv_internal.h's struct
 * conv_loop). A call per event and per zone, with their saved registers,
 * was a tenth of a conversion. The cold half is zone_stack.c.
 */
#ifndef PROFEV_CONV_ZONE_STACK_H
#define PROFEV_CONV_ZONE_STACK_H
#include "conv/conv_internal.h"

#define CONV_HOT __attribute__((always_inline))

/* t's events go to the output: its thread is kept and it is in the window. */
static inline int conv_emitting(const struct conv_thread *t)
{
	return t->selected && t->phase == 1;
}

/* ops->thread for t, once per part. */
static inline int conv_announce(struct conv_loop *l, struct conv_thread *t)
{
	if (t->announced)
		return 0;
	t->announced = 1;
	return l->c.ops->thread(&l->c, t);
}

static inline int conv_zone_emit_begin(struct conv_loop *l, struct conv_thread *t,
				       struct conv_zone *z, uint64_t at, int edge)
{
	int rc = conv_announce(l, t);
	if (rc)
		return rc;
	z->shown = at;
	z->child = 0;
	l->part_events++;
	return l->c.ops->zone_begin(&l->c, t, z, edge);
}

/* Write the end of t's top zone at ts; it stays on the stack. */
static inline int conv_zone_emit_end(struct conv_loop *l, struct conv_thread *t, uint64_t ts, int edge)
{
	struct conv_zone *z = &t->stack[t->depth - 1];
	if (ts < z->shown)
		ts = z->shown;
	if (t->depth > 1)
		t->stack[t->depth - 2].child += ts - z->shown;
	if (t->kind == CONV_THREAD)
		l->c.st.zones++;
	l->part_events++;
	return l->c.ops->zone_end(&l->c, t, z, ts, edge);
}

/* Move t through the window for an event at ts: zones open when the
 * window starts appear at its start, those open when it ends end there.
 * Inside the window, nothing to do. */
static inline CONV_HOT int conv_advance(struct conv_loop *l, struct conv_thread *t, uint64_t ts)
{
	if (__builtin_expect(t->phase == 1 && ts <= l->to, 1))
		return 0;
	return conv_advance_slow(l, t, ts);
}

/* A zone begins on t at ts. aux: on a frames track the frame number, on a
 * thread the callstack id; edge: CONV_EDGE_NORMAL, or CONV_EDGE_BEFORE
 * for a zone begun before the trace's window. */
static inline CONV_HOT int conv_zone_push_edge(struct conv_loop *l, struct conv_thread *t, uint64_t ts,
					       uint32_t name, uint32_t cat, uint64_t aux, int edge)
{
	if (t->depth == PROFEV_CONV_MAX_DEPTH) {
		conv_zone_too_deep(l, t, ts, name);
		return 0;
	}
	if (t->depth == t->cap) {
		unsigned cap = t->cap ? t->cap * 2 : 16;
		void *p = realloc(t->stack, cap * sizeof(*t->stack));
		if (!p)
			return PROFEV_E_NOMEM;
		t->stack = p;
		t->cap = cap;
	}
	struct conv_zone *z = &t->stack[t->depth++];
	memset(z, 0, sizeof(*z));
	z->begin = z->shown = ts;
	z->name = name;
	z->cat = cat;
	z->frame = aux; /* or z->stack: one field */
	z->args = t->nargs;
	l->open_zones++;
	if (!conv_emitting(t))
		return 0;
	l->c.st.events_out++;
	return conv_zone_emit_begin(l, t, z, ts, edge);
}

static inline CONV_HOT int conv_zone_push(struct conv_loop *l, struct conv_thread *t, uint64_t ts,
					  uint32_t name, uint32_t cat, uint64_t aux)
{
	return conv_zone_push_edge(l, t, ts, name, cat, aux, CONV_EDGE_NORMAL);
}

/* t's top zone ends at ts. */
static inline CONV_HOT int conv_zone_pop(struct conv_loop *l, struct conv_thread *t, uint64_t ts, int edge)
{
	int rc = 0;
	if (conv_emitting(t)) {
		l->c.st.events_out++;
		rc = conv_zone_emit_end(l, t, ts, edge);
	}
	t->depth--;
	t->nargs = t->stack[t->depth].args;
	l->open_zones--;
	return rc;
}
#endif
