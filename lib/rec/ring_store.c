/*
 * pfrec --ring: the flight recorder's memory. The writer hands it whole
 * chunks (ring_store_sink). Definitions and metadata are kept, all of
 * them, so that a snapshot can define every id its events use; events and
 * image chunks are kept while they are the newest keep_ns or keep_bytes.
 * An events chunk let go is decoded once, to follow each thread's open
 * zones: those still open at the ring's start are the snapshot's zones
 * begun before its window.
 */
#include <stdlib.h>
#include <time.h>
#include <zstd.h>
#include "rec/ring_store.h"

struct open_stack {
	uint64_t key;                 /* tid + 1 */
	uint32_t depth, cap;
	uint32_t *zones;              /* name, category id */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct ring_store *ring_store_new(uint64_t keep_ns, uint64_t keep_bytes)
{
	struct ring_store *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->keep_ns = keep_ns;
	s->keep_bytes = keep_bytes;
	u64_map_init(&s->stacks, sizeof(struct open_stack));
	if (!(s->dctx = ZSTD_createDCtx())) {
		free(s);
		return NULL;
	}
	return s;
}

void ring_store_free(struct ring_store *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		free(s->q[(s->head + i) % s->cap].bytes);
	free(s->q);
	buf_free(&s->defs);
	buf_free(&s->raw);
	free(s->events);
	free(s->texts);
	for (struct open_stack *o = u64_map_next(&s->stacks, NULL); o; o = u64_map_next(&s->stacks, o))
		free(o->zones);
	u64_map_free(&s->stacks);
	ZSTD_freeDCtx(s->dctx);
	free(s);
}

/* The zones of an events chunk let go, into the threads' open stacks. */
static void follow(struct ring_store *s, const struct ring_chunk *c)
{
	struct chunk_header h;
	if (c->len < CHUNK_HEADER_SIZE)
		return;
	chunk_header_decode(c->bytes, &h);
	const uint8_t *body = c->bytes + CHUNK_HEADER_SIZE;
	size_t len = h.stored_size;
	if (h.flags & CHUNK_F_ZSTD) {
		buf_reset(&s->raw);
		if (buf_reserve(&s->raw, h.raw_size))
			return;
		size_t got = ZSTD_decompressDCtx(s->dctx, s->raw.data, h.raw_size, body, len);
		if (ZSTD_isError(got) || got != h.raw_size)
			return;
		body = s->raw.data;
		len = got;
	}
	if (h.count > s->events_cap) {
		free(s->events);
		free(s->texts);
		s->events = malloc(h.count * sizeof *s->events);
		s->texts = malloc(h.count * sizeof *s->texts);
		s->events_cap = s->events && s->texts ? h.count : 0;
		if (!s->events_cap)
			return;
	}
	uint32_t ntexts, names;
	const char *why;
	if (events_decode(body, len, h.count, s->events, s->texts, &ntexts, &names, &why))
		return;
	for (uint32_t i = 0; i < h.count; i++) {
		const struct profev_event *ev = &s->events[i];
		if (ev->type != PROFEV_EV_MEM_ALLOC && ev->type != PROFEV_EV_MEM_FREE) {
			if (ev->ts > s->start_ts)
				s->start_ts = ev->ts;
			if (ev->type != PROFEV_EV_FRAME_IMAGE && ev->frame > s->start_frame)
				s->start_frame = ev->frame;
		}
		if (ev->type != PROFEV_EV_ZONE_BEGIN && ev->type != PROFEV_EV_ZONE_END)
			continue;
		int added;
		struct open_stack *o = u64_map_insert(&s->stacks, (uint64_t)ev->tid + 1, &added);
		if (!o)
			continue;
		if (ev->type == PROFEV_EV_ZONE_END) {
			if (o->depth)
				o->depth--;
			continue;
		}
		if (o->depth == o->cap && o->cap < RING_MAX_DEPTH) {
			uint32_t cap = o->cap ? 2 * o->cap : 16;
			uint32_t *z = realloc(o->zones, 2 * cap * sizeof *z);
			if (z)
				o->zones = z, o->cap = cap;
		}
		if (o->depth < o->cap) {
			o->zones[2 * o->depth] = ev->name;
			o->zones[2 * o->depth + 1] = (uint32_t)ev->payload;
		}
		o->depth++;
	}
}

static void let_go(struct ring_store *s)
{
	struct ring_chunk *c = &s->q[s->head];
	if (c->kind == PROFEV_CHUNK_EVENTS) {
		follow(s, c);
		s->let_go_events += c->count;
	}
	s->bytes -= c->len;
	free(c->bytes);
	s->head = (s->head + 1) % s->cap;
	s->n--;
}

void ring_store_trim(struct ring_store *s, uint64_t now)
{
	while (s->n > 1) {
		const struct ring_chunk *c = &s->q[s->head];
		int old = s->keep_ns && now - c->arrived_ns > s->keep_ns;
		int big = s->keep_bytes && s->bytes > s->keep_bytes;
		if (!old && !big)
			break;
		let_go(s);
	}
}

int ring_store_sink(void *ctx, unsigned kind, const struct iovec *iov, int n, struct profev_error *err)
{
	struct ring_store *s = ctx;
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += iov[i].iov_len;
	if (kind == 0 || kind == PROFEV_CHUNK_END)
		return 0; /* the file header and the end: each snapshot writes its own */
	/* Definitions stay for every snapshot; what happened in time (events,
	 * images, GPU zones) goes round the ring. */
	if (kind != PROFEV_CHUNK_EVENTS && kind != PROFEV_CHUNK_IMAGE && kind != PROFEV_CHUNK_GPU_ZONES) {
		for (int i = 0; i < n; i++)
			if (buf_put(&s->defs, iov[i].iov_base, iov[i].iov_len))
				goto nomem;
		if (kind < RING_KINDS)
			s->def_entries[kind] += get_le32((const uint8_t *)iov[0].iov_base + 4);
		s->def_chunks++;
		return 0;
	}
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 64;
		struct ring_chunk *q = malloc(cap * sizeof *q);
		if (!q)
			goto nomem;
		for (uint32_t i = 0; i < s->n; i++)
			q[i] = s->q[(s->head + i) % s->cap];
		free(s->q);
		s->q = q;
		s->cap = cap;
		s->head = 0;
	}
	struct ring_chunk *c = &s->q[(s->head + s->n) % s->cap];
	if (!(c->bytes = malloc(len)))
		goto nomem;
	size_t at = 0;
	for (int i = 0; i < n; i++) {
		memcpy(c->bytes + at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	c->len = len;
	c->kind = kind;
	c->count = get_le32(c->bytes + 4);
	c->arrived_ns = mono_ns();
	s->n++;
	s->bytes += len;
	ring_store_trim(s, c->arrived_ns);
	return 0;
nomem:
	err_set(err, PROFEV_E_NOMEM, "out of memory for the ring");
	return PROFEV_E_NOMEM;
}

int ring_store_open_zones(const struct ring_store *s, struct event_encoder *e, uint64_t ts, uint64_t frame,
			  uint32_t *n)
{
	*n = 0;
	for (const struct open_stack *o = u64_map_next(&s->stacks, NULL); o; o = u64_map_next(&s->stacks, o)) {
		uint32_t known = o->depth < o->cap ? o->depth : o->cap;
		for (uint32_t k = 0; k < known; k++) {
			struct profev_event ev;
			memset(&ev, 0, sizeof ev);
			ev.ts = ts;
			ev.tid = (uint32_t)(o->key - 1);
			ev.type = PROFEV_EV_ZONE_BEFORE;
			ev.name = o->zones[2 * k];
			ev.payload = o->zones[2 * k + 1];
			ev.frame = frame;
			if (encoder_add(e, &ev, NULL, 0) < 0)
				return PROFEV_E_NOMEM;
			++*n;
		}
	}
	return 0;
}
