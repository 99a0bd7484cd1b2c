/* Frame statistics; see frame_stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "common/u64_map.h"
#include "show/frame_stats.h"

#define BUSY_MAX (1u << 20)   /* spans held in all the rings */
#define ZONE_SETS 16          /* sets that gather zones (the first ones) */

/* A stretch of a thread's time with one zone innermost. */
struct busy {
	uint64_t a, b;
	uint32_t name;
};

/* A thread's spans not yet placed by every set: v[seq & mask] for
 * head <= seq < tail. */
struct ring {
	struct busy *v;
	uint64_t mask, head, tail;
	uint64_t last;               /* its latest switch */
	uint64_t wholes;             /* fs->wholes when it last caught up */
	uint32_t tid;
};

/* Where a set has got in a thread's ring. */
struct ring_pos {
	uint64_t next;               /* the ring's next span to place */
	uint64_t frame;              /* the frame of the last one placed */
};

/* A frame among the longest so far, gathering its zones. */
struct candidate {
	uint64_t frame;              /* index in the set's frames */
	struct profev_frame_zone *z;
	uint32_t n, cap;
};

struct fset {
	uint32_t name;
	int discontinuous;
	struct profev_frame_time *frames; /* whole, in time order */
	uint8_t *slot;               /* per frame: candidate index + 1, 0 none */
	uint64_t n, cap;
	int open;
	struct profev_frame_time cur;/* begun, not ended */
	uint64_t spans;              /* discontinuous frames' numbers */
	uint64_t done;               /* end of the last whole frame */
	uint64_t disordered;
	struct candidate cand[PROFEV_WORST_FRAMES];
	uint32_t ncand;
	struct ring_pos *cur_of;       /* by thread number */
	uint32_t ncur;
	int partial;
};

struct frame_stats {
	const struct profev_reader *r;
	struct fset *sets;
	uint32_t nsets, capsets;
	struct u64_map set_of;       /* (discontinuous << 32 | name) + 1 -> set index */
	struct ring *rings;          /* by thread number */
	uint32_t nrings, caprings;
	uint64_t held;               /* spans in all rings */
	uint64_t wholes;             /* frames made whole, in all sets: a ring
	                                catches up when this has moved */
};

struct set_entry {
	uint64_t key;
	uint64_t index;
};

struct frame_stats *frame_stats_new(const struct profev_reader *r)
{
	struct frame_stats *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return NULL;
	fs->r = r;
	u64_map_init(&fs->set_of, sizeof(struct set_entry));
	return fs;
}

static void set_free(struct fset *s)
{
	for (uint32_t i = 0; i < s->ncand; i++)
		free(s->cand[i].z);
	free(s->frames);
	free(s->slot);
	free(s->cur_of);
}

void frame_stats_free(struct frame_stats *fs)
{
	if (!fs)
		return;
	for (uint32_t i = 0; i < fs->nsets; i++)
		set_free(&fs->sets[i]);
	free(fs->sets);
	for (uint32_t i = 0; i < fs->nrings; i++)
		free(fs->rings[i].v);
	free(fs->rings);
	u64_map_free(&fs->set_of);
	free(fs);
}

/* ---- zones of the longest frames ------------------------------------------ */

static int zone_add(struct frame_stats *fs, struct candidate *c, uint32_t tid, uint32_t name, uint64_t ns)
{
	/* Call sites have names of their own: count them under the shared one. */
	const struct profev_srcloc *loc = profev_reader_srcloc(fs->r, name);
	if (loc && loc->name)
		name = loc->name;
	for (uint32_t i = 0; i < c->n; i++) {
		if (c->z[i].tid == tid && c->z[i].name == name) {
			c->z[i].ns += ns;
			return 0;
		}
	}
	if (array_grow((void **)&c->z, &c->cap, sizeof(*c->z), (uint64_t)c->n + 1))
		return -1;
	c->z[c->n++] = (struct profev_frame_zone){ tid, name, ns };
	return 0;
}

static uint64_t frame_end(const struct profev_frame_time *f)
{
	return f->start_ts + f->ns;
}

