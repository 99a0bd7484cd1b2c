/*
 * pfrec --ring's snapshots: a trace of its own from what the ring holds
 * (ring_store.c). The file header, every definition and metadata chunk of
 * the recording (ids stay dense and defined before use), the zones open
 * at the ring's start as ZONE_BEFORE events, the ring's events and image
 * chunks as they are, the zones open now as ZONE_AFTER events, metadata
 * with the window, and the end chunk with the snapshot's own totals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "rec/rec_internal.h"
#include "rec/ring_store.h"

struct after_ctx {
	struct event_encoder *e;
	uint32_t n;
};

static int add_after(void *ctx, struct profev_event *ev)
{
	struct after_ctx *a = ctx;
	if (encoder_add(a->e, ev, NULL, 0) < 0)
		return PROFEV_E_NOMEM;
	a->n++;
	return 0;
}

/* The events chunk of e's n events, if any. */
static int put_events(struct chunk_store *cs, struct event_encoder *e, uint32_t n, struct buf *body,
		      struct profev_error *err)
{
	if (!n)
		return 0;
	if (encoder_finish(e, body))
		return PROFEV_E_NOMEM;
	return chunk_store_put(cs, PROFEV_CHUNK_EVENTS, n, body->data, body->len, 1, err);
}

int snapshot_write(struct profev_recorder *r, const struct profev_meta *exit_meta, char *path, size_t path_len)
{
	struct ring_store *s = r->ring;
	struct profev_error err;
	err_clear(&err);
	if (profev_writer_flush(r->w) < 0)
		return writer_failed(r);
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	uint32_t seq = ++r->snap_seq;
	snprintf(path, path_len, "%s-%03u.bin", r->o.snapshot_base, seq);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rec_warn(r, "unable to write snapshot '%s': %s", path, strerror(errno));
		return -1;
	}
	struct chunk_store *cs = chunk_store_new(fd, 1, 0);
	struct event_encoder *e = encoder_new(EVENTS_MAX_CHUNK);
	struct buf body = { 0 };
	int rc = !cs || !e ? PROFEV_E_NOMEM : 0;
	uint64_t events = 0, images = 0;

	uint8_t hdr[FILE_HEADER_SIZE] = { 0 };
	memcpy(hdr, FILE_MAGIC, 8);
	put_le16(hdr + 8, PROFEV_FORMAT_MAJOR);
	put_le16(hdr + 10, PROFEV_FORMAT_MINOR);
	if (!rc)
		rc = chunk_store_raw(cs, hdr, sizeof hdr, 0, &err);
	if (!rc && s->defs.len)
		rc = chunk_store_raw(cs, s->defs.data, s->defs.len, s->def_chunks, &err);
	uint64_t start = s->start_ts ? s->start_ts : r->mono_start;
	uint32_t n = 0;
	if (!rc && s->start_ts && !(rc = ring_store_open_zones(s, e, start, s->start_frame, &n)))
		rc = put_events(cs, e, n, &body, &err);
	events += n;
	for (uint32_t i = 0; i < s->n && !rc; i++) {
		const struct ring_chunk *c = &s->q[(s->head + i) % s->cap];
		rc = chunk_store_raw(cs, c->bytes, c->len, 1, &err);
		if (c->kind == PROFEV_CHUNK_EVENTS)
			events += c->count;
		else
			images++;
	}
	struct after_ctx a = { e, 0 };
	if (!rc && !exit_meta && !(rc = open_zones_each(r, now, add_after, &a)))
		rc = put_events(cs, e, a.n, &body, &err);
	events += a.n;

	struct profev_meta m = exit_meta ? *exit_meta : (struct profev_meta){ 0 };
	m.end_ns = now;
	m.lost_events = r->lost;
	m.ring_window_start_ns = start;
	m.ring_window_end_ns = now;
	m.ring_let_go_events = s->let_go_events;
	m.ring_snapshot = seq;
	uint32_t nm;
	if (!rc && !(rc = writer_meta_body(&body, &m, &nm)))
		rc = chunk_store_put(cs, PROFEV_CHUNK_META, nm, body.data, body.len, 1, &err);
	if (!rc) {
		uint64_t bytes, chunks;
		chunk_store_counts(cs, &bytes, &chunks);
		buf_reset(&body);
		if (buf_varint(&body, events) || buf_varint(&body, chunks) ||
		    buf_varint(&body, s->def_entries[PROFEV_CHUNK_STRINGS]) ||
		    buf_varint(&body, s->def_entries[PROFEV_CHUNK_STACKS]) ||
		    buf_varint(&body, s->def_entries[PROFEV_CHUNK_THREADS]) ||
		    buf_varint(&body, s->def_entries[PROFEV_CHUNK_MODULES]) ||
		    buf_varint(&body, s->def_entries[PROFEV_CHUNK_SYMBOLS]) || buf_varint(&body, images) ||
		    buf_varint(&body, r->lost) || buf_varint(&body, bytes))
			rc = PROFEV_E_NOMEM;
		else
			rc = chunk_store_put(cs, PROFEV_CHUNK_END, 10, body.data, body.len, 0, &err);
	}
	if (!rc)
		rc = chunk_store_drain(cs, &err);
	chunk_store_free(cs);
	encoder_free(e);
	buf_free(&body);
	if (close(fd) < 0 && !rc)
		rc = PROFEV_E_IO, err_set(&err, PROFEV_E_IO, "%s", strerror(errno));
	if (rc) {
		rec_warn(r, "snapshot '%s' could not be written: %s", path,
			 err.message[0] ? err.message : profev_strerror(rc));
		return -1;
	}
	r->last_snap_ns = now;
	return 0;
}
