/*
 * GPU zones for the targets: the reader hands each gpu zones chunk's zones
 * over (profev_reader_on_gpu_zones()); the loop keeps them until the run
 * of events in hand is converted, then nests them per context, as issued
 * (a zone inside the one open before it, cut to fit it; one after it ends
 * it), applies the window, and calls the target's gpu_begin and gpu_end
 * in time order per context. A zone's end is known when it begins, so
 * ends wait only for the zones they hold.
 */
#include "conv/conv_internal.h"
#include "trace/trace_internal.h"

struct conv_gpu {
	struct conv_gpu_track *ctx[PROFEV_GPU_MAX_CONTEXTS];
	struct profev_gpu_zone *pending;
	uint32_t npending, cap;
	int failed;                  /* no memory to hold zones */
};

/* The reader's callback: zones held until conv_gpu_flush(). */
static void on_zones(void *arg, const struct profev_gpu_zone *z, size_t n)
{
	struct conv_loop *l = arg;
	struct conv_gpu *g = l->gpu;
	if (!g && !(g = l->gpu = calloc(1, sizeof *g))) {
		l->gpu_failed = 1;
		return;
	}
	if (array_grow((void **)&g->pending, &g->cap, sizeof *g->pending, (uint64_t)g->npending + n)) {
		g->failed = 1;
		return;
	}
	memcpy(g->pending + g->npending, z, n * sizeof *z);
	g->npending += (uint32_t)n;
}

void conv_gpu_start(struct conv_loop *l)
{
	if (l->c.ops->gpu_begin)
		profev_reader_on_gpu_zones(l->c.r, on_zones, l);
}

static int end_top(struct conv *c, struct conv_gpu_track *t)
{
	struct conv_gpu_zone *z = &t->stack[t->depth - 1];
	c->now = z->end;
	int rc = c->ops->gpu_end ? c->ops->gpu_end(c, t, z) : 0;
	if (--t->depth)
		t->stack[t->depth - 1].child += z->end - z->begin;
	return rc;
}

static int zone(struct conv_loop *l, const struct profev_gpu_zone *src)
{
	struct conv *c = &l->c;
	struct conv_gpu *g = l->gpu;
	if (src->flags & PROFEV_GPUZ_UNMAPPED || src->end_ns < l->from || src->begin_ns > l->to)
		return 0;
	struct conv_gpu_track *t = g->ctx[src->ctx];
	if (!t) {
		if (!(t = g->ctx[src->ctx] = calloc(1, sizeof *t)))
			return PROFEV_E_NOMEM;
		t->ctx = src->ctx;
		t->part = UINT32_MAX;
	}
	uint64_t b = src->begin_ns < l->from ? l->from : src->begin_ns;
	uint64_t e = src->end_ns > l->to ? l->to : src->end_ns;
	int rc;
	while (t->depth && t->stack[t->depth - 1].end <= b)
		if ((rc = end_top(c, t)))
			return rc;
	if (t->depth) {
		const struct conv_gpu_zone *p = &t->stack[t->depth - 1];
		if (b < p->begin)
			b = p->begin;
		if (e > p->end)
			e = p->end;
	} else if (b < t->last) {
		b = t->last; /* a zone begun before the previous one ended, not in it */
		if (e < b)
			e = b;
	}
	if (t->depth == CONV_GPU_MAX_DEPTH) {
		t->dropped++;
		return 0;
	}
	struct conv_gpu_zone *z = &t->stack[t->depth++];
	*z = (struct conv_gpu_zone){ .begin = b, .end = e, .name = src->name };
	if (t->depth == 1)
		t->last = e;
	c->now = b;
	c->st.zones++;
	return c->ops->gpu_begin(c, t, z);
}

int conv_gpu_flush(struct conv_loop *l, int last)
{
	struct conv_gpu *g = l->gpu;
	if (l->gpu_failed || (g && g->failed))
		return PROFEV_E_NOMEM;
	if (!g)
		return 0;
	int rc = 0;
	if (g->npending && !l->in_part && (rc = conv_part_open(l)))
		return rc;
	for (uint32_t i = 0; i < g->npending && !rc; i++)
		rc = zone(l, &g->pending[i]);
	g->npending = 0;
	for (unsigned i = 0; last && i < PROFEV_GPU_MAX_CONTEXTS && !rc; i++)
		while (g->ctx[i] && g->ctx[i]->depth && !rc)
			rc = end_top(&l->c, g->ctx[i]);
	return rc;
}

void conv_gpu_free(struct conv_loop *l)
{
	profev_reader_on_gpu_zones(l->c.r, NULL, NULL);
	if (!l->gpu)
		return;
	for (unsigned i = 0; i < PROFEV_GPU_MAX_CONTEXTS; i++)
		free(l->gpu->ctx[i]);
	free(l->gpu->pending);
	free(l->gpu);
	l->gpu = NULL;
}
