/* pfdump --compare's rows: two sides' series matched by name (and call
 * site), each with its verdict; see compare.h and pfdump(1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "show/compare.h"

const char *const cmp_verdict_names[] = {
	[CMP_SAME] = "same",           [CMP_SLOWER] = "slower",       [CMP_FASTER] = "faster",
	[CMP_RARE] = "too_rare",       [CMP_ONLY_BASE] = "only_base", [CMP_ONLY_NEW] = "only_new",
	[CMP_MORE] = "more",           [CMP_LESS] = "less",
};

void profev_compare_opts_init(struct profev_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.05;
	o->threshold = 0.05;
	o->min_count = 20;
	o->sort = PROFEV_COMPARE_BY_CHANGE;
	o->format = PROFEV_DUMP_TEXT;
	o->base_name = "base";
	o->new_name = "new";
}

static int series_cmp(const struct cmp_series *a, const struct cmp_series *b)
{
	int c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->where ? a->where : "", b->where ? b->where : "");
}

/* Direction of a change that is significant at level and at least the
 * threshold in ratio: +1 slower, -1 faster, 0 neither. */
static int flag(double p, double z, double ratio, double level, double threshold)
{
	if (p < 0 || p >= level)
		return 0;
	if (z > 0 && ratio >= 1 + threshold)
		return 1;
	if (z < 0 && ratio <= 1 - threshold)
		return -1;
	return 0;
}

static void decide(struct cmp_row *w, const struct profev_compare_opts *o)
{
	const struct cmp_series *a = w->a, *b = w->b;
	compare_summarize(a->v, a->n, &w->sa);
	compare_summarize(b->v, b->n, &w->sb);
	w->p = w->tail_p = -1;
	if (a->n < o->min_count || b->n < o->min_count || !a->n || !b->n) {
		w->verdict = CMP_RARE;
		return;
	}
	compare_median_ratio(a->v, a->n, b->v, b->n, o->alpha, &w->ratio, &w->lo, &w->hi);
	w->p99_ratio = (double)(w->sb.p99 ? w->sb.p99 : 1) / (double)(w->sa.p99 ? w->sa.p99 : 1);
	w->p = compare_mann_whitney(a->v, a->n, b->v, b->n, &w->z);
	w->tail_p = compare_tail(a->v, a->n, b->v, b->n, &w->tail_z);
	/* Two tests share alpha (Bonferroni): a row is flagged by chance with
	 * probability alpha at most. Whether the tail can be tested depends
	 * on the pooled values alone, so the rank test may take all of alpha
	 * when it cannot. */
	double bulk_alpha = w->tail_p >= 0 ? o->alpha * (1 - TAIL_SHARE) : o->alpha;
	int bulk = flag(w->p, w->z, w->ratio, bulk_alpha, o->threshold);
	int tail = flag(w->tail_p, w->tail_z, w->p99_ratio, o->alpha * TAIL_SHARE, o->threshold);
	if (bulk > 0 || tail > 0) {
		w->verdict = CMP_SLOWER;
		w->by_tail = bulk <= 0;
	} else if (bulk < 0 || tail < 0) {
		w->verdict = CMP_FASTER;
		w->by_tail = bulk == 0;
	} else {
		w->verdict = CMP_SAME;
	}
	w->change = fabs(log(w->by_tail ? w->p99_ratio : w->ratio));
}

static void decide_alloc(struct cmp_row *w, const struct profev_compare_opts *o)
{
	const struct cmp_alloc *a = w->alloc_a, *b = w->alloc_b;
	w->p = w->tail_p = -1;
	w->ratio = (double)(b->bytes ? b->bytes : 1) / (double)(a->bytes ? a->bytes : 1);
	w->verdict = w->ratio >= 1 + o->threshold ? CMP_MORE : w->ratio <= 1 - o->threshold ? CMP_LESS : CMP_SAME;
	w->change = fabs(log(w->ratio));
}

static int rank_of(enum cmp_verdict v)
{
	switch (v) {
	case CMP_SLOWER: case CMP_MORE: return 0;
	case CMP_FASTER: case CMP_LESS: return 1;
	case CMP_SAME: return 2;
	case CMP_RARE: return 3;
	default: return 4;
	}
}

static uint64_t total_of(const struct cmp_row *w)
{
	if (w->kind == CMP_ALLOC)
		return (w->alloc_a ? w->alloc_a->bytes : 0) + (w->alloc_b ? w->alloc_b->bytes : 0);
	return w->sa.total + w->sb.total;
}

