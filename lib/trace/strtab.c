/* Interning: equal byte strings get one id. An open-addressing table of ids
 * keyed by XXH3 over the bytes; the bytes live in one arena. Names are
 * interned here, and callstacks as their frames' bytes (cstack.c). */
#include <stdlib.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "trace/trace_internal.h"

struct entry {
	uint64_t hash;
	uint32_t offset, len;
};

struct strtab {
	struct buf arena;
	struct entry *entries; /* id - 1 -> entry */
	uint32_t count, entries_cap;
	uint32_t *slots;       /* 0 = empty, else id */
	uint32_t mask;
};

struct strtab *strtab_new(void)
{
	struct strtab *t = calloc(1, sizeof(*t));
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

void strtab_free(struct strtab *t)
{
	if (!t)
		return;
	buf_free(&t->arena);
	free(t->entries);
	free(t->slots);
	free(t);
}

uint32_t strtab_count(const struct strtab *t)
{
	return t->count;
}

static int grow(struct strtab *t)
{
	return slots_grow(&t->slots, &t->mask, t->entries, sizeof(*t->entries), t->count);
}

static uint32_t insert(struct strtab *t, const char *s, size_t len, int *is_new, int always)
{
	uint64_t h = XXH3_64bits(s, len);
	uint32_t i = (uint32_t)h & t->mask;
	*is_new = 0;
	for (uint32_t id; (id = t->slots[i]) != 0; i = (i + 1) & t->mask) {
		const struct entry *e = &t->entries[id - 1];
		if (e->hash == h && e->len == len && (!len || !memcmp(t->arena.data + e->offset, s, len))) {
			if (!always)
				return id;
			i = UINT32_MAX; /* the first copy keeps the slot */
			break;
		}
	}
	if (t->count == UINT32_MAX - 1 || t->arena.len + len > UINT32_MAX)
		return 0;
	if (t->count == t->entries_cap) {
		uint32_t cap = t->entries_cap ? t->entries_cap * 2 : 256;
		struct entry *e = realloc(t->entries, cap * sizeof(*e));
		if (!e)
			return 0;
		t->entries = e;
		t->entries_cap = cap;
	}
	uint32_t offset = (uint32_t)t->arena.len;
	if (buf_put(&t->arena, s, len))
		return 0;
	t->entries[t->count] = (struct entry){ h, offset, (uint32_t)len };
	uint32_t id = ++t->count;
	if (i != UINT32_MAX)
		t->slots[i] = id;
	*is_new = 1;
	/* Keep the load under one half so probes stay short. */
	if (t->count * 2 > t->mask && grow(t))
		return 0;
	return id;
}

uint32_t strtab_intern(struct strtab *t, const char *s, size_t len, int *is_new)
{
	return insert(t, s, len, is_new, 0);
}

uint32_t strtab_append(struct strtab *t, const char *s, size_t len)
{
	int is_new;
	return insert(t, s, len, &is_new, 1);
}
