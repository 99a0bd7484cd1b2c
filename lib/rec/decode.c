/*
 * The event records of a thread (rec_internal.h, formats/wire.md "Event
 * records"), from a pipe message's body or a shared ring, into trace
 * events. Plain zones, instants and frame marks, most of a stream, go to
 * the writer in batches (decode_plain_run); the rest one by one
 * (decode_record).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "rec/rec_internal.h"
#include "rec/ring_store.h"

#define FIXED_BATCH 256         /* records decoded before the writer codes them */

/* The plain records keep their type number in the trace. */
_Static_assert((int)PFW_R_ZONE_BEGIN == (int)PROFEV_EV_ZONE_BEGIN &&
		       (int)PFW_R_ZONE_END == (int)PROFEV_EV_ZONE_END &&
		       (int)PFW_R_INSTANT == (int)PROFEV_EV_INSTANT &&
		       (int)PFW_R_FRAME_MARK == (int)PROFEV_EV_FRAME_MARK,
	       "wire and trace types of zones, instants and frame marks");

/* mono0 plus d ticks at ns_per_tick = whole + frac / 2^64. */
static inline uint64_t fixed_tick_ns(uint64_t d, uint64_t mono0, uint64_t whole, uint64_t frac)
{
	return mono0 + d * whole + (uint64_t)(((unsigned __int128)d * frac) >> 64);
}

/* The trace time of a tick of t's, never before t's previous one. */
static inline uint64_t tick_ns(struct profev_recorder *r, struct thr *t, uint64_t tick)
{
	uint64_t v = likely(tick >= r->h.tick0)
			     ? fixed_tick_ns(tick - r->h.tick0, r->h.mono0, r->ns_whole, r->ns_frac)
			     : early_tick_ns(r, tick);
	if (v < t->last_ns)
		v = t->last_ns;
	t->last_ns = v;
	return v;
}

static inline void zone_push(struct thr *t, uint32_t name, uint32_t cat)
{
	if (unlikely(t->depth >= t->stack_cap) && t->depth < MAX_DEPTH)
		zone_stack_grow(t);
	if (t->depth++ < t->stack_cap) {
		t->stack[2 * t->depth - 2] = name;
		t->stack[2 * t->depth - 1] = cat;
	}
}

/*
 * Frame number of an event: default frame marks before it. Threads arrive
 * in batches, so a mark may come after events it precedes; the latest
 * marks are kept to place those, a mark still in flight cannot be.
 */
static uint64_t frame_of(const struct profev_recorder *r, uint64_t ts, uint32_t tid)
{
	uint64_t n = r->marks;
	for (; n > 0 && r->marks - n < 64; n--) {
		uint64_t m = r->mark_ts[(n - 1) % 64];
		/* A coarse counter (24 MHz on some arm64 machines) gives a
		 * mark and the next event of its thread the same tick: the
		 * thread's own order, in which it arrives here, places it. */
		if (m < ts || (m == ts && r->mark_tid[(n - 1) % 64] == tid))
			break;
	}
	return n;
}

int emit_event(struct profev_recorder *r, struct profev_event *ev)
{
	if (ev->type != PROFEV_EV_MEM_ALLOC && ev->type != PROFEV_EV_MEM_FREE &&
	    ev->type != PROFEV_EV_FRAME_IMAGE)
		ev->frame = frame_of(r, ev->ts, ev->tid);
	if (ev->type == PROFEV_EV_FRAME_MARK && ev->name == 0) {
		r->mark_tid[r->marks % 64] = ev->tid;
		r->mark_ts[r->marks++ % 64] = ev->ts;
	}
	if (profev_writer_event(r->w, ev) < 0)
		return writer_failed(r);
	r->events++;
	return 0;
}

/*
 * The callstack at p (avail bytes) as a callstack id in *id (0 for an
 * empty stack). @return its size in bytes, 0 if incomplete, -1 if
 * malformed, -2 if the trace could not be written.
 */
static long decode_callstack(struct profev_recorder *r, const unsigned char *p, uint32_t avail,
			     uint32_t *id)
{
	if (avail < 8)
		return 0;
	uint64_t head;
	memcpy(&head, p, 8);
	uint32_t n = (uint32_t)(head & 0xffff);
	if (n > PFW_MAX_FRAMES || (head >> 17))
		return -1;
	uint32_t size = pfw_stack_size(n);
	if (size > avail)
		return 0;
	*id = 0;
	if (!n)
		return size;
	struct profev_frame f[PFW_MAX_FRAMES];
	for (uint32_t i = 0; i < n; i++) {
		uint64_t pc;
		memcpy(&pc, p + 8 + 8 * i, 8);
		/* Every frame but an exact innermost one is a return address:
		 * the call it returns from is the byte before. */
		uint32_t flags = i == 0 && (head & PFW_STACK_EXACT) ? 0 : PROFEV_FRAMEF_RETURN;
		f[i] = module_map_frame(&r->mods, pc, flags);
	}
	if (!(*id = profev_writer_stack(r->w, f, n)))
		return writer_failed(r), -2;
	return size;
}

