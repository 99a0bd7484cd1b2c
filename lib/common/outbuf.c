/* Output buffer drained into a sink (outbuf.h). */
#include <stdlib.h>
#include "common/outbuf.h"
#include "profev_trace.h"

int outbuf_init(struct outbuf *o, size_t cap, outbuf_sink_fn sink, void *ctx)
{
	memset(o, 0, sizeof(*o));
	o->base = malloc(cap);
	if (!o->base)
		return PROFEV_E_NOMEM;
	o->p = o->base;
	o->end = o->base + cap;
	o->sink = sink;
	o->ctx = ctx;
	return 0;
}

void outbuf_free(struct outbuf *o)
{
	free(o->base);
	memset(o, 0, sizeof(*o));
}

int outbuf_flush(struct outbuf *o)
{
	size_t n = (size_t)(o->p - o->base);
	if (o->err)
		return o->err;
	if (n) {
		int rc = o->sink(o->ctx, o->base, n);
		if (rc < 0)
			return o->err = rc;
		o->drained += n;
	}
	o->p = o->base;
	return 0;
}

int outbuf_reserve_slow(struct outbuf *o, size_t n)
{
	int rc = outbuf_flush(o);
	if (rc)
		return rc;
	size_t cap = (size_t)(o->end - o->base);
	if (n <= cap)
		return 0;
	/* One record larger than the buffer (a long message): grow once; the
	 * buffer keeps that size, so this does not repeat per record. */
	uint8_t *b = realloc(o->base, n);
	if (!b)
		return PROFEV_E_NOMEM;
	o->base = o->p = b;
	o->end = b + n;
	return 0;
}
