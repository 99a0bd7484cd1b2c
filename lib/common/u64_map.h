/* A hash map from nonzero 64-bit keys to fixed-size entries, stored inline:
 * each entry begins with its uint64_t key, and key 0 marks an empty slot.
 * Open addressing with linear probing and backward-shift removal (no
 * tombstones), at most half full. A set is a map whose entries are the bare
 * key (entry_size 8).
 *
 * Entry pointers stay valid until the next insert that grows the table, or
 * the next removal. Not thread-safe. */
#ifndef PROFEV_U64_MAP_H
#define PROFEV_U64_MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64_map {
	unsigned char *slots; /* (mask + 1) entries of entry_size bytes */
	size_t entry_size;    /* a multiple of 8, at least 8 */
	uint64_t mask;        /* slots - 1, a power of two less one; 0 before the first insert */
	uint64_t count;       /* entries held */
};

/* An empty map of entries of entry_size bytes (≥ 8, a multiple of 8, key
 * first). Allocates nothing. */
void u64_map_init(struct u64_map *m, size_t entry_size);

/* Frees the slots; the map is empty and may be used again. */
void u64_map_free(struct u64_map *m);

/* Empties the map, keeping its slots. */
void u64_map_clear(struct u64_map *m);

/* Slot index where key's probe run starts. */
static inline uint64_t u64_map_home(const struct u64_map *m, uint64_t key)
{
	return ((key * 0x9e3779b97f4a7c15ull) >> 29) & m->mask;
}

static inline void *u64_map_entry(const struct u64_map *m, uint64_t slot)
{
	return m->slots + slot * m->entry_size;
}

/* The entry of key (not 0), or NULL when absent. */
static inline void *u64_map_find(const struct u64_map *m, uint64_t key)
{
	if (!m->count)
		return NULL;
	for (uint64_t i = u64_map_home(m, key);; i = (i + 1) & m->mask) {
		uint64_t *e = (uint64_t *)u64_map_entry(m, i);
		if (*e == key)
			return e;
		if (!*e)
			return NULL;
	}
}

/* The entry of key (not 0), added zeroed but for its key when absent;
 * *added (if not NULL) says which. NULL on no memory, the map unchanged. */
void *u64_map_insert(struct u64_map *m, uint64_t key, int *added);

/* Removes the entry at entry (a pointer this map returned and still holds). */
void u64_map_remove(struct u64_map *m, void *entry);

/* Removes key's entry if present: 1 if it was, else 0. */
int u64_map_delete(struct u64_map *m, uint64_t key);

/* Iteration in slot order: the first entry after prev (NULL to start), or
 * NULL at the end. The map must not change during the walk. */
void *u64_map_next(const struct u64_map *m, const void *prev);

#endif
