/*
 * sample_stats.c - what pfdump --stats says about samples and context
 * switches; see sample_stats.h.
 *
 * The kernel's events reach the trace in their own order, behind or ahead
 * of the client's events of the same thread, so the zone a thread was in
 * when it went off CPU is looked up once the client's events have passed
 * that time (or at the end): among the zones still open and the last
 * zones closed, kept per thread. Only the longest stretches are looked up.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/common.h"
#include "show/sample_stats.h"

#define CLOSED_KEPT 64            /* closed zones kept per thread */

struct closed {
	uint64_t begin, end;
	uint32_t name;
};

struct top {
	struct profev_offcpu o;
	int resolved;
};

struct sthread {
	uint32_t tid;                 /* first: tid_index */
	uint64_t samples, switches, preempted, on_ns, off_ns;
	uint64_t out_ts, in_ts;       /* the last switch out, in; 0 = none */
	int out_preempted;
	uint64_t client_ts;           /* latest of its other events */
	struct closed closed[CLOSED_KEPT];
	uint32_t nclosed, next;       /* a ring */
	uint64_t evicted_end;         /* end of the last zone dropped from it */
	struct top top[PROFEV_OFFCPU_TOP];
	uint32_t ntop, unresolved;
};

struct func {
	uint64_t hash;
	char *name;
	uint64_t self, total;
};

struct stack_funcs {
	uint32_t off, n;              /* in pool: the self function, then each
	                                 function on the stack once */
	int done;
};

struct sample_stats {
	struct sthread *t;
	uint32_t nt, capt;
	struct tid_index index;
	struct func *f;               /* dense */
	uint32_t nf, capf;
	uint32_t *fslots;             /* index + 1, 0 = empty */
	uint32_t fmask;
	struct stack_funcs *stacks;
	uint32_t capstacks;
	uint32_t *pool;
	uint32_t npool, cappool;
	uint64_t samples, lost;
	uint32_t last_tid, last;      /* events come in runs of a thread: the
	                                 last one found, index + 1 (0 none) */
};

struct sample_stats *sample_stats_new(void)
{
	struct sample_stats *ss = calloc(1, sizeof *ss);
	if (!ss || tid_index_init(&ss->index)) {
		free(ss);
		return NULL;
	}
	return ss;
}

void sample_stats_free(struct sample_stats *ss)
{
	if (!ss)
		return;
	for (uint32_t i = 0; i < ss->nf; i++)
		free(ss->f[i].name);
	free(ss->f);
	free(ss->fslots);
	free(ss->t);
	tid_index_free(&ss->index);
	free(ss->stacks);
	free(ss->pool);
	free(ss);
}

static struct sthread *thread_slow(struct sample_stats *ss, uint32_t tid, int add);

/* Every event looks its thread up: the last one found is kept at hand. */
static inline struct sthread *thread(struct sample_stats *ss, uint32_t tid, int add)
{
	if (__builtin_expect(ss->last && ss->last_tid == tid, 1))
		return &ss->t[ss->last - 1];
	return thread_slow(ss, tid, add);
}

static __attribute__((noinline)) struct sthread *thread_slow(struct sample_stats *ss, uint32_t tid, int add)
{
	uint32_t *slot = tid_index_slot(&ss->index, ss->t, sizeof *ss->t, tid);
	if (*slot) {
		ss->last_tid = tid;
		ss->last = *slot;
		return &ss->t[*slot - 1];
	}
	if (!add || array_grow((void **)&ss->t, &ss->capt, sizeof *ss->t, ss->nt + 1))
		return NULL;
	struct sthread *t = &ss->t[ss->nt];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	*slot = ++ss->nt;
	if (tid_index_added(&ss->index, ss->t, sizeof *ss->t, ss->nt))
		return NULL;
	return t;
}

/* ---- functions ---------------------------------------------------------- */

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h | 1;
}

/* The index of the function named s, added if new; UINT32_MAX on no memory. */
static uint32_t func_id(struct sample_stats *ss, const char *s)
{
	if (!ss->fslots)
		ss->fmask = 127; /* grown to 256 slots first */
	if ((!ss->fslots || ss->nf * 2 >= ss->fmask) &&
	    slots_grow(&ss->fslots, &ss->fmask, ss->f, sizeof *ss->f, ss->nf))
		return UINT32_MAX;
	uint64_t h = hash(s);
	uint32_t k = (uint32_t)h & ss->fmask;
	for (uint32_t i; (i = ss->fslots[k]) != 0; k = (k + 1) & ss->fmask)
		if (ss->f[i - 1].hash == h && strcmp(ss->f[i - 1].name, s) == 0)
			return i - 1;
	if (array_grow((void **)&ss->f, &ss->capf, sizeof *ss->f, ss->nf + 1))
		return UINT32_MAX;
	size_t len = strlen(s);
	char *copy = malloc(len + 1);
	if (!copy)
		return UINT32_MAX;
	memcpy(copy, s, len + 1);
	ss->f[ss->nf] = (struct func){ h, copy, 0, 0 };
	ss->fslots[k] = ++ss->nf;
	return ss->nf - 1;
}

