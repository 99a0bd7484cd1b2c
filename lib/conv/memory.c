/*
 * Memory events as the targets see them (struct conv_mem): the blocks still
 * allocated by address and the live bytes per pool, kept over the whole
 * trace and every thread, so that a window or a thread filter never
 * changes the counters' values.
 */
#include "conv/zone_stack.h"

void conv_memory_free(struct conv_loop *l)
{
	u64_map_free(&l->live_blocks);
	free(l->pools);
}

static struct mem_pool *mem_pool_of(struct conv_loop *l, uint32_t name)
{
	for (unsigned i = 0; i < l->npools; i++)
		if (l->pools[i].name == name)
			return &l->pools[i];
	if (l->npools == l->pools_cap) {
		unsigned cap = l->pools_cap ? l->pools_cap * 2 : 8;
		void *p = realloc(l->pools, cap * sizeof(*l->pools));
		if (!p)
			return NULL;
		l->pools = p;
		l->pools_cap = cap;
	}
	struct mem_pool *p = &l->pools[l->npools++];
	p->name = name;
	p->live = 0;
	return p;
}

/* Pass a memory event on when it falls in the window: its counter always,
 * its thread's part (the allocation and its callstack) when the thread is
 * kept. */
static int memory_emit(struct conv_loop *l, struct conv_thread *t, const struct profev_event *ev,
		       const struct conv_mem *m, uint64_t ts)
{
	struct conv *c = &l->c;
	if (ts < l->from || ts > l->to)
		return 0;
	c->st.events_out++;
	l->part_events++;
	return c->ops->memory(c, conv_emitting(t) ? t : NULL, ev, m);
}

/* An allocation over a block still live first frees it, and a free of an
 * unknown address is not passed on. */
int conv_memory_event(struct conv_loop *l, struct conv_thread *t, const struct profev_event *ev,
		      uint64_t ts)
{
	struct conv_mem m;
	struct mem_pool *p;
	int rc;
	struct live_block *b = ev->addr ? u64_map_find(&l->live_blocks, ev->addr) : NULL;
	if (ev->type == PROFEV_EV_MEM_FREE) {
		if (!b)
			return 0;
		struct live_block gone = *b;
		u64_map_remove(&l->live_blocks, b);
		if (!(p = mem_pool_of(l, gone.pool)))
			return PROFEV_E_NOMEM;
		p->live -= gone.size;
		m = (struct conv_mem){ gone.size, p->live, gone.pool };
		return memory_emit(l, t, ev, &m, ts);
	}
	if (b) {
		/* Allocated again without a free: the old block is gone. */
		struct live_block gone = *b;
		if (!(p = mem_pool_of(l, gone.pool)))
			return PROFEV_E_NOMEM;
		p->live -= gone.size;
		struct profev_event fr = *ev;
		fr.type = PROFEV_EV_MEM_FREE;
		fr.name = gone.pool;
		fr.payload = 0;
		fr.stack = 0;
		m = (struct conv_mem){ gone.size, p->live, gone.pool };
		if ((rc = memory_emit(l, t, &fr, &m, ts)))
			return rc;
	}
	if (!(p = mem_pool_of(l, ev->name)))
		return PROFEV_E_NOMEM;
	p->live += ev->payload;
	if (ev->addr) {
		if (!(b = u64_map_insert(&l->live_blocks, ev->addr, NULL)))
			return PROFEV_E_NOMEM;
		b->size = ev->payload;
		b->pool = ev->name;
	}
	m = (struct conv_mem){ ev->payload, p->live, ev->name };
	return memory_emit(l, t, ev, &m, ts);
}

/* Before the event that starts a part or the window: counters there show
 * what is allocated already. */
int conv_memory_snapshot(struct conv_loop *l, uint64_t ts)
{
	struct conv *c = &l->c;
	uint64_t now = c->now;
	int rc = 0;
	l->snap = 0;
	c->now = ts;
	for (unsigned i = 0; i < l->npools && !rc; i++) {
		struct profev_event ev = { .ts = ts, .type = PROFEV_EV_MEM_FREE, .name = l->pools[i].name };
		struct conv_mem m = { 0, l->pools[i].live, l->pools[i].name };
		l->part_events++;
		rc = c->ops->memory(c, NULL, &ev, &m);
	}
	c->now = now;
	return rc;
}