/* The record at p (avail bytes available, all of this message); see
 * rec_internal.h. */
long decode_record(struct profev_recorder *r, const unsigned char *p, uint32_t avail)
{
	if (avail < PFW_REC_HEAD)
		return 0;
	uint64_t tick, word;
	memcpy(&tick, p, 8);
	memcpy(&word, p + 8, 8);
	unsigned type = word & 0xff, cat = (word >> 16) & 0xffff;
	uint32_t arg = (uint32_t)(word >> 32);
	struct thr *t = r->cur;
	struct profev_event ev;
	memset(&ev, 0, sizeof ev);
	ev.tid = t->tid;

	switch (type) {
	case PFW_R_PAD:
		if (arg < PFW_REC_HEAD || arg % 16)
			return -1;
		return arg <= avail ? (long)arg : 0;
	case PFW_R_ZONE_END:
		if (!t->depth && r->window_open) {
			/* Attached: a zone the thread began before the recording
			 * ends. It is marked as begun at the window's start. */
			ev.ts = r->window_ns;
			/* --ring: not before what the ring keeps */
			if (r->ring && r->ring->start_ts > ev.ts)
				ev.ts = r->ring->start_ts;
			ev.type = PROFEV_EV_ZONE_BEFORE;
			ev.name = map_string(r, arg);
			ev.payload = map_cat(r, cat);
			if (emit_event(r, &ev) < 0)
				return -2;
			ev.ts = tick_ns(r, t, tick);
			ev.type = PROFEV_EV_ZONE_END;
			return emit_event(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD;
		}
		/* fall through */
	case PFW_R_ZONE_BEGIN:
	case PFW_R_INSTANT: {
		/* Callers try decode_plain_run() first; this keeps one way of
		 * decoding them should one not. */
		uint32_t n = decode_plain_run(r, p, avail);
		return r->bad ? -2 : (long)n;
	}
	case PFW_R_FRAME_MARK:
		ev.ts = tick_ns(r, t, tick);
		ev.type = PROFEV_EV_FRAME_MARK;
		ev.name = arg ? map_string(r, arg) : 0;
		return emit_event(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD;
	case PFW_R_COUNTER:
	case PFW_R_LOST: {
		if (avail < PFW_REC_LONG)
			return 0;
		uint64_t extra;
		memcpy(&extra, p + 16, 8);
		ev.ts = tick_ns(r, t, tick);
		if (type == PFW_R_COUNTER) {
			double v;
			memcpy(&v, &extra, 8);
			ev.type = PROFEV_EV_COUNTER;
			ev.name = map_string(r, arg);
			profev_event_set_double(&ev, v);
		} else {
			ev.type = PROFEV_EV_LOST;
			ev.payload = extra;
			r->lost += extra;
		}
		return emit_event(r, &ev) < 0 ? -2 : (long)PFW_REC_LONG;
	}
	case PFW_R_FRAME_IMAGE:
	case PFW_R_IMAGE_LOST: {
		if (avail < PFW_REC_LONG)
			return 0;
		uint64_t size, extra;
		memcpy(&size, p + 16, 8);
		memcpy(&extra, p + 24, 8);
		if (type == PFW_R_IMAGE_LOST) {
			r->img.lost += size;
			r->img.refused += extra;
			return PFW_REC_LONG;
		}
		/* The image shows frame (frames so far - offset). */
		ev.ts = tick_ns(r, t, tick);
		uint64_t frame = frame_of(r, ev.ts, ev.tid);
		frame = extra < frame ? frame - extra : 0;
		uint32_t id;
		int rc = rec_image(&r->img, r->w, arg, (uint32_t)size, (uint32_t)(size >> 32),
				   (int)((word >> 8) & PFW_RF_FLIP), ev.ts, frame, &id);
		if (rc < 0)
			return writer_failed(r), -2;
		if (rc == 0)
			return PFW_REC_LONG;
		ev.type = PROFEV_EV_FRAME_IMAGE;
		ev.frame = frame;
		ev.payload = id;
		return emit_event(r, &ev) < 0 ? -2 : (long)PFW_REC_LONG;
	}
	case PFW_R_MEM_ALLOC:
	case PFW_R_MEM_FREE:
	case PFW_R_MEM_ALLOC_S:
	case PFW_R_MEM_FREE_S: {
		if (avail < PFW_REC_LONG)
			return 0;
		long size = PFW_REC_LONG;
		if (type >= PFW_R_MEM_ALLOC_S) {
			long k = decode_callstack(r, p + PFW_REC_LONG, avail - PFW_REC_LONG, &ev.stack);
			if (k <= 0)
				return k;
			size += k;
		}
		ev.ts = tick_ns(r, t, tick);
		ev.type = type == PFW_R_MEM_ALLOC || type == PFW_R_MEM_ALLOC_S ? PROFEV_EV_MEM_ALLOC
										: PROFEV_EV_MEM_FREE;
		memcpy(&ev.addr, p + 16, 8);
		if (ev.type == PROFEV_EV_MEM_ALLOC)
			memcpy(&ev.payload, p + 24, 8);
		ev.name = arg ? map_string(r, arg) : 0;
		if ((word >> 8) & PFW_RF_SECURE)
			ev.flags = PROFEV_EVF_SECURE;
		return emit_event(r, &ev) < 0 ? -2 : size;
	}
	case PFW_R_ZONE_BEGIN_S: {
		long k = decode_callstack(r, p + PFW_REC_HEAD, avail - PFW_REC_HEAD, &ev.stack);
		if (k <= 0)
			return k;
		ev.ts = tick_ns(r, t, tick);
		ev.type = PROFEV_EV_ZONE_BEGIN;
		ev.name = map_string(r, arg);
		ev.payload = map_cat(r, cat);
		zone_push(t, ev.name, (uint32_t)ev.payload);
		return emit_event(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD + k;
	}
	case PFW_R_ARG:
	case PFW_R_FLOW_OUT:
	case PFW_R_FLOW_IN:
		/* No time: the value stands where ts would; the event belongs to
		 * the zone open before it, or (PFW_RF_POINT) to the instant or
		 * message after it. */
		if (!t->depth && !(type == PFW_R_ARG && (word >> 8) & PFW_RF_POINT)) {
			r->dropped_args++;
			return PFW_REC_HEAD;
		}
		ev.ts = t->last_ns;
		ev.payload = tick;
		if (type == PFW_R_ARG) {
			unsigned kind = (word >> 8) & 0xff & ~PFW_RF_POINT;
			if (kind > PFW_AK_PTR)
				return -1;
			ev.type = (word >> 8) & PFW_RF_POINT ? PROFEV_EV_POINT_ARG : PROFEV_EV_ARG;
			ev.name = map_string(r, arg);
			ev.flags = (uint8_t)(kind << 3);
			if (kind == PFW_AK_DOUBLE)
				ev.flags |= PROFEV_EVF_DOUBLE;
		} else {
			ev.type = type == PFW_R_FLOW_OUT ? PROFEV_EV_FLOW_OUT : PROFEV_EV_FLOW_IN;
		}
		return emit_event(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD;
	case PFW_R_ARG_STR: {
		if (tick > PFW_MAX_ARG_STR)
			return -1;
		uint32_t size = pfw_var_size((uint32_t)tick);
		if (size > avail)
			return 0;
		int point = (word >> 8) & PFW_RF_POINT;
		if (!t->depth && !point) {
			r->dropped_args++;
			return size;
		}
		uint32_t id = profev_writer_string(r->w, (const char *)p + PFW_REC_HEAD, (size_t)tick);
		if (!id)
			return writer_failed(r), -2;
		ev.ts = t->last_ns;
		ev.type = point ? PROFEV_EV_POINT_ARG : PROFEV_EV_ARG;
		ev.name = map_string(r, arg);
		ev.payload = id;
		ev.flags = PROFEV_AK_STR << 3;
		if ((word >> 8) & PFW_RF_TRUNCATED)
			ev.flags |= PROFEV_EVF_TRUNCATED;
		if (((word >> 8) & PFW_RF_ZONE_NAME) && !point)
			ev.flags |= PROFEV_EVF_ZONE_NAME;
		return emit_event(r, &ev) < 0 ? -2 : (long)size;
	}
	case PFW_R_ASYNC_BEGIN:
	case PFW_R_ASYNC_END:
	case PFW_R_LOCK_WAIT:
	case PFW_R_LOCK_ACQUIRED:
	case PFW_R_LOCK_RELEASED: {
		static const uint8_t types[] = { PROFEV_EV_ASYNC_BEGIN, PROFEV_EV_ASYNC_END,
						 PROFEV_EV_LOCK_WAIT, PROFEV_EV_LOCK_ACQUIRED,
						 PROFEV_EV_LOCK_RELEASED };
		if (avail < PFW_REC_LONG)
			return 0;
		ev.ts = tick_ns(r, t, tick);
		ev.type = types[type - PFW_R_ASYNC_BEGIN];
		ev.name = arg ? map_string(r, arg) : 0;
		memcpy(&ev.payload, p + 16, 8);
		return emit_event(r, &ev) < 0 ? -2 : (long)PFW_REC_LONG;
	}
	case PFW_R_FRAME_START:
	case PFW_R_FRAME_END:
		ev.ts = tick_ns(r, t, tick);
		ev.type = type == PFW_R_FRAME_START ? PROFEV_EV_FRAME_START : PROFEV_EV_FRAME_END;
		ev.name = map_string(r, arg);
		return emit_event(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD;
	case PFW_R_MESSAGE_AT: {
		if (arg > PFW_MAX_TEXT)
			return -1;
		uint32_t size = PFW_REC_HEAD + pfw_var_size(arg);
		if (size > avail)
			return 0;
		uint64_t site;
		memcpy(&site, p + 16, 8);
		ev.ts = tick_ns(r, t, tick);
		ev.type = PROFEV_EV_MESSAGE;
		ev.name = site <= UINT32_MAX ? map_string(r, (uint32_t)site) : 0;
		ev.payload = map_cat(r, cat);
		ev.frame = frame_of(r, ev.ts, ev.tid);
		if (profev_writer_message(r->w, &ev, (const char *)p + PFW_REC_LONG, arg) < 0)
			return writer_failed(r), -2;
		r->events++;
		return size;
	}
	case PFW_R_MESSAGE:
	case PFW_R_THREAD_NAME:
	case PFW_R_ZONE_DYN: {
		if (arg > PFW_MAX_TEXT)
			return -1;
		uint32_t size = pfw_var_size(arg);
		if (size > avail)
			return 0;
		const char *text = (const char *)p + PFW_REC_HEAD;
		ev.ts = tick_ns(r, t, tick);
		if (type == PFW_R_MESSAGE) {
			ev.type = PROFEV_EV_MESSAGE;
			ev.payload = map_cat(r, cat);
			ev.frame = frame_of(r, ev.ts, ev.tid);
			if (profev_writer_message(r->w, &ev, text, arg) < 0)
				return writer_failed(r), -2;
			r->events++;
			return size;
		}
		uint32_t id = name_id(r, text, arg);
		if (!id)
			return writer_failed(r), -2;
		if (type == PFW_R_THREAD_NAME) {
			if (!thread_get(r, t->tid, text, arg))
				return -2;
			ev.type = PROFEV_EV_THREAD_NAME;
		} else {
			ev.type = PROFEV_EV_ZONE_BEGIN;
			ev.payload = map_cat(r, cat);
			zone_push(t, id, (uint32_t)ev.payload);
		}
		ev.name = id;
		return emit_event(r, &ev) < 0 ? -2 : (long)size;
	}
	default:
		return -1;
	}
}

/* The signals the client's crash handler catches, by name. */
static int signal_name(uint32_t sig, char *buf, size_t len)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGILL, "SIGILL" },
		{ SIGFPE, "SIGFPE" }, { SIGABRT, "SIGABRT" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if ((uint32_t)names[i].sig == sig)
			return snprintf(buf, len, "%s", names[i].name);
	return snprintf(buf, len, "signal %u", sig);
}

int decode_crash(struct profev_recorder *r, uint32_t tid, const unsigned char *b, uint32_t len)
{
	struct pfw_crash c;
	if (len < sizeof c)
		return -1;
	memcpy(&c, b, sizeof c);
	struct profev_event ev;
	memset(&ev, 0, sizeof ev);
	long k = decode_callstack(r, b + sizeof c, len - sizeof c, &ev.stack);
	if (k <= 0)
		return k == 0 ? -1 : (int)k; /* the message is whole: not incomplete */
	struct thr *t = thread_get(r, tid, NULL, 0);
	if (!t)
		return -2;
	char name[32];
	int n = signal_name(c.signal, name, sizeof name);
	ev.ts = tick_ns(r, t, c.tick);
	ev.tid = tid;
	ev.type = PROFEV_EV_CRASH;
	ev.payload = c.addr;
	if (!(ev.name = name_id(r, name, (size_t)n)))
		return writer_failed(r), -2;
	return emit_event(r, &ev) < 0 ? -2 : 0;
}

/*
 * The records a tight loop produces (zones, instants, default frame marks),
 * as many as follow each other in [p, p + avail): @return bytes decoded.
 * Everything else goes through decode_record().
 */
uint32_t decode_plain_run(struct profev_recorder *r, const unsigned char *p, uint32_t avail)
{
	struct thr *t = r->cur;
	struct plain_event ev[FIXED_BATCH];
	/* What the loop reads lives in locals: its stores could alias it. */
	const uint64_t tick0 = r->h.tick0, mono0 = r->h.mono0;
	const uint64_t whole = r->ns_whole, frac = r->ns_frac, marks = r->marks;
	const uint64_t last_mark = marks ? r->mark_ts[(marks - 1) % 64] : 0;
	const uint32_t *strings = r->strings, *cats = r->cats;
	const uint32_t nstrings = r->nstrings, ncats = r->ncats;
	uint32_t *stack = t->stack, scap = t->stack_cap;
	uint64_t last = t->last_ns, frame = marks;
	uint32_t depth = t->depth, off = 0;
	const int attached = r->window_open; /* an end at depth 0: decode_record's */
	for (int more = 1; more;) {
		uint64_t next_frame = frame;
		uint32_t room = (avail - off) / PFW_REC_HEAD;
		const unsigned char *rec = p + off;
		const unsigned char *end = rec + PFW_REC_HEAD * (room < FIXED_BATCH ? room : FIXED_BATCH);
		struct plain_event *e = ev;
		for (; rec < end; rec += PFW_REC_HEAD, e++) {
			uint64_t tick, word;
			memcpy(&tick, rec, 8);
			memcpy(&word, rec + 8, 8);
			const unsigned type = word & 0xff, cat = (word >> 16) & 0xffff;
			const uint32_t arg = (uint32_t)(word >> 32);
			if (type - PFW_R_ZONE_BEGIN > PFW_R_INSTANT - PFW_R_ZONE_BEGIN || type == PFW_R_COUNTER)
				break;
			if (unlikely(type == PFW_R_ZONE_END && !depth && attached))
				break;
			uint64_t ts = likely(tick >= tick0) ? fixed_tick_ns(tick - tick0, mono0, whole, frac)
							    : early_tick_ns(r, tick);
			ts = ts < last ? last : ts;
			/* Events before the latest default frame mark belong to an
			 * earlier frame: they end the batch, which has one frame. */
			if (unlikely(marks && ts <= last_mark)) {
				next_frame = frame_of(r, ts, t->tid);
				if (next_frame != frame)
					break;
			} else if (unlikely(frame != marks)) {
				next_frame = marks;
				break;
			}
			last = ts;
			uint32_t name = arg < nstrings ? strings[arg] : 0;
			uint32_t cid = cat < ncats ? cats[cat] : 0;
			if (type == PFW_R_ZONE_BEGIN) {
				if (unlikely(depth >= scap) && depth < MAX_DEPTH) {
					zone_stack_grow(t);
					stack = t->stack;
					scap = t->stack_cap;
				}
				if (depth++ < scap) {
					stack[2 * depth - 2] = name;
					stack[2 * depth - 1] = cid;
				}
			} else if (type == PFW_R_ZONE_END && depth) {
				if (depth-- <= scap && !arg)
					name = stack[2 * depth];
			}
			*e = (struct plain_event){ ts, name, cid, type, 0 };
		}
		uint32_t n = (uint32_t)(e - ev);
		off += n * PFW_REC_HEAD;
		more = n == FIXED_BATCH || next_frame != frame;
		if (n && writer_add_plain(r->w, t->tid, frame, ev, n) < 0) {
			writer_failed(r);
			break;
		}
		r->events += n;
		frame = next_frame;
	}
	t->last_ns = last;
	t->depth = depth;
	return off;
}

/*
 * Records of the current thread in [p, p + len), a whole number of them:
 * a ring's records never cross its end. 0, or -1 (stream marked bad).
 */
int decode_ring_span(struct profev_recorder *r, const unsigned char *p, uint32_t len)
{
	uint32_t off = 0;
	while (off < len && !r->bad) {
		off += decode_plain_run(r, p + off, len - off);
		if (off == len || r->bad)
			break;
		long n = decode_record(r, p + off, len - off);
		if (n <= 0) {
			if (n != -2)
				stream_corrupt(r, n == 0 ? "record crosses the end of its ring"
							 : "malformed event record");
			return -1;
		}
		off += (uint32_t)n;
	}
	return r->bad ? -1 : 0;
}
