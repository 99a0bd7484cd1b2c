/* Helpers shared by every part of libprofev: error recording, growable
 * buffers, LEB128 varints, little-endian access, a bounds-checked cursor and
 * the open-addressing id tables. Not installed. */
#ifndef PROFEV_COMMON_H
#define PROFEV_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "profev_trace.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* ---- errors ---- */
void err_set(struct profev_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void err_set_at(struct profev_error *e, int code, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void err_clear(struct profev_error *e);

/* ---- paths ---- */
/* The last component of path: after its last '/', or path itself. */
static inline const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

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

#endif
