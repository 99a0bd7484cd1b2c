/* The open-addressing tables shared by several files: growing the id table
 * of strtab.c (which cstack.c interns frame arrays through), and the thread
 * id index. */
#include <stdlib.h>
#include "common/common.h"

int slots_grow(uint32_t **slots, uint32_t *mask, const void *entries, size_t stride, uint32_t count)
{
	uint32_t new_mask = *mask * 2 + 1;
	uint32_t *s = calloc((size_t)new_mask + 1, sizeof(*s));
	if (!s)
		return -1;
	for (uint32_t id = 1; id <= count; id++) {
		uint64_t hash;
		memcpy(&hash, (const char *)entries + (size_t)(id - 1) * stride, sizeof(hash));
		uint32_t i = (uint32_t)hash & new_mask;
		while (s[i])
			i = (i + 1) & new_mask;
		s[i] = id;
	}
	free(*slots);
	*slots = s;
	*mask = new_mask;
	return 0;
}

int tid_index_init(struct tid_index *x)
{
	x->mask = 63;
	x->slots = calloc((size_t)x->mask + 1, sizeof(*x->slots));
	return x->slots ? 0 : -1;
}

void tid_index_free(struct tid_index *x)
{
	free(x->slots);
	x->slots = NULL;
}

void tid_index_clear(struct tid_index *x)
{
	memset(x->slots, 0, ((size_t)x->mask + 1) * sizeof(*x->slots));
}

int tid_index_added(struct tid_index *x, const void *entries, size_t stride, uint32_t count)
{
	if (count * 2 <= x->mask)
		return 0;
	struct tid_index bigger = { calloc((size_t)x->mask * 2 + 2, sizeof(uint32_t)), x->mask * 2 + 1 };
	if (!bigger.slots)
		return -1;
	for (uint32_t k = 0; k < count; k++) {
		uint32_t tid;
		memcpy(&tid, (const char *)entries + (size_t)k * stride, sizeof(tid));
		*tid_index_slot(&bigger, entries, stride, tid) = k + 1;
	}
	free(x->slots);
	*x = bigger;
	return 0;
}
