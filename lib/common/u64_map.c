/* The u64-keyed hash map of u64_map.h. */
#include <stdlib.h>
#include <string.h>
#include "common/u64_map.h"

#define FIRST_MASK 15

void u64_map_init(struct u64_map *m, size_t entry_size)
{
	m->slots = NULL;
	m->entry_size = entry_size;
	m->mask = 0;
	m->count = 0;
}

void u64_map_free(struct u64_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	m->count = 0;
}

void u64_map_clear(struct u64_map *m)
{
	if (m->slots)
		memset(m->slots, 0, (size_t)(m->mask + 1) * m->entry_size);
	m->count = 0;
}

static int grow(struct u64_map *m)
{
	uint64_t old_slots = m->slots ? m->mask + 1 : 0;
	uint64_t mask = old_slots ? 2 * old_slots - 1 : FIRST_MASK;
	if ((mask + 1) > SIZE_MAX / m->entry_size)
		return -1;
	unsigned char *slots = calloc((size_t)(mask + 1), m->entry_size);
	if (!slots)
		return -1;
	unsigned char *old = m->slots;
	m->slots = slots;
	m->mask = mask;
	for (uint64_t i = 0; i < old_slots; i++) {
		const unsigned char *e = old + i * m->entry_size;
		uint64_t key;
		memcpy(&key, e, sizeof(key));
		if (!key)
			continue;
		uint64_t j = u64_map_home(m, key);
		while (*(uint64_t *)u64_map_entry(m, j))
			j = (j + 1) & mask;
		memcpy(u64_map_entry(m, j), e, m->entry_size);
	}
	free(old);
	return 0;
}

void *u64_map_insert(struct u64_map *m, uint64_t key, int *added)
{
	if (!m->slots || (m->count + 1) * 2 > m->mask + 1) {
		void *e = m->slots ? u64_map_find(m, key) : NULL;
		if (e) {
			if (added)
				*added = 0;
			return e;
		}
		if (grow(m))
			return NULL;
	}
	uint64_t i = u64_map_home(m, key);
	for (;; i = (i + 1) & m->mask) {
		uint64_t *e = (uint64_t *)u64_map_entry(m, i);
		if (*e == key) {
			if (added)
				*added = 0;
			return e;
		}
		if (!*e) {
			*e = key;
			m->count++;
			if (added)
				*added = 1;
			return e;
		}
	}
}

void u64_map_remove(struct u64_map *m, void *entry)
{
	uint64_t hole = (uint64_t)((unsigned char *)entry - m->slots) / m->entry_size;
	memset(entry, 0, m->entry_size);
	m->count--;
	/* Move back each later entry of the run whose home is not cyclically
	 * in (hole, j]: it could no longer be found past the hole. */
	for (uint64_t j = (hole + 1) & m->mask;; j = (j + 1) & m->mask) {
		unsigned char *e = u64_map_entry(m, j);
		uint64_t key;
		memcpy(&key, e, sizeof(key));
		if (!key)
			return;
		uint64_t home = u64_map_home(m, key);
		int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
		if (stays)
			continue;
		memcpy(u64_map_entry(m, hole), e, m->entry_size);
		memset(e, 0, m->entry_size);
		hole = j;
	}
}

int u64_map_delete(struct u64_map *m, uint64_t key)
{
	void *e = u64_map_find(m, key);
	if (!e)
		return 0;
	u64_map_remove(m, e);
	return 1;
}

void *u64_map_next(const struct u64_map *m, const void *prev)
{
	if (!m->slots)
		return NULL;
	uint64_t i = prev ? (uint64_t)((const unsigned char *)prev - m->slots) / m->entry_size + 1 : 0;
	for (; i <= m->mask; i++) {
		uint64_t *e = (uint64_t *)u64_map_entry(m, i);
		if (*e)
			return e;
	}
	return NULL;
}
