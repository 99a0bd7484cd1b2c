/*
 * The read loop's tracks (struct conv_thread): the traced program's threads
 * and the frame sets' tracks, by key, in creation order, with each
 * thread's name kept up to date and the thread filter applied.
 */
#include <string.h>
#include "conv/zone_stack.h"

static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static int filter_matches(const struct conv_loop *l, const struct conv_thread *t)
{
	const char *f = l->c.opts->thread;
	if (!f || t->kind != CONV_THREAD)
		return 1;
	if (l->filter_tid)
		return t->tid == l->filter_tid;
	return strcmp(t->name, f) == 0;
}

struct conv_thread *conv_track_find(struct conv_loop *l, uint64_t key)
{
	if (l->last && l->last->key == key)
		return l->last;
	const struct track_index_entry *e = u64_map_find(&l->track_index, key + 1);
	return e ? (l->last = l->threads[e->index]) : NULL;
}

static struct conv_thread *track_add(struct conv_loop *l, uint64_t key, int kind, uint32_t tid,
				     const char *name)
{
	if (l->nthreads == l->threads_cap) {
		unsigned cap = l->threads_cap ? l->threads_cap * 2 : 16;
		void *p = realloc(l->threads, cap * sizeof(*l->threads));
		if (!p)
			return NULL;
		l->threads = p;
		l->threads_cap = cap;
	}
	struct conv_thread *t = calloc(1, sizeof(*t));
	if (!t || !(t->name = dupstr(name))) {
		free(t);
		return NULL;
	}
	struct track_index_entry *e = u64_map_insert(&l->track_index, key + 1, NULL);
	if (!e) {
		free(t->name);
		free(t);
		return NULL;
	}
	e->index = l->nthreads;
	t->key = key;
	t->kind = kind;
	t->tid = tid;
	t->seq = l->nthreads;
	t->pid = l->c.pid;
	if (kind == CONV_THREAD) {
		uint32_t pid = profev_reader_thread_pid(l->c.r, tid);
		if (pid)
			t->pid = pid;
	}
	t->selected = filter_matches(l, t);
	l->c.st.threads_selected += t->selected && kind == CONV_THREAD;
	l->threads[l->nthreads++] = t;
	return l->last = t;
}

void conv_tracks_free(struct conv_loop *l)
{
	for (unsigned i = 0; i < l->nthreads; i++) {
		free(l->threads[i]->name);
		free(l->threads[i]->stack);
		free(l->threads[i]->args);
		free(l->threads[i]->point);
		free(l->threads[i]);
	}
	free(l->threads);
	u64_map_free(&l->track_index);
}

struct conv_thread *conv_thread_lookup(struct conv_loop *l, const struct profev_event *ev)
{
	struct conv_thread *t = conv_track_find(l, ev->tid);
	if (t && t->name_gen == l->gen)
		return t;
	const char *name = profev_reader_thread_name(l->c.r, ev->tid);
	if (!t) {
		if ((t = track_add(l, ev->tid, CONV_THREAD, ev->tid, name)))
			t->name_gen = l->gen;
		return t;
	}
	t->name_gen = l->gen;
	if (name != t->name_src) {
		t->name_src = name;
		if (strcmp(name, t->name) != 0) {
			char *n = dupstr(name);
			if (!n)
				return NULL;
			free(t->name);
			t->name = n;
			if (t->announced && l->c.ops->thread(&l->c, t))
				return NULL;
			if (!t->selected && filter_matches(l, t)) {
				/* Selected from here on: what is open shows from now. */
				t->selected = 1;
				l->c.st.threads_selected++;
				if (t->phase == 1 &&
				    conv_open_all(l, t, ev->ts > t->last_ts ? ev->ts : t->last_ts))
					return NULL;
			}
		}
	}
	return t;
}

struct conv_thread *conv_frames_track(struct conv_loop *l, uint32_t set)
{
	uint64_t key = 1ull << 32 | set;
	struct conv_thread *t = conv_track_find(l, key);
	if (t)
		return t;
	return track_add(l, key, CONV_FRAMES, set, profev_reader_string(l->c.r, set));
}

/* Discontinuous frames of a set: a track of their own beside its marks'. */
struct conv_thread *conv_spans_track(struct conv_loop *l, uint32_t set)
{
	uint64_t key = 2ull << 32 | set;
	struct conv_thread *t = conv_track_find(l, key);
	if (t)
		return t;
	return track_add(l, key, CONV_FRAMES, set | 1u << 31, profev_reader_string(l->c.r, set));
}