static int by_name(const struct cmp_row *x, const struct cmp_row *y)
{
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->where ? x->where : "", y->where ? y->where : "");
}

static int by_name_order(const void *p, const void *q)
{
	return by_name(p, q);
}

static int by_change_order(const void *p, const void *q)
{
	const struct cmp_row *x = p, *y = q;
	int rx = rank_of(x->verdict), ry = rank_of(y->verdict);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->change != y->change)
		return x->change > y->change ? -1 : 1;
	return by_name(x, y);
}

static int by_total_order(const void *p, const void *q)
{
	const struct cmp_row *x = p, *y = q;
	uint64_t tx = total_of(x), ty = total_of(y);
	if (tx != ty)
		return tx > ty ? -1 : 1;
	return by_name(x, y);
}

void cmp_table_free(struct cmp_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

static int alloc_rows(const struct profev_compare_side *base, const struct profev_compare_side *new_,
		      const struct profev_compare_opts *o, struct cmp_table *t)
{
	if (!base->mem_events || !new_->mem_events)
		return 0;
	t->rows = calloc((size_t)base->nallocs + new_->nallocs + 1, sizeof(*t->rows));
	if (!t->rows)
		return -1;
	uint32_t i = 0, k = 0;
	while (i < base->nallocs || k < new_->nallocs) {
		struct cmp_row *w = &t->rows[t->n++];
		w->kind = CMP_ALLOC;
		int c = i == base->nallocs ? 1 : k == new_->nallocs ? -1
			: strcmp(base->allocs[i].stack, new_->allocs[k].stack);
		if (c <= 0)
			w->alloc_a = &base->allocs[i++];
		if (c >= 0)
			w->alloc_b = &new_->allocs[k++];
		w->name = (w->alloc_a ? w->alloc_a : w->alloc_b)->stack;
		if (!w->alloc_b)
			w->verdict = CMP_ONLY_BASE, w->p = w->tail_p = -1;
		else if (!w->alloc_a)
			w->verdict = CMP_ONLY_NEW, w->p = w->tail_p = -1;
		else
			decide_alloc(w, o);
	}
	return 0;
}

int cmp_rows(const struct profev_compare_side *base, const struct profev_compare_side *new_, enum cmp_kind kind,
	     const struct profev_compare_opts *o, struct cmp_table *t)
{
	t->rows = NULL;
	t->n = 0;
	if (kind == CMP_ALLOC) {
		if (alloc_rows(base, new_, o, t))
			return -1;
	} else {
		const struct cmp_series *sa = kind == CMP_FRAMES ? base->frames : kind == CMP_ZONE ? base->zones : base->sites;
		const struct cmp_series *sb = kind == CMP_FRAMES ? new_->frames : kind == CMP_ZONE ? new_->zones : new_->sites;
		uint32_t na = kind == CMP_FRAMES ? base->nframes : kind == CMP_ZONE ? base->nzones : base->nsites;
		uint32_t nb = kind == CMP_FRAMES ? new_->nframes : kind == CMP_ZONE ? new_->nzones : new_->nsites;
		t->rows = calloc((size_t)na + nb + 1, sizeof(*t->rows));
		if (!t->rows)
			return -1;
		uint32_t i = 0, k = 0;
		while (i < na || k < nb) {
			struct cmp_row *w = &t->rows[t->n++];
			w->kind = kind;
			int c = i == na ? 1 : k == nb ? -1 : series_cmp(&sa[i], &sb[k]);
			if (c <= 0)
				w->a = &sa[i++];
			if (c >= 0)
				w->b = &sb[k++];
			const struct cmp_series *any = w->a ? w->a : w->b;
			w->name = any->name;
			w->where = any->where;
			if (w->a && w->b) {
				decide(w, o);
				continue;
			}
			w->p = w->tail_p = -1;
			w->verdict = w->a ? CMP_ONLY_BASE : CMP_ONLY_NEW;
			if (w->a)
				compare_summarize(w->a->v, w->a->n, &w->sa);
			else
				compare_summarize(w->b->v, w->b->n, &w->sb);
		}
	}
	if (t->n > 1)
		qsort(t->rows, t->n, sizeof(*t->rows),
		      o->sort == PROFEV_COMPARE_BY_NAME ? by_name_order
		      : o->sort == PROFEV_COMPARE_BY_TOTAL ? by_total_order : by_change_order);
	return 0;
}
