/* Growable byte buffer, and growing arrays of fixed-size entries. */
#include <stdlib.h>
#include "common/common.h"

int buf_reserve(struct buf *b, size_t extra)
{
	if (b->cap - b->len >= extra)
		return 0;
	size_t need = b->len + extra;
	if (need < b->len)
		return PROFEV_E_NOMEM;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	uint8_t *p = realloc(b->data, cap);
	if (!p)
		return PROFEV_E_NOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int array_grow(void **p, uint32_t *cap, size_t elem, uint64_t need)
{
	if (need <= *cap)
		return 0;
	if (need > UINT32_MAX / 2)
		return -1;
	uint32_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	void *n = realloc(*p, (size_t)c * elem);
	if (!n)
		return -1;
	memset((char *)n + (size_t)*cap * elem, 0, (size_t)(c - *cap) * elem);
	*p = n;
	*cap = c;
	return 0;
}