/* Share span out among the candidate frames it overlaps. */
static int place(struct frame_stats *fs, struct fset *s, struct ring_pos *c, uint32_t tid, const struct busy *span)
{
	uint64_t k = c->frame;
	while (k < s->n && frame_end(&s->frames[k]) <= span->a)
		k++;
	c->frame = k;
	for (; k < s->n && s->frames[k].start_ts < span->b; k++) {
		if (!s->slot[k])
			continue;
		const struct profev_frame_time *f = &s->frames[k];
		uint64_t a = span->a > f->start_ts ? span->a : f->start_ts;
		uint64_t b = span->b < frame_end(f) ? span->b : frame_end(f);
		if (b > a && zone_add(fs, &s->cand[s->slot[k] - 1], tid, span->name, b - a))
			return -1;
	}
	return 0;
}

static struct ring_pos *ring_pos_of(struct fset *s, uint32_t ti)
{
	if (ti >= s->ncur) {
		uint32_t n = s->ncur ? s->ncur : 8;
		while (n <= ti)
			n *= 2;
		struct ring_pos *c = realloc(s->cur_of, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + s->ncur, 0, (n - s->ncur) * sizeof(*c));
		s->cur_of = c;
		s->ncur = n;
	}
	return &s->cur_of[ti];
}

/* Place the spans of ring ti the set's whole frames have passed (all of
 * them at the end). */
static int catch_up(struct frame_stats *fs, struct fset *s, uint32_t ti, int all)
{
	struct ring *g = &fs->rings[ti];
	struct ring_pos *c = ring_pos_of(s, ti);
	if (!c)
		return -1;
	if (c->next < g->head)
		c->next = g->head;
	for (; c->next < g->tail; c->next++) {
		const struct busy *span = &g->v[c->next & g->mask];
		if (!all && span->b > s->done)
			break;
		if (span->a < s->done && place(fs, s, c, g->tid, span))
			return -1;
	}
	return 0;
}

/* Forget what every set has placed; make room for one more span. */
static int ring_room(struct frame_stats *fs, struct ring *g, uint32_t ti)
{
	uint32_t zsets = fs->nsets < ZONE_SETS ? fs->nsets : ZONE_SETS;
	/* Before any set, the spans wait for the first. */
	uint64_t head = zsets ? g->tail : g->head;
	for (uint32_t i = 0; i < zsets; i++) {
		struct fset *s = &fs->sets[i];
		uint64_t next = ti < s->ncur ? s->cur_of[ti].next : 0;
		if (next < head)
			head = next;
	}
	if (head > g->head) {
		fs->held -= head - g->head;
		g->head = head;
	}
	if (g->v && g->tail - g->head <= g->mask && fs->held < BUSY_MAX)
		return 0;
	if (fs->held >= BUSY_MAX && g->tail > g->head) {
		/* Too far ahead of the marks: the oldest span goes unplaced. */
		for (uint32_t i = 0; i < zsets; i++) {
			struct fset *s = &fs->sets[i];
			if (ti >= s->ncur || s->cur_of[ti].next <= g->head)
				s->partial = 1;
		}
		g->head++;
		fs->held--;
		return 0;
	}
	uint64_t n = g->v ? (g->mask + 1) * 2 : 64;
	struct busy *v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	for (uint64_t q = g->head; q < g->tail; q++)
		v[q & (n - 1)] = g->v[q & g->mask];
	free(g->v);
	g->v = v;
	g->mask = n - 1;
	return 0;
}

