/* Callstack deduplication: identical frame arrays share one id. Frames are
 * hashed with XXH3 into an open-addressing table; arrays live in one arena. */
#include <stdlib.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "internal.h"

struct entry {
	uint64_t hash;
	size_t start; /* index into frames */
	uint32_t n;
};

struct cstack {
	struct profev_frame *frames;
	size_t nframes, frames_cap;
	struct entry *entries;
	uint32_t count, entries_cap;
	uint32_t *slots;
	uint32_t mask;
};

struct cstack *cstack_new(void)
{
	struct cstack *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->mask = 1023;
	t->slots = calloc(t->mask + 1, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void cstack_free(struct cstack *t)
{
	if (!t)
		return;
	free(t->frames);
	free(t->entries);
	free(t->slots);
	free(t);
}

uint32_t cstack_count(const struct cstack *t)
{
	return t->count;
}

static int grow(struct cstack *t)
{
	return slots_grow(&t->slots, &t->mask, t->entries, sizeof(*t->entries), t->count);
}

static int same(const struct profev_frame *a, const struct profev_frame *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i].module != b[i].module || a[i].offset != b[i].offset || a[i].flags != b[i].flags)
			return 0;
	return 1;
}

static uint32_t insert(struct cstack *t, const struct profev_frame *f, unsigned n, int *is_new,
		       int always)
{
	/* struct profev_frame has no padding (4+4+8), so its bytes hash as is. */
	uint64_t h = XXH3_64bits(f, n * sizeof(*f));
	uint32_t i = (uint32_t)h & t->mask;
	*is_new = 0;
	for (uint32_t id; (id = t->slots[i]) != 0; i = (i + 1) & t->mask) {
		const struct entry *e = &t->entries[id - 1];
		if (e->hash == h && e->n == n && same(t->frames + e->start, f, n)) {
			if (!always)
				return id;
			i = UINT32_MAX; /* the first copy keeps the slot */
			break;
		}
	}
	if (t->count == UINT32_MAX - 1)
		return 0;
	if (t->count == t->entries_cap) {
		uint32_t cap = t->entries_cap ? t->entries_cap * 2 : 256;
		struct entry *e = realloc(t->entries, cap * sizeof(*e));
		if (!e)
			return 0;
		t->entries = e;
		t->entries_cap = cap;
	}
	if (t->frames_cap - t->nframes < n) {
		size_t cap = t->frames_cap ? t->frames_cap * 2 : 1024;
		while (cap - t->nframes < n)
			cap *= 2;
		struct profev_frame *fr = realloc(t->frames, cap * sizeof(*fr));
		if (!fr)
			return 0;
		t->frames = fr;
		t->frames_cap = cap;
	}
	if (n)
		memcpy(t->frames + t->nframes, f, n * sizeof(*f));
	t->entries[t->count] = (struct entry){ h, t->nframes, n };
	t->nframes += n;
	uint32_t id = ++t->count;
	if (i != UINT32_MAX)
		t->slots[i] = id;
	*is_new = 1;
	if (t->count * 2 > t->mask && grow(t))
		return 0;
	return id;
}

uint32_t cstack_intern(struct cstack *t, const struct profev_frame *f, unsigned n, int *is_new)
{
	return insert(t, f, n, is_new, 0);
}

uint32_t cstack_append(struct cstack *t, const struct profev_frame *f, unsigned n)
{
	int is_new;
	return insert(t, f, n, &is_new, 1);
}
