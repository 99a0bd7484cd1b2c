/*
 * The client's pipe (rec_internal.h, formats/wire.md): a stream of
 * messages, {magic, type, len, tid} and a body. Definitions and control
 * messages are decoded whole; an EVENTS body is decoded as it arrives,
 * record by record, and may span reads.
 */
#include <string.h>
#include "rec/rec_internal.h"

#define MAX_DEF_BODY (64u << 10) /* longest non-EVENTS message: names fit */

/*
 * Events the client dropped that no LOST record in a ring places: those of
 * threads whose ring was still full when they ended or when the program
 * exited (a pfrec that read nothing meanwhile). They are placed at the end,
 * on the program's main thread, after every event read so far, so that the
 * trace marks them as it marks the others.
 */
static int bye_lost(struct profev_recorder *r, uint64_t lost)
{
	if (!lost)
		return 0;
	r->lost += lost;
	uint64_t ts = r->exited_ns;
	for (uint32_t i = 0; i < r->nthr; i++)
		if (r->thr[i] && r->thr[i]->last_ns > ts)
			ts = r->thr[i]->last_ns;
	struct thr *t = thread_find(r, r->h.pid);
	if (t && t->last_ns < ts)
		t->last_ns = ts;
	struct profev_event ev = { 0 };
	ev.ts = ts;
	ev.tid = r->h.pid;
	ev.type = PROFEV_EV_LOST;
	ev.payload = lost;
	return emit_event(r, &ev) < 0 ? -2 : 0;
}

/* A whole non-EVENTS message. */
static int decode_message(struct profev_recorder *r, const struct pfw_header *h,
			  const unsigned char *b)
{
	if (!r->hello && h->type != PFW_HELLO)
		return -1;
	switch (h->type) {
	case PFW_HELLO:
		if (clock_hello(r, b, h->len) < 0)
			return -1;
		return window_begin(r);
	case PFW_DETACH:
		/* The attached program's last message: the recording ended. */
		if (r->attached && h->len >= sizeof(struct pfw_detach)) {
			struct pfw_detach d;
			memcpy(&d, b, sizeof d);
			return window_end(r, d.tick, d.frames);
		}
		return 0;
	case PFW_SITE:
		return def_site(r, b, h->len);
	case PFW_STRING:
		if (h->len < 4)
			return -1;
		uint32_t id;
		memcpy(&id, b, 4);
		return def_string(r, id, (const char *)b + 4, h->len - 4);
	case PFW_CATEGORY:
		return def_category(r, b, h->len);
	case PFW_THREAD:
		if (h->len > PFW_MAX_TEXT)
			return -1;
		return thread_get(r, h->tid, (const char *)b, h->len) ? 0 : -1;
	case PFW_SYNC:
		clock_sync(r, b, h->len);
		return 0;
	case PFW_THREAD_EXIT:
		thread_retire(r, h->tid);
		return 0;
	case PFW_MODULE:
		return def_module(r, b, h->len);
	case PFW_RING:
		return ring_attach(r, h, b);
	case PFW_RING_DATA:
		return ring_data(r, h, b);
	case PFW_IMAGES:
		return rec_images_map(&r->img, r->shm_fd, b, h->len);
	case PFW_CRASH:
		return decode_crash(r, h->tid, b, h->len);
	case PFW_TRIGGER:
		return trigger_message(r, h->tid, b, h->len);
	case PFW_GPU_CONTEXT:
	case PFW_GPU_CALIBRATION:
	case PFW_GPU_ZONES:
	case PFW_GPU_LOST:
		return decode_gpu(r, h, b);
	case PFW_BYE:
		if (h->len >= sizeof(struct pfw_bye)) {
			struct pfw_bye bye;
			memcpy(&bye, b, sizeof bye);
			return bye_lost(r, bye.lost);
		}
		return 0;
	default:
		return 0; /* unknown messages are skipped: newer clients may add some */
	}
}

/* Decode what r->buf holds (rec_internal.h). */
void decode_stream(struct profev_recorder *r)
{
	while (!r->bad) {
		size_t avail = r->len - r->off;
		unsigned char *p = r->buf + r->off;
		if (r->in_events) {
			if (r->body_left == 0) {
				r->in_events = 0;
				continue;
			}
			uint32_t a = avail < r->body_left ? (uint32_t)avail : r->body_left;
			uint32_t fast = decode_plain_run(r, p, a);
			if (fast) {
				r->off += fast;
				r->body_left -= fast;
				continue;
			}
			if (r->bad)
				break;
			long n = decode_record(r, p, a);
			if (n == 0) {
				if (a == r->body_left)
					stream_corrupt(r, "record crosses the end of its message");
				break;
			}
			if (n < 0) {
				if (n == -1)
					stream_corrupt(r, "malformed event record");
				break;
			}
			r->off += (size_t)n;
			r->body_left -= (uint32_t)n;
			continue;
		}
		if (avail < sizeof(struct pfw_header))
			break;
		struct pfw_header h;
		memcpy(&h, p, sizeof h);
		if (h.magic != PFW_MAGIC || h.len > PFW_MAX_BODY) {
			stream_corrupt(r, "bad message header");
			break;
		}
		if (h.type == PFW_EVENTS) {
			if (!r->hello || h.len % 16) {
				stream_corrupt(r, "events before the client's hello");
				break;
			}
			r->cur = thread_find(r, h.tid);
			if (!r->cur && !(r->cur = thread_get(r, h.tid, NULL, 0)))
				break;
			r->off += sizeof h;
			r->in_events = 1;
			r->body_left = h.len;
			continue;
		}
		if (h.len > MAX_DEF_BODY) {
			stream_corrupt(r, "message too long");
			break;
		}
		if (avail < sizeof h + h.len)
			break;
		int rc = decode_message(r, &h, p + sizeof h);
		if (rc < 0) {
			if (rc == -1)
				stream_corrupt(r, "malformed message");
			break;
		}
		r->off += sizeof h + h.len;
	}
}