static int pool_add(struct sample_stats *ss, uint32_t id, uint32_t from)
{
	for (uint32_t i = from; i < ss->npool; i++)
		if (ss->pool[i] == id)
			return 0;
	if (array_grow((void **)&ss->pool, &ss->cappool, sizeof *ss->pool, ss->npool + 1))
		return -1;
	ss->pool[ss->npool++] = id;
	return 0;
}

/* The functions of callstack id, worked out the first time it is seen:
 * the self function (the innermost of frame 0's inline chain), then every
 * function on the stack once. */
static const struct stack_funcs *stack_funcs(struct sample_stats *ss, const struct profev_reader *r,
					     uint32_t stack)
{
	if (array_grow((void **)&ss->stacks, &ss->capstacks, sizeof *ss->stacks, (uint64_t)stack + 1))
		return NULL;
	struct stack_funcs *sf = &ss->stacks[stack];
	if (sf->done)
		return sf;
	unsigned n;
	const struct profev_frame *fr = profev_reader_stack(r, stack, &n);
	char name[512];
	uint32_t start = ss->npool;
	for (unsigned i = 0; i < n; i++) {
		unsigned ns = 0;
		const struct profev_symframe *sym = NULL;
		if (!(fr[i].flags & PROFEV_FRAMEF_NOMODULE))
			sym = profev_reader_symbol(r, fr[i].module, fr[i].offset, &ns);
		for (unsigned k = 0; k < (ns ? ns : 1); k++) {
			if (ns) {
				snprintf(name, sizeof name, "%s", sym[k].function ? sym[k].function : "??");
			} else if (fr[i].flags & PROFEV_FRAMEF_NOMODULE) {
				snprintf(name, sizeof name, "[unknown]");
			} else {
				const struct profev_module *m = profev_reader_module(r, fr[i].module);
				const char *path = m ? m->path : "?";
				const char *base = strrchr(path, '/');
				snprintf(name, sizeof name, "%s+0x%" PRIx64, base ? base + 1 : path,
					 fr[i].offset);
			}
			uint32_t id = func_id(ss, name);
			if (id == UINT32_MAX)
				return NULL;
			if (i == 0 && k == 0 && pool_add(ss, id, ss->npool))
				return NULL;
			if (pool_add(ss, id, start + 1))
				return NULL;
		}
	}
	sf->off = start;
	sf->n = ss->npool - start;
	sf->done = 1;
	return sf;
}

static int sample(struct sample_stats *ss, const struct profev_reader *r, struct sthread *t,
		  const struct profev_event *ev)
{
	t->samples++;
	ss->samples++;
	if (!ev->stack)
		return 0;
	const struct stack_funcs *sf = stack_funcs(ss, r, ev->stack);
	if (!sf)
		return -1;
	if (!sf->n)
		return 0;
	ss->f[ss->pool[sf->off]].self++;
	for (uint32_t i = 1; i < sf->n; i++)
		ss->f[ss->pool[sf->off + i]].total++;
	return 0;
}

/* ---- off CPU ------------------------------------------------------------- */

/* The innermost zone of t at ts, from its open zones and the last ones it
 * closed. */
static void resolve(struct sthread *t, struct zone_track *z, struct top *e)
{
	uint64_t ts = e->o.ts, best_begin = 0;
	uint32_t name = 0, open_name;
	int found = 0;
	uint64_t begin;
	if (zone_track_innermost_at(z, t->tid, ts, &open_name, &begin)) {
		name = open_name;
		best_begin = begin;
		found = 1;
	}
	for (uint32_t i = 0; i < t->nclosed; i++) {
		const struct closed *c = &t->closed[i];
		if (c->begin <= ts && ts < c->end && (!found || c->begin >= best_begin)) {
			name = c->name;
			best_begin = c->begin;
			found = 1;
		}
	}
	e->o.zone = found ? name : 0;
	/* A zone open then may have been dropped from the ring. */
	e->o.zone_known = found || t->evicted_end <= ts;
	e->resolved = 1;
	t->unresolved--;
}

static void resolve_passed(struct sthread *t, struct zone_track *z)
{
	for (uint32_t i = 0; i < t->ntop; i++)
		if (!t->top[i].resolved && t->client_ts > t->top[i].o.ts)
			resolve(t, z, &t->top[i]);
}

