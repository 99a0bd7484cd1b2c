/* The client's threads (rec_internal.h): one table by thread id, each live
 * thread's timestamps, shared ring and the names of its open zones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "rec/rec_internal.h"

/* A new live thread tid, or NULL with the stream given up (caps, memory). */
static struct thr *thread_new(struct profev_recorder *r, uint32_t tid)
{
	struct thr_entry *e = u64_map_find(&r->thr_index, (uint64_t)tid + 1);
	char why[96];
	if (r->live_threads >= MAX_LIVE_THREADS || (!e && r->nthr >= MAX_THREADS)) {
		snprintf(why, sizeof why, "more than %u threads %s; stopped recording",
			 r->live_threads >= MAX_LIVE_THREADS ? MAX_LIVE_THREADS : MAX_THREADS,
			 r->live_threads >= MAX_LIVE_THREADS ? "alive at once" : "in one recording");
		stream_corrupt(r, why);
		return NULL;
	}
	struct thr *t = calloc(1, sizeof *t);
	int seen = e != NULL; /* a thread id the kernel gave out again */
	if (!t || (!seen && (array_grow((void **)&r->thr, &r->capthr, sizeof *r->thr, r->nthr + 1) ||
			     !(e = u64_map_insert(&r->thr_index, (uint64_t)tid + 1, NULL))))) {
		free(t);
		stream_corrupt(r, "out of memory for threads");
		return NULL;
	}
	t->tid = tid;
	if (!seen)
		e->pos = r->nthr++;
	r->thr[e->pos] = t;
	r->live_threads++;
	r->threads_seen++;
	return t;
}

void zone_stack_grow(struct thr *t)
{
	uint32_t cap = t->stack_cap ? t->stack_cap * 2 : 16;
	if (cap > MAX_DEPTH)
		cap = MAX_DEPTH;
	uint32_t *s = realloc(t->stack, 2 * cap * sizeof *s);
	if (!s)
		return;
	memset(s + 2 * t->stack_cap, 0, 2 * (cap - t->stack_cap) * sizeof *s);
	t->stack = s;
	t->stack_cap = cap;
}

struct thr *thread_get(struct profev_recorder *r, uint32_t tid, const char *name,
		       size_t name_len)
{
	struct thr *t = thread_find(r, tid);
	if (t && !name)
		return t;
	if (!t && !(t = thread_new(r, tid)))
		return NULL;
	char nm[PFW_MAX_TEXT + 1];
	if (name) {
		memcpy(nm, name, name_len);
		nm[name_len] = 0;
	}
	if (profev_writer_thread(r->w, tid, r->h.pid, name && name_len ? nm : NULL) < 0) {
		writer_failed(r);
		return NULL;
	}
	return t;
}

void ring_unmap(struct thr *t)
{
	if (t->ring_map)
		munmap(t->ring_map, PFW_RING_CTL + (size_t)t->ring_size);
	t->ring_map = NULL;
	t->ring_size = 0;
}

static void thread_free(struct thr *t)
{
	if (!t)
		return;
	ring_unmap(t);
	free(t->stack);
	free(t);
}

void thread_retire(struct profev_recorder *r, uint32_t tid)
{
	struct thr_entry *e = u64_map_find(&r->thr_index, (uint64_t)tid + 1);
	struct thr *t = e ? r->thr[e->pos] : NULL;
	if (!t)
		return;
	if (r->cur == t)
		r->cur = NULL;
	if (t->last_ns > r->exited_ns)
		r->exited_ns = t->last_ns;
	thread_free(t);
	r->thr[e->pos] = NULL;
	r->live_threads--;
}

void threads_free(struct profev_recorder *r)
{
	for (uint32_t i = 0; i < r->nthr; i++)
		thread_free(r->thr[i]);
	free(r->thr);
	u64_map_free(&r->thr_index);
}
