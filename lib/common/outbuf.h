/* A fixed output buffer drained into a sink callback, shared by the
 * converters' encoders (pb.h, json_write.h). Writers reserve an upper bound
 * for a whole record first and then append without checks, so the hot path
 * is one comparison per record and never allocates. Not installed. */
#ifndef PROFEV_OUTBUF_H
#define PROFEV_OUTBUF_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OUTBUF_HIDDEN __attribute__((visibility("hidden")))

/* Sink: consume len bytes. @return 0, or <0 (the buffer stops writing). */
typedef int (*outbuf_sink_fn)(void *ctx, const void *data, size_t len);

struct outbuf {
	uint8_t *base, *p, *end; /* end = base + capacity */
	outbuf_sink_fn sink;
	void *ctx;
	uint64_t drained;         /* bytes already handed to the sink */
	int err;                  /* first sink error, sticky */
};

/* @return 0 or PROFEV_E_NOMEM. */
OUTBUF_HIDDEN int outbuf_init(struct outbuf *o, size_t cap, outbuf_sink_fn sink, void *ctx);
OUTBUF_HIDDEN void outbuf_free(struct outbuf *o);
/* Hand everything buffered to the sink. @return 0 or the sink's error. */
OUTBUF_HIDDEN int outbuf_flush(struct outbuf *o);
OUTBUF_HIDDEN int outbuf_reserve_slow(struct outbuf *o, size_t n);

/**
 * Make room for n more bytes. Call only between records: it may drain the
 * buffer, so no offset taken before it (pb_begin) survives it. Grows the
 * buffer when one record is larger than all of it.
 * @return 0, PROFEV_E_NOMEM, or the sink's error.
 */
static inline int outbuf_reserve(struct outbuf *o, size_t n)
{
	if (__builtin_expect((size_t)(o->end - o->p) >= n, 1))
		return 0;
	return outbuf_reserve_slow(o, n);
}

/* Bytes written through this buffer so far, drained or not. */
static inline uint64_t outbuf_size(const struct outbuf *o)
{
	return o->drained + (uint64_t)(o->p - o->base);
}

static inline void outbuf_put(struct outbuf *o, const void *data, size_t n)
{
	memcpy(o->p, data, n);
	o->p += n;
}

static inline void outbuf_byte(struct outbuf *o, uint8_t c) { *o->p++ = c; }

#define outbuf_lit(o, s) outbuf_put((o), (s), sizeof(s) - 1)
#endif
