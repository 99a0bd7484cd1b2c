/*
 * Reading the sampler's rings (perf_sample.h): each CPU's ring is in time
 * order, but a thread that moves from one CPU to another leaves its
 * switch-out in one ring and its switch-in in another, so events wait in
 * a pending list, sorted, until no ring can still hold an earlier one.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include "rec/rec_internal.h"

#define HOLD_NS 4000000ull        /* how long events wait for other rings */

/* The records of ring r up to head: the side-band ones or the others. */
static int ring_read(struct perf_sampler *s, struct perf_ring *r, uint64_t head, int sideband)
{
	struct perf_event_mmap_page *pg = (void *)r->map;
	const unsigned char *data = r->map + s->page;
	uint64_t pos = pg->data_tail;
	int rc = 0;
	while (pos + sizeof(struct perf_event_header) <= head && rc >= 0) {
		size_t at = (size_t)(pos & (r->data_size - 1));
		struct perf_event_header hd;
		if (at + sizeof hd <= r->data_size) {
			memcpy(&hd, data + at, sizeof hd);
		} else {
			size_t k = r->data_size - at;
			memcpy(&hd, data + at, k);
			memcpy((unsigned char *)&hd + k, data, sizeof hd - k);
		}
		if (hd.size < sizeof hd || hd.size > head - pos)
			break; /* never from a sane kernel; stop rather than loop */
		const unsigned char *rec = data + at;
		if (at + hd.size > r->data_size) {
			size_t k = r->data_size - at;
			memcpy(s->rec, data + at, k);
			memcpy(s->rec + k, data, hd.size - k);
			rec = s->rec;
		}
		rc = perf_record_decode(s, rec, hd.size, sideband);
		pos += hd.size;
	}
	if (!sideband)
		__atomic_store_n(&pg->data_tail, pos, __ATOMIC_RELEASE);
	return rc;
}

static int by_ts(const void *a, const void *b)
{
	const struct profev_event *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* A switch out sorts before a switch in at the same ns. */
	return (x->type > y->type) - (x->type < y->type);
}

int perf_sampler_drain(struct perf_sampler *s, int final)
{
	if (s->failed)
		return -1;
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < s->nrings; i++) {
		struct perf_event_mmap_page *pg = (void *)s->rings[i].map;
		s->rings[i].head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	}
	for (int pass = 1; pass >= 0; pass--)
		for (int i = 0; i < s->nrings; i++)
			if (ring_read(s, &s->rings[i], s->rings[i].head, pass) < 0) {
				s->failed = 1;
				return -1;
			}
	if (!s->npending)
		return 0;
	qsort(s->pending, s->npending, sizeof *s->pending, by_ts);
	uint32_t k = 0;
	for (; k < s->npending; k++) {
		struct profev_event *ev = &s->pending[k];
		if (!final && ev->ts + HOLD_NS > now)
			break;
		if (ev->ts < s->emitted_ts)
			ev->ts = s->emitted_ts; /* held back too little: keep the order */
		s->emitted_ts = ev->ts;
		if (s->h.emit(s->h.ctx, ev) < 0) {
			s->failed = 1;
			return -1;
		}
	}
	memmove(s->pending, s->pending + k, (s->npending - k) * sizeof *s->pending);
	s->npending -= k;
	return 0;
}
