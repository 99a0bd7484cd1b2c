/* struct conv_idset's growth (conv_internal.h holds the rest inline). */
#include "conv/conv_internal.h"

int conv_idset_grow(struct conv_idset *s, uint32_t id)
{
	size_t i = id >> 6;
	size_t nw = s->nw ? s->nw : 64;
	while (nw <= i)
		nw *= 2;
	uint64_t *w = realloc(s->w, nw * sizeof(*w));
	if (!w)
		return PROFEV_E_NOMEM;
	memset(w + s->nw, 0, (nw - s->nw) * sizeof(*w));
	s->w = w;
	s->nw = nw;
	return 0;
}
