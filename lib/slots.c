/* Growing the open-addressing id tables of strtab.c and cstack.c. */
#include <stdlib.h>
#include "internal.h"

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
