/*
 * rec/ring_store.h - pfrec --ring's memory of the newest chunks (not
 * installed): ring_store.c keeps them, snapshot.c writes them out.
 */
#ifndef PROFEV_REC_RING_STORE_H
#define PROFEV_REC_RING_STORE_H
#include "trace/trace_internal.h"

#define RING_KINDS 16
#define RING_MAX_DEPTH 1024u
#define RING_FLUSH_NS 100000000ull /* the writer makes its chunks this often */

struct ring_chunk {
	uint8_t *bytes;               /* header and stored body */
	size_t len;
	unsigned kind;                /* events or image */
	uint32_t count;
	uint64_t arrived_ns;          /* CLOCK_MONOTONIC when the writer made it */
};

struct ring_store {
	uint64_t keep_ns, keep_bytes; /* the ring's size: 0 for no limit */
	struct buf defs;              /* every other chunk, in order: definitions, metadata */
	uint64_t def_entries[RING_KINDS]; /* their entries by kind */
	uint32_t def_chunks;
	struct ring_chunk *q;         /* events and image chunks, oldest at head */
	uint32_t head, n, cap;
	uint64_t bytes;               /* of the chunks in q */
	uint64_t let_go_events;       /* in the events chunks let go */
	uint64_t start_ts;            /* the latest event time let go: where the window starts */
	uint64_t start_frame;         /* the frame then */
	struct u64_map stacks;        /* each thread's zones open at the ring's start */
	struct ZSTD_DCtx_s *dctx;
	struct buf raw;
	struct profev_event *events;
	struct event_text *texts;
	uint32_t events_cap;
};

#define ring_store_new profev__rec_ring_store_new
#define ring_store_free profev__rec_ring_store_free
#define ring_store_sink profev__rec_ring_store_sink
#define ring_store_trim profev__rec_ring_store_trim
#define ring_store_open_zones profev__rec_ring_store_open_zones

/* NULL on no memory. */
struct ring_store *ring_store_new(uint64_t keep_ns, uint64_t keep_bytes);
void ring_store_free(struct ring_store *s);
/* The writer's chunk sink (chunk_sink_fn) with ctx the store. */
int ring_store_sink(void *ctx, unsigned kind, const struct iovec *iov, int n, struct profev_error *err);
/* Lets go of the chunks older than keep_ns at now or past keep_bytes
 * (never the newest). */
void ring_store_trim(struct ring_store *s, uint64_t now);
/* The zones open at the ring's start into e as ZONE_BEFORE events at ts,
 * outermost first per thread; *n counts them. 0 or PROFEV_E_NOMEM. */
int ring_store_open_zones(const struct ring_store *s, struct event_encoder *e, uint64_t ts, uint64_t frame,
			  uint32_t *n);
#endif
