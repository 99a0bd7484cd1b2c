/* Growable byte buffer. */
#include <stdlib.h>
#include "internal.h"

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