int frame_stats_switch(struct frame_stats *fs, uint32_t ti, uint32_t tid, uint64_t ts, int had_zone,
		       uint32_t name)
{
	if (__builtin_expect(ti >= fs->nrings, 0)) {
		if (array_grow((void **)&fs->rings, &fs->caprings, sizeof(*fs->rings), (uint64_t)ti + 1))
			return -1;
		memset(fs->rings + fs->nrings, 0, (ti + 1 - fs->nrings) * sizeof(*fs->rings));
		fs->nrings = ti + 1;
	}
	struct ring *g = &fs->rings[ti];
	uint64_t last = g->last;
	g->last = ts;
	if (!had_zone || !last || ts <= last) /* last 0: the thread's first switch */
		return 0;
	g->tid = tid;
	if (__builtin_expect(g->wholes != fs->wholes, 0)) { /* a frame has ended since */
		g->wholes = fs->wholes;
		uint32_t zsets = fs->nsets < ZONE_SETS ? fs->nsets : ZONE_SETS;
		for (uint32_t i = 0; i < zsets; i++)
			if (fs->sets[i].done && catch_up(fs, &fs->sets[i], ti, 0))
				return -1;
	}
	if ((!g->v || g->tail - g->head > g->mask || fs->held >= BUSY_MAX) && ring_room(fs, g, ti))
		return -1;
	g->v[g->tail++ & g->mask] = (struct busy){ last, ts, name };
	fs->held++;
	return 0;
}

/* ---- frames ----------------------------------------------------------------- */

