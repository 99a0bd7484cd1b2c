/* Internal helpers shared by libprofev's files: growable buffers, LEB128
 * varints, error recording and the chunk framing constants. Not installed. */
#ifndef PROFEV_INTERNAL_H
#define PROFEV_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "profev_trace.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* ---- file framing (formats/trace.md) ---- */
#define FILE_MAGIC "\x89PFV\r\n\x1a\n"
#define FILE_HEADER_SIZE 16
#define CHUNK_HEADER_SIZE 24
#define CHUNK_F_ZSTD 1u
/* Hostile-input limits: a reader refuses larger chunks before allocating. */
#define CHUNK_MAX_STORED (64u << 20)
#define CHUNK_MAX_RAW (256u << 20)
#define STRING_MAX_LEN (1u << 20)
#define STACK_MAX_FRAMES 256u

/* ---- errors ---- */
void err_set(struct profev_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void err_set_at(struct profev_error *e, int code, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void err_clear(struct profev_error *e);

/* ---- growable byte buffer ---- */
struct buf {
	uint8_t *data;
	size_t len, cap;
};

int buf_reserve(struct buf *b, size_t extra); /* 0 or PROFEV_E_NOMEM */
/* Grow *p, an array of *cap entries of elem bytes, to hold at least need
 * (doubling); new entries are zeroed. 0, or -1 on no memory or over 2^31. */
int array_grow(void **p, uint32_t *cap, size_t elem, uint64_t need);
void buf_free(struct buf *b);
static inline void buf_reset(struct buf *b) { b->len = 0; }

static inline int buf_put(struct buf *b, const void *p, size_t n)
{
	if (unlikely(b->cap - b->len < n) && buf_reserve(b, n))
		return PROFEV_E_NOMEM;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

/* Appends without a capacity check: callers reserve first (hot loops). */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline int buf_varint(struct buf *b, uint64_t v)
{
	if (unlikely(b->cap - b->len < 10) && buf_reserve(b, 10))
		return PROFEV_E_NOMEM;
	b->len = (size_t)(put_varint(b->data + b->len, v) - b->data);
	return 0;
}

static inline int buf_bytes(struct buf *b, const void *p, size_t n)
{
	int rc = buf_varint(b, n);
	return rc ? rc : buf_put(b, p, n);
}

static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static inline void put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void put_le32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline void put_le64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline uint16_t get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_le64(const uint8_t *p) { return get_le32(p) | (uint64_t)get_le32(p + 4) << 32; }

/* ---- bounds-checked reading of a chunk body ---- */
struct cursor {
	const uint8_t *p, *end;
	int bad; /* set once a read ran past the end or a varint overflowed */
};

static inline uint64_t cur_varint_slow(struct cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end) {
			c->bad = 1;
			return 0;
		}
		uint8_t byte = *c->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static inline uint64_t cur_varint(struct cursor *c)
{
	if (likely(c->p < c->end) && *c->p < 0x80)
		return *c->p++;
	return cur_varint_slow(c);
}

static inline uint8_t cur_u8(struct cursor *c)
{
	if (unlikely(c->p >= c->end)) {
		c->bad = 1;
		return 0;
	}
	return *c->p++;
}

/* Returns a pointer to n bytes and advances, or NULL (and bad) past the end. */
static inline const uint8_t *cur_take(struct cursor *c, uint64_t n)
{
	if (unlikely((uint64_t)(c->end - c->p) < n)) {
		c->bad = 1;
		c->p = c->end;
		return NULL;
	}
	const uint8_t *r = c->p;
	c->p += n;
	return r;
}

/* ---- chunk framing (chunk.c) ---- */
struct chunk_header {
	uint16_t kind, flags;
	uint32_t count, stored_size, raw_size;
	uint64_t checksum;
};

void chunk_header_encode(uint8_t out[CHUNK_HEADER_SIZE], const struct chunk_header *h);
void chunk_header_decode(const uint8_t in[CHUNK_HEADER_SIZE], struct chunk_header *h);
/* XXH3 over header bytes 0..15 followed by the stored body. */
uint64_t chunk_checksum(const uint8_t header[CHUNK_HEADER_SIZE], const void *body, size_t len);

/* ---- storing chunks (chunk_store.c) ---- */
/* Compresses, checksums and writes chunks to fd, on the caller's thread or
 * (threaded) on a thread of its own, in the order they are put. Errors are
 * sticky: the call that meets one, or any later call, returns it with *err
 * filled (an offset in the file). */
struct chunk_store;
struct chunk_store *chunk_store_new(int fd, int level, int threaded); /* NULL: no memory */
void chunk_store_free(struct chunk_store *s); /* writes what is queued first */
/* A chunk of kind with count entries; body compressed when asked and when
 * that makes it smaller. 0 or <0. */
int chunk_store_put(struct chunk_store *s, unsigned kind, uint32_t count, const void *body,
		    size_t len, int compress, struct profev_error *err);
/* Bytes written as they are: the file header (chunks = 0) or a chunk
 * copied whole (chunks = 1). 0 or <0. */
int chunk_store_raw(struct chunk_store *s, const void *bytes, size_t len, uint32_t chunks,
		    struct profev_error *err);
/* Wait until everything put is written. 0 or <0. */
int chunk_store_drain(struct chunk_store *s, struct profev_error *err);
/* Bytes and chunks written so far; from any thread. */
void chunk_store_counts(struct chunk_store *s, uint64_t *bytes, uint64_t *chunks);

/* ---- event column codec (event_codec.c) ---- */
struct event_text {
	uint32_t offset, len; /* a message text within the chunk body */
};

#define EVENT_COLUMNS 8
/* Codes events into the EVENTS chunk body as they come (event_codec.c). */
struct event_encoder;
/* An encoder for chunks of up to capacity events; NULL on no memory. */
struct event_encoder *encoder_new(uint32_t capacity);
void encoder_free(struct event_encoder *e);
/* Add one event; text is a MESSAGE's text. 1 when the chunk is now full,
 * 0 when it is not, PROFEV_E_NOMEM, or PROFEV_E_STATE when it already was. */
int encoder_add(struct event_encoder *e, const struct profev_event *ev, const char *text, size_t len);
/* Add events from ev[0] on while they are of ev[0]'s thread and neither a
 * MESSAGE nor a LOST (ev[0] must not be), at most n and as far as the
 * chunk has room. @return how many, or PROFEV_E_NOMEM. */
int64_t encoder_add_run(struct event_encoder *e, const struct profev_event *ev, uint32_t n);
/* A zone begin, zone end or instant with no flags and no callstack: what a
 * tight loop makes, and what a recorder can hand over without building
 * whole events. */
struct plain_event {
	uint64_t ts;
	uint32_t name;
	uint32_t category;  /* the payload: string id of the category's name */
	uint32_t type;      /* PROFEV_EV_ZONE_BEGIN, _ZONE_END or _INSTANT */
	uint32_t reserved;
};
/* Add up to n plain events of thread tid in frame, as far as the chunk has
 * room. @return how many, or PROFEV_E_NOMEM. */
int64_t encoder_add_plain(struct event_encoder *e, uint32_t tid, uint64_t frame,
			  const struct plain_event *ev, uint32_t n);
/* The writer's side of it (trace_write.c): n events, 0 or <0. */
int writer_add_plain(struct profev_writer *w, uint32_t tid, uint64_t frame,
		     const struct plain_event *ev, size_t n);
uint32_t encoder_count(const struct event_encoder *e);
size_t encoder_text_bytes(const struct event_encoder *e);
/* Write the chunk body into out and start the next chunk. 0 or NOMEM. */
int encoder_finish(struct event_encoder *e, struct buf *out);

/* Decode an EVENTS body of n events. texts receive (offset, len) of each
 * MESSAGE's text relative to body; *nthread_names counts THREAD_NAME events.
 * Returns 0 or PROFEV_E_CORRUPT with a message in *why. */
int events_decode(const uint8_t *body, size_t len, uint32_t n, struct profev_event *out,
		  struct event_text *texts, uint32_t *ntexts, uint32_t *nthread_names, const char **why);

/* ---- id tables (slots.c) ---- */
/* Rebuild an open-addressing table of ids 1..count at twice the size. Entry
 * id sits at entries + (id - 1) * stride and starts with its uint64_t hash.
 * 0, or -1 on no memory (the table is left as it was). */
int slots_grow(uint32_t **slots, uint32_t *mask, const void *entries, size_t stride, uint32_t count);

/* An open-addressing index from thread id to the position of its entry in
 * an array whose entries start with their uint32_t tid (the reader's thread
 * table, the event coder's per-chunk threads, the zone tracker's stacks). */
struct tid_index {
	uint32_t *slots; /* position + 1, 0 = empty */
	uint32_t mask;
};

int tid_index_init(struct tid_index *x); /* 0 or -1 on no memory */
void tid_index_free(struct tid_index *x);
void tid_index_clear(struct tid_index *x);
/* After appending entry number count (1-based) at the slot tid_index_slot()
 * gave: keeps the load under one half. 0 or -1 on no memory. */
int tid_index_added(struct tid_index *x, const void *entries, size_t stride, uint32_t count);

/* The slot of tid: holds its position + 1, or 0 where it would go. */
static inline uint32_t *tid_index_slot(const struct tid_index *x, const void *entries, size_t stride,
				       uint32_t tid)
{
	uint32_t i = (tid * 2654435761u) & x->mask;
	for (uint32_t s; (s = x->slots[i]) != 0; i = (i + 1) & x->mask) {
		uint32_t have;
		memcpy(&have, (const char *)entries + (size_t)(s - 1) * stride, sizeof(have));
		if (have == tid)
			break;
	}
	return &x->slots[i];
}

/* ---- string interning (strtab.c) ---- */
struct strtab;
struct strtab *strtab_new(void);
void strtab_free(struct strtab *t);
/* Id of s (>= 1) interning it if new; *is_new tells which. 0 on no memory. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t len, int *is_new);
/* Append s under the next id even if equal bytes are interned already: for
 * copying another writer's numbering. 0 on no memory. */
uint32_t strtab_append(struct strtab *t, const char *s, size_t len);
uint32_t strtab_count(const struct strtab *t);

/* ---- callstack deduplication (cstack.c) ---- */
struct cstack;
struct cstack *cstack_new(void);
void cstack_free(struct cstack *t);
/* Id of the frame array (>= 1) adding it if new; 0 on no memory. */
uint32_t cstack_intern(struct cstack *t, const struct profev_frame *f, unsigned n, int *is_new);
/* Append under the next id even if an equal array exists (see strtab_append). */
uint32_t cstack_append(struct cstack *t, const struct profev_frame *f, unsigned n);
uint32_t cstack_count(const struct cstack *t);

#endif
