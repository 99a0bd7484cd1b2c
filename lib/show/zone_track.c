/* Per-thread stacks of open zones; see zone_track.h. */
#include <stdlib.h>
#include "common/common.h"
#include "show/zone_track.h"

struct open_zone {
	uint32_t name;
	uint32_t renamed; /* named at run time (zone_track_rename()) */
	uint64_t ts;
};

struct thread {
	uint32_t tid;
	uint32_t depth, cap;
	struct open_zone *stack;
};

struct zone_track {
	struct thread *threads;
	uint32_t n, cap;
	struct tid_index index;
	uint32_t last_tid;    /* a thread's events come in runs: the last one found */
	uint32_t last;        /* its index + 1, 0 = none */
};

struct zone_track *zone_track_new(void)
{
	struct zone_track *z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	if (tid_index_init(&z->index)) {
		free(z);
		return NULL;
	}
	return z;
}

void zone_track_free(struct zone_track *z)
{
	if (!z)
		return;
	for (uint32_t i = 0; i < z->n; i++)
		free(z->threads[i].stack);
	free(z->threads);
	tid_index_free(&z->index);
	free(z);
}

static uint32_t *slot(const struct zone_track *z, uint32_t tid)
{
	return tid_index_slot(&z->index, z->threads, sizeof(*z->threads), tid);
}

/* Index + 1 of tid's thread, 0 if it has none. */
static uint32_t find(struct zone_track *z, uint32_t tid)
{
	if (z->last && z->last_tid == tid)
		return z->last;
	uint32_t s = *slot(z, tid);
	if (s) {
		z->last_tid = tid;
		z->last = s;
	}
	return s;
}

int64_t zone_track_thread(struct zone_track *z, uint32_t tid)
{
	uint32_t found = find(z, tid);
	if (found)
		return found - 1;
	uint32_t *s = slot(z, tid);
	if (z->n == z->cap) {
		uint32_t cap = z->cap ? z->cap * 2 : 16;
		struct thread *t = realloc(z->threads, cap * sizeof(*t));
		if (!t)
			return -1;
		z->threads = t;
		z->cap = cap;
	}
	z->threads[z->n] = (struct thread){ tid, 0, 0, NULL };
	*s = ++z->n;
	if (tid_index_added(&z->index, z->threads, sizeof(*z->threads), z->n))
		return -1;
	return z->n - 1;
}

int zone_track_push(struct zone_track *z, uint32_t index, uint32_t name, uint64_t ts, uint32_t *outer)
{
	struct thread *t = &z->threads[index];
	int had = t->depth != 0;
	if (had && outer)
		*outer = t->stack[t->depth - 1].name;
	if (t->depth == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct open_zone *s = realloc(t->stack, cap * sizeof(*s));
		if (!s)
			return -1;
		t->stack = s;
		t->cap = cap;
	}
	t->stack[t->depth++] = (struct open_zone){ name, 0, ts };
	return had;
}

int zone_track_begin(struct zone_track *z, uint32_t tid, uint32_t name, uint64_t ts, uint32_t *outer)
{
	int64_t i = zone_track_thread(z, tid);
	return i < 0 ? -1 : zone_track_push(z, (uint32_t)i, name, ts, outer);
}

int zone_track_pop(struct zone_track *z, uint32_t index, uint32_t *name, uint64_t *begin_ts)
{
	struct thread *t = &z->threads[index];
	if (!t->depth)
		return 0;
	const struct open_zone *o = &t->stack[--t->depth];
	*name = o->name;
	*begin_ts = o->ts;
	return 1;
}

int zone_track_end(struct zone_track *z, uint32_t tid, uint32_t *name, uint64_t *begin_ts)
{
	uint32_t s = find(z, tid);
	return s ? zone_track_pop(z, s - 1, name, begin_ts) : 0;
}

uint64_t zone_track_open(const struct zone_track *z)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < z->n; i++)
		n += z->threads[i].depth;
	return n;
}

uint32_t zone_track_depth(struct zone_track *z, uint32_t tid)
{
	uint32_t s = find(z, tid);
	return s ? z->threads[s - 1].depth : 0;
}

int zone_track_innermost_at(struct zone_track *z, uint32_t tid, uint64_t ts, uint32_t *name,
			    uint64_t *begin_ts)
{
	uint32_t s = find(z, tid);
	if (!s)
		return 0;
	const struct thread *t = &z->threads[s - 1];
	for (uint32_t d = t->depth; d-- > 0;) {
		if (t->stack[d].ts <= ts) {
			*name = t->stack[d].name;
			*begin_ts = t->stack[d].ts;
			return 1;
		}
	}
	return 0;
}

int zone_track_rename(struct zone_track *z, uint32_t index, uint32_t name)
{
	struct thread *t = &z->threads[index];
	if (!t->depth || !name)
		return 0;
	t->stack[t->depth - 1].name = name;
	t->stack[t->depth - 1].renamed = 1;
	return 1;
}

int zone_track_renamed(struct zone_track *z, uint32_t tid)
{
	uint32_t s = find(z, tid);
	return s && z->threads[s - 1].depth && z->threads[s - 1].stack[z->threads[s - 1].depth - 1].renamed;
}