static struct fset *set_of(struct frame_stats *fs, uint32_t name, int discontinuous)
{
	int added;
	struct set_entry *e = u64_map_insert(&fs->set_of, ((uint64_t)discontinuous << 32 | name) + 1, &added);
	if (!e)
		return NULL;
	if (!added)
		return &fs->sets[e->index];
	if (array_grow((void **)&fs->sets, &fs->capsets, sizeof(*fs->sets), (uint64_t)fs->nsets + 1)) {
		u64_map_remove(&fs->set_of, e);
		return NULL;
	}
	e->index = fs->nsets;
	struct fset *s = &fs->sets[fs->nsets++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->discontinuous = discontinuous;
	return s;
}

/* A frame of s is whole: kept, and a candidate if among the longest. */
static int frame_whole(struct frame_stats *fs, struct fset *s, uint64_t end)
{
	fs->wholes++;
	if (s->n == s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : 256;
		struct profev_frame_time *f = realloc(s->frames, cap * sizeof(*f));
		if (!f)
			return -1;
		s->frames = f;
		uint8_t *slot = realloc(s->slot, cap);
		if (!slot)
			return -1;
		s->slot = slot;
		s->cap = cap;
	}
	struct profev_frame_time *f = &s->frames[s->n];
	*f = s->cur;
	f->ns = end - f->start_ts;
	s->slot[s->n] = 0;
	s->done = end;
	s->open = 0;
	uint32_t at = s->ncand;
	if (at == PROFEV_WORST_FRAMES) {
		/* The shortest candidate, the latest of equals, gives way to a
		 * longer frame (this one is the latest of all). */
		at = 0;
		for (uint32_t i = 1; i < s->ncand; i++) {
			const struct profev_frame_time *c = &s->frames[s->cand[i].frame];
			const struct profev_frame_time *w = &s->frames[s->cand[at].frame];
			if (c->ns < w->ns || (c->ns == w->ns && c->start_ts > w->start_ts))
				at = i;
		}
		if (f->ns <= s->frames[s->cand[at].frame].ns) {
			s->n++;
			return 0;
		}
		s->slot[s->cand[at].frame] = 0;
		s->cand[at].n = 0;
	} else {
		s->cand[s->ncand++] = (struct candidate){ 0, NULL, 0, 0 };
	}
	s->cand[at].frame = s->n;
	s->slot[s->n] = (uint8_t)(at + 1);
	s->n++;
	return 0;
}

int frame_stats_mark(struct frame_stats *fs, const struct profev_event *ev)
{
	int discontinuous = ev->type != PROFEV_EV_FRAME_MARK;
	struct fset *s = set_of(fs, ev->name, discontinuous);
	if (!s)
		return -1;
	if (s->open && ev->ts < s->cur.start_ts) {
		s->disordered++;
		return 0;
	}
	if (ev->type == PROFEV_EV_FRAME_END) /* an end without a start is nothing */
		return s->open ? frame_whole(fs, s, ev->ts) : 0;
	if (s->open && frame_whole(fs, s, ev->ts))
		return -1;
	/* As pfconv: a mark's frame has the mark's number; a discontinuous
	 * set's frames count from 0. */
	s->cur = (struct profev_frame_time){ discontinuous ? s->spans++ : ev->frame, ev->ts, 0 };
	s->open = 1;
	return 0;
}

/* ---- the figures -------------------------------------------------------------- */

uint64_t frame_percentile(const uint64_t *sorted, uint64_t n, unsigned per_10000)
{
	uint64_t rank = (n * per_10000 + 9999) / 10000;
	return sorted[rank ? rank - 1 : 0];
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int by_zone_time(const void *a, const void *b)
{
	const struct profev_frame_zone *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int by_length(const void *a, const void *b)
{
	const struct profev_worst_frame *x = a, *y = b;
	if (x->f.ns != y->f.ns)
		return x->f.ns < y->f.ns ? 1 : -1;
	return x->f.start_ts < y->f.start_ts ? -1 : x->f.start_ts > y->f.start_ts;
}

static int set_finish(struct fset *s, struct profev_frame_set *out)
{
	memset(out, 0, sizeof(*out));
	out->name = s->name;
	out->discontinuous = s->discontinuous;
	out->disordered = s->disordered;
	out->zones_partial = s->partial;
	out->count = s->n;
	if (!s->n)
		return 0;
	uint64_t *sorted = malloc(s->n * sizeof(*sorted));
	if (!sorted)
		return -1;
	for (uint64_t i = 0; i < s->n; i++) {
		sorted[i] = s->frames[i].ns;
		out->total_ns += sorted[i];
	}
	qsort(sorted, s->n, sizeof(*sorted), by_value);
	out->min_ns = sorted[0];
	out->max_ns = sorted[s->n - 1];
	out->p50_ns = frame_percentile(sorted, s->n, 5000);
	out->p90_ns = frame_percentile(sorted, s->n, 9000);
	out->p99_ns = frame_percentile(sorted, s->n, 9900);
	out->p999_ns = frame_percentile(sorted, s->n, 9990);
	out->mean_ns = (double)out->total_ns / (double)s->n;
	double var = 0;
	for (uint64_t i = 0; i < s->n; i++) {
		double d = (double)sorted[i] - out->mean_ns;
		var += d * d;
	}
	free(sorted);
	out->stddev_ns = sqrt(var / (double)s->n);
	out->fps = out->mean_ns > 0 ? 1e9 / out->mean_ns : 0;
	for (uint32_t i = 0; i < s->ncand; i++) {
		struct candidate *c = &s->cand[i];
		struct profev_worst_frame *w = &out->worst[out->nworst++];
		w->f = s->frames[c->frame];
		if (c->n > 1)
			qsort(c->z, c->n, sizeof(*c->z), by_zone_time);
		for (uint32_t k = 0; k < c->n && k < PROFEV_FRAME_ZONES; k++)
			w->zones[w->nzones++] = c->z[k];
	}
	qsort(out->worst, out->nworst, sizeof(*out->worst), by_length);
	out->frames = s->frames; /* handed over */
	s->frames = NULL;
	return 0;
}

int frame_stats_finish(struct frame_stats *fs, struct profev_stats *s)
{
	s->frame_sets = NULL;
	s->nframe_sets = 0;
	if (!fs->nsets)
		return 0;
	for (uint32_t i = 0; i < fs->nsets && i < ZONE_SETS; i++)
		for (uint32_t ti = 0; ti < fs->nrings; ti++)
			if (catch_up(fs, &fs->sets[i], ti, 1))
				return -1;
	s->frame_sets = calloc(fs->nsets, sizeof(*s->frame_sets));
	if (!s->frame_sets)
		return -1;
	for (uint32_t i = 0; i < fs->nsets; i++) {
		if (set_finish(&fs->sets[i], &s->frame_sets[i]))
			return -1;
		s->nframe_sets++;
	}
	return 0;
}

void frame_stats_release(struct profev_stats *s)
{
	for (uint32_t i = 0; i < s->nframe_sets; i++)
		free(s->frame_sets[i].frames);
	free(s->frame_sets);
	s->frame_sets = NULL;
	s->nframe_sets = 0;
}