/* A stretch off CPU: kept if it is among the thread's longest. */
static void off_cpu(struct sthread *t, struct zone_track *z, uint64_t from, uint64_t ns,
		    int preempted)
{
	uint32_t k = t->ntop;
	if (k == PROFEV_OFFCPU_TOP) {
		if (ns <= t->top[k - 1].o.ns)
			return;
		if (!t->top[k - 1].resolved)
			t->unresolved--;
		k--;
	} else {
		t->ntop++;
	}
	while (k > 0 && t->top[k - 1].o.ns < ns) {
		t->top[k] = t->top[k - 1];
		k--;
	}
	t->top[k] = (struct top){ { from, ns, 0, 0, preempted }, 0 };
	t->unresolved++;
	if (t->client_ts > from)
		resolve(t, z, &t->top[k]);
}

int sample_stats_zone(struct sample_stats *ss, uint32_t tid, uint32_t name, uint64_t begin,
		      uint64_t end)
{
	struct sthread *t = thread(ss, tid, 1);
	if (!t)
		return -1;
	if (t->nclosed == CLOSED_KEPT)
		t->evicted_end = t->closed[t->next].end;
	else
		t->nclosed++;
	t->closed[t->next] = (struct closed){ begin, end, name };
	t->next = (t->next + 1) % CLOSED_KEPT;
	return 0;
}

int sample_stats_event(struct sample_stats *ss, const struct profev_reader *r,
		       struct zone_track *z, const struct profev_event *ev)
{
	switch (ev->type) {
	case PROFEV_EV_SAMPLE: {
		struct sthread *t = thread(ss, ev->tid, 1);
		return t ? sample(ss, r, t, ev) : -1;
	}
	case PROFEV_EV_SWITCH_OUT: {
		struct sthread *t = thread(ss, ev->tid, 1);
		if (!t)
			return -1;
		if (t->in_ts && ev->ts >= t->in_ts)
			t->on_ns += ev->ts - t->in_ts;
		t->in_ts = 0;
		t->out_ts = ev->ts;
		t->out_preempted = (ev->payload & PROFEV_SWITCH_PREEMPTED) != 0;
		t->switches++;
		t->preempted += (uint64_t)t->out_preempted;
		return 0;
	}
	case PROFEV_EV_SWITCH_IN: {
		struct sthread *t = thread(ss, ev->tid, 1);
		if (!t)
			return -1;
		if (t->out_ts && ev->ts >= t->out_ts) {
			t->off_ns += ev->ts - t->out_ts;
			off_cpu(t, z, t->out_ts, ev->ts - t->out_ts, t->out_preempted);
		}
		t->out_ts = 0;
		t->in_ts = ev->ts;
		return 0;
	}
	case PROFEV_EV_SAMPLE_LOST:
		ss->lost += ev->payload;
		return 0;
	default: {
		/* The client's side of the thread has got this far. */
		struct sthread *t = thread(ss, ev->tid, 0);
		if (t) {
			if (ev->ts > t->client_ts)
				t->client_ts = ev->ts;
			if (t->unresolved)
				resolve_passed(t, z);
		}
		return 0;
	}
	}
}

static int by_self(const void *a, const void *b)
{
	const struct profev_func_stat *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

int sample_stats_finish(struct sample_stats *ss, struct zone_track *z, struct profev_stats *s)
{
	s->samples = ss->samples;
	s->lost_samples = ss->lost;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ss->nt; i++)
		n += ss->t[i].samples || ss->t[i].switches;
	if (n && !(s->sched = calloc(n, sizeof *s->sched)))
		return -1;
	for (uint32_t i = 0; i < ss->nt; i++) {
		struct sthread *t = &ss->t[i];
		if (!t->samples && !t->switches)
			continue;
		struct profev_sched_stat *o = &s->sched[s->nsched++];
		o->tid = t->tid;
		o->samples = t->samples;
		o->switches = t->switches;
		o->preempted = t->preempted;
		o->on_ns = t->on_ns;
		o->off_ns = t->off_ns;
		for (uint32_t k = 0; k < t->ntop; k++) {
			if (!t->top[k].resolved)
				resolve(t, z, &t->top[k]);
			o->longest[k] = t->top[k].o;
		}
		o->nlongest = t->ntop;
	}
	if (ss->nf && !(s->funcs = calloc(ss->nf, sizeof *s->funcs)))
		return -1;
	for (uint32_t i = 0; i < ss->nf; i++) {
		struct func *f = &ss->f[i];
		if (!f->self && !f->total)
			continue;
		s->funcs[s->nfuncs++] = (struct profev_func_stat){ f->name, f->self, f->total };
		f->name = NULL; /* s owns it now */
	}
	if (s->nfuncs > 1)
		qsort(s->funcs, s->nfuncs, sizeof *s->funcs, by_self);
	return 0;
}

void sample_stats_release(struct profev_stats *s)
{
	for (uint32_t i = 0; i < s->nfuncs; i++)
		free(s->funcs[i].name);
	free(s->funcs);
	free(s->sched);
}
