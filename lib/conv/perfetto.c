/*
 * Perfetto target: a Trace of TracePackets (the .proto files in formats/perfetto hold
 * the subset written here, with Perfetto's field numbers).
 *
 * Packet sequences. Each thread and frame set writes on a sequence of its
 * own (SEQ_FIRST + its creation order), as a Perfetto TraceWriter per
 * thread would: its first packet in a part clears the incremental state,
 * sets TracePacketDefaults (the track, so that events leave track_uuid out,
 * and an incremental clock, so that timestamps are deltas from the packet
 * before on the sequence, a byte or two) and a ClockSnapshot that starts
 * that clock. A time that would go back on it (a lock wait's begin, a
 * counter of the thread) is written whole on the trace clock instead.
 * What no thread's clock orders (the process, memory, callstacks, samples,
 * images, counters of another thread) is on sequence 1, with whole
 * timestamps, as before. Interning is per sequence, as Perfetto's is: the
 * trace's string ids serve as interning ids, and each string is defined on
 * a sequence in the packet that first uses it there in the part; callstacks
 * and what they refer to only on sequence 1. A sequence's first packet
 * has sequence_flags SEQ_INCREMENTAL_STATE_CLEARED; later ones have
 * SEQ_NEEDS_INCREMENTAL_STATE where trace_packet.proto asks for it: every
 * packet of a track sequence (its TracePacketDefaults require it) and the
 * packets of sequence 1 that refer to interned data. Two bytes of every
 * event, which a reader needs to skip packets whose state was lost. Tracks are
 * described (TrackDescriptor) before their first event: a process track, a
 * thread track per thread, a counter track per counter and a track per
 * frame set.
 *
 * The target's files: perfetto.c (the ops table, tracks, instants,
 * counters, memory, async spans, lock waits, images), perfetto_packets.c
 * and .h (sequences, interning, the TrackEvent packet, arguments),
 * perfetto_zones.c (the zone path, written byte by byte),
 * perfetto_callstacks.c and perfetto_samples.c (samples and context
 * switches); perfetto_proto.h holds Perfetto's field numbers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/perfetto_packets.h"
#include "trace/trace_internal.h"
#include "common/common.h"

static int perfetto_init(struct conv *c)
{
	struct perfetto *p = calloc(1, sizeof(struct perfetto));
	if (!p)
		return PROFEV_E_NOMEM;
	perfetto_seq_init(&p->shared, SEQ_SHARED);
	u64_map_init(&p->asyncs, sizeof(uint64_t));
	p->cur = &p->shared;
	c->fmt = p;
	return 0;
}

static void seq_free(struct perfetto_seq *s)
{
	u64_map_free(&s->names);
	u64_map_free(&s->cats);
	u64_map_free(&s->srclocs);
	u64_map_free(&s->arg_names);
}

static void perfetto_fini(struct conv *c)
{
	struct perfetto *p = c->fmt;
	if (!p)
		return;
	conv_idset_free(&p->counters);
	conv_idset_free(&p->pools);
	conv_idset_free(&p->stacks);
	conv_idset_free(&p->mappings);
	seq_free(&p->shared);
	for (uint32_t i = 0; i < p->nseqs; i++)
		if (p->seqs[i]) {
			seq_free(p->seqs[i]);
			free(p->seqs[i]);
		}
	free(p->seqs);
	u64_map_free(&p->asyncs);
	free(p->zone_fields);
	free(p->frames);
	free(p->new_frames);
	free(p->new_modules);
	conv_shots_free(&p->shots);
	free(p);
}


static int perfetto_part_begin(struct conv *c)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	/* Each part is a trace of its own: everything is defined again, and
	 * each track sequence starts again with its track's first event. */
	conv_idset_clear(&p->counters);
	conv_idset_clear(&p->pools);
	conv_idset_clear(&p->stacks);
	conv_idset_clear(&p->mappings);
	u64_map_clear(&p->shared.names);
	u64_map_clear(&p->shared.cats);
	u64_map_clear(&p->shared.srclocs);
	u64_map_clear(&p->shared.arg_names);
	p->cur = &p->shared;
	p->last_t = NULL;
	p->open_t = NULL;
	u64_map_clear(&p->asyncs);
	p->allocs_track = 0;
	p->shots_track = 0;
	p->part++;
	p->shared.part = p->part;

	const struct profev_meta *m = profev_reader_meta(c->r);
	size_t need = PACKET_MAX;
	if (c->program)
		need += 3 * strlen(c->program) + PB_FIELD_MAX;
	for (uint32_t i = 0; m && i < m->argc; i++)
		need += 3 * strlen(m->argv[i] ? m->argv[i] : "") + PB_FIELD_MAX;
	int rc = outbuf_reserve(o, need);
	if (rc)
		return rc;
	size_t pk = perfetto_packet_begin(c, c->now, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_uint(o, TP_FIRST_PACKET_ON_SEQUENCE, 1);
	size_t td = pb_begin(o, TP_TRACK_DESCRIPTOR);
	pb_uint(o, TD_UUID, UUID_PROCESS);
	size_t pd = pb_begin(o, TD_PROCESS);
	pb_int(o, PD_PID, (int32_t)c->pid);
	for (uint32_t i = 0; m && i < m->argc; i++) {
		const char *a = m->argv[i] ? m->argv[i] : "";
		c->st.replaced_bytes += pb_string_utf8(o, PD_CMDLINE, a, strlen(a));
	}
	if (c->program) {
		const char *b = basename_of(c->program);
		c->st.replaced_bytes += pb_string_utf8(o, PD_PROCESS_NAME, b, strlen(b));
	}
	pb_end(o, pd);
	pb_end(o, td);
	pb_end(o, pk);

	/* Lets the UI show wall-clock time: our timestamps are CLOCK_MONOTONIC
	 * values written as the trace clock. Taken at the trace's base, where
	 * each track sequence's clock starts too: trace_processor wants a
	 * clock's values in its snapshots never to go back. */
	uint64_t back = m && m->mono_start_ns >= c->base ? m->mono_start_ns - c->base : 0;
	if (m && m->wall_start_ns > 0 && m->mono_start_ns && m->mono_start_ns >= c->base &&
	    back < (uint64_t)m->wall_start_ns) {
		if ((rc = outbuf_reserve(o, PACKET_MAX)))
			return rc;
		pk = perfetto_packet_begin(c, c->base, 0);
		size_t cs = pb_begin(o, TP_CLOCK_SNAPSHOT);
		size_t k = pb_begin(o, CS_CLOCKS);
		pb_uint(o, CLOCK_ID, BUILTIN_CLOCK_BOOTTIME);
		pb_uint(o, CLOCK_TIMESTAMP, c->base);
		pb_end(o, k);
		k = pb_begin(o, CS_CLOCKS);
		pb_uint(o, CLOCK_ID, BUILTIN_CLOCK_REALTIME);
		pb_uint(o, CLOCK_TIMESTAMP, (uint64_t)m->wall_start_ns - back);
		pb_end(o, k);
		pb_end(o, cs);
		pb_end(o, pk);
	}
	return 0;
}

static int perfetto_part_end(struct conv *c)
{
	(void)c;
	return 0;
}


static int perfetto_thread(struct conv *c, struct conv_thread *t)
{
	struct outbuf *o = &c->out;
	size_t len = strlen(t->name);
	int rc = perfetto_seq_use(c, t);
	if (!rc)
		rc = outbuf_reserve(o, PACKET_MAX + 3 * len + 16);
	if (rc)
		return rc;
	size_t pk = perfetto_packet_begin(c, c->now, 0);
	size_t td = pb_begin(o, TP_TRACK_DESCRIPTOR);
	if (t->kind == CONV_FRAMES) {
		pb_uint(o, TD_UUID, UUID_FRAMES(t->tid));
		pb_uint(o, TD_PARENT_UUID, UUID_PROCESS);
		size_t n = pb_begin(o, TD_NAME);
		if (len) {
			outbuf_lit(o, "Frames: ");
			c->st.replaced_bytes += pb_utf8(o, t->name, len);
		} else {
			outbuf_lit(o, "Frames");
		}
		pb_end(o, n);
	} else {
		pb_uint(o, TD_UUID, UUID_THREAD(t->tid));
		pb_uint(o, TD_PARENT_UUID, UUID_PROCESS);
		size_t th = pb_begin(o, TD_THREAD);
		pb_int(o, THD_PID, (int32_t)t->pid);
		pb_int(o, THD_TID, (int32_t)t->tid);
		if (len)
			c->st.replaced_bytes += pb_string_utf8(o, THD_THREAD_NAME, t->name, len);
		pb_end(o, th);
	}
	pb_end(o, td);
	pb_end(o, pk);
	return 0;
}


/* An instant (named name, 0: the caller names it) of t with its arguments. */
static int point_open(struct conv *c, struct te_marks *m, struct conv_thread *t,
		      const struct profev_event *ev, uint32_t name, size_t extra)
{
	struct perfetto *p = c->fmt;
	uint32_t n;
	const struct profev_event *a = conv_point_args(t, &n);
	int rc = perfetto_seq_use(c, t);
	if (rc)
		return rc;
	p->key_args = a;
	p->nkey_args = n;
	rc = perfetto_te_open(c, m, c->now, TYPE_INSTANT, perfetto_track_uuid(t), name, (uint32_t)ev->payload,
		     extra + (n ? perfetto_args_room(c, a, n) : 0));
	p->nkey_args = 0;
	if (!rc && n)
		perfetto_args_write(c, a, n);
	return rc;
}

static int perfetto_instant(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct te_marks m;
	int rc = point_open(c, &m, t, ev, ev->name, 0);
	if (!rc)
		perfetto_te_close(c, &m);
	return rc;
}

/* A message: an instant named by its first line, carrying the whole text. */
static int perfetto_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const char *text, size_t len)
{
	struct outbuf *o = &c->out;
	struct te_marks m;
	size_t title = conv_message_title(text, len, TITLE_MAX);
	int rc = point_open(c, &m, t, ev, 0, 3 * (len + title) + 4 * PB_FIELD_MAX);
	if (rc)
		return rc;
	c->st.replaced_bytes += pb_string_utf8(o, TE_NAME, text, title);
	perfetto_annotation_string(c, "text", text, len);
	perfetto_te_close(c, &m);
	return 0;
}

static int perfetto_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct te_marks m;
	int rc = perfetto_seq_use(c, t);
	if (!rc)
		rc = perfetto_te_open(c, &m, c->now, TYPE_INSTANT, perfetto_track_uuid(t), 0, 0, 0);
	if (rc)
		return rc;
	pb_bytes(&c->out, TE_NAME, "lost events", 11);
	perfetto_annotation_uint(&c->out, "count", ev->payload);
	perfetto_te_close(c, &m);
	return 0;
}

/* A counter value: on its thread's sequence when that thread wrote last
 * (counters come in their thread's runs of events), else on sequence 1.
 * A whole number is written as one, in fewer bytes than a double, for
 * trace_processor keeps counter values as doubles either way. */
static int perfetto_counter(struct conv *c, const struct profev_event *ev)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	const struct conv_thread *t = p->last_t;
	struct perfetto_seq *s = t && t->kind == CONV_THREAD && t->tid == ev->tid ? perfetto_seq_ready(p, t) : NULL;
	p->cur = s ? s : &p->shared;
	int fresh = conv_idset_add(&p->counters, ev->name);
	if (fresh < 0)
		return fresh;
	if (fresh) {
		const char *name = profev_reader_string(c->r, ev->name);
		size_t len = strlen(name);
		int rc = outbuf_reserve(o, PACKET_MAX + 3 * len);
		if (rc)
			return rc;
		size_t pk = perfetto_packet_begin(c, c->now, 0);
		size_t td = pb_begin(o, TP_TRACK_DESCRIPTOR);
		pb_uint(o, TD_UUID, UUID_COUNTER(ev->name));
		pb_uint(o, TD_PARENT_UUID, UUID_PROCESS);
		c->st.replaced_bytes += pb_string_utf8(o, TD_NAME, name, len);
		size_t cd = pb_begin(o, TD_COUNTER);
		pb_end(o, cd);
		pb_end(o, td);
		pb_end(o, pk);
	}
	int rc = outbuf_reserve(o, FAST_PACKET_MAX);
	if (rc)
		return rc;
	uint8_t *plen, *telen;
	uint8_t *q = perfetto_fast_head(p->cur, o->p, c->now, &plen, &telen);
	*q++ = TE_TYPE << 3 | PB_WT_VARINT;
	*q++ = TYPE_COUNTER;
	*q++ = TE_TRACK_UUID << 3 | PB_WT_VARINT;
	q = pb_put_varint(q, UUID_COUNTER(ev->name));
	double d;
	memcpy(&d, &ev->payload, sizeof(d));
	if (!(ev->payload >> 63) && d < 72057594037927936.0 && d == (double)(uint64_t)d) {
		/* 0 to 2^56: at most 8 bytes of varint, as exact as the double */
		q = pb_put_varint(q, TE_COUNTER_VALUE << 3 | PB_WT_VARINT);
		q = pb_put_varint(q, (uint64_t)d);
		perfetto_fast_tail(o, q, plen, telen);
		return 0;
	}
	q = pb_put_varint(q, TE_DOUBLE_COUNTER_VALUE << 3 | PB_WT_I64);
	perfetto_put8(q, ev->payload); /* the double's bits, little-endian */
	perfetto_fast_tail(o, q + 8, plen, telen);
	return 0;
}

/* A track of the process's own: described once per part. */
static void named_track(struct conv *c, uint64_t uuid, const char *prefix, const char *name, int bytes)
{
	struct outbuf *o = &c->out;
	size_t pk = perfetto_packet_begin(c, c->now, 0);
	size_t td = pb_begin(o, TP_TRACK_DESCRIPTOR);
	pb_uint(o, TD_UUID, uuid);
	pb_uint(o, TD_PARENT_UUID, UUID_PROCESS);
	size_t n = pb_begin(o, TD_NAME);
	outbuf_put(o, prefix, strlen(prefix));
	c->st.replaced_bytes += pb_utf8(o, name, strlen(name));
	pb_end(o, n);
	if (bytes) {
		size_t cd = pb_begin(o, TD_COUNTER);
		pb_uint(o, CD_UNIT, UNIT_SIZE_BYTES);
		pb_end(o, cd);
	}
	pb_end(o, td);
	pb_end(o, pk);
}

/*
 * Memory: a size counter per pool ("memory: POOL") with its live bytes, and
 * each allocation an instant on the "allocations" track, named by its pool,
 * with its size ("bytes"), and its callstack weighted by that size: the
 * UI's "Track Event Callstacks" flame graph of a selected range sums
 * callstack_weight (its default measure, "Weight", when the events carry
 * one) and trace_processor keeps it in __intrinsic_track_event_callstacks.
 */
static int perfetto_memory(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		     const struct conv_mem *m)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	const char *pool = m->pool ? profev_reader_string(c->r, m->pool) : "default";
	perfetto_use_shared(p); /* with their callstacks */
	int rc, fresh = conv_idset_add(&p->pools, m->pool);
	if (fresh < 0)
		return fresh;
	if (fresh) {
		if ((rc = outbuf_reserve(o, PACKET_MAX + 3 * strlen(pool))))
			return rc;
		named_track(c, UUID_MEMORY(m->pool), "memory: ", pool, 1);
	}
	struct te_marks tm;
	if ((rc = perfetto_te_open(c, &tm, c->now, TYPE_COUNTER, UUID_MEMORY(m->pool), 0, 0, 0)))
		return rc;
	pb_int(o, TE_COUNTER_VALUE, (int64_t)m->live);
	perfetto_te_close(c, &tm);
	if (!t || ev->type != PROFEV_EV_MEM_ALLOC)
		return 0;

	if (!p->allocs_track) {
		if ((rc = outbuf_reserve(o, PACKET_MAX)))
			return rc;
		named_track(c, UUID_ALLOCS, "allocations", "", 0);
		p->allocs_track = 1;
	}
	size_t extra = 0;
	int stack = perfetto_stack_prepare(c, ev->stack, &extra);
	if (stack < 0)
		return stack;
	if ((rc = perfetto_te_open(c, &tm, c->now, TYPE_INSTANT, UUID_ALLOCS, m->pool, 0, extra + 48)))
		return rc;
	if (!m->pool)
		pb_bytes(o, TE_NAME, "default", 7);
	if (stack) {
		pb_uint(o, TE_CALLSTACK_IID, ev->stack);
		pb_double(o, TE_CALLSTACK_WEIGHT, (double)m->size);
	}
	perfetto_annotation_uint(o, "bytes", m->size);
	perfetto_te_close(c, &tm);
	return 0;
}

/*
 * A crash: an instant "crash: SIGSEGV" on its thread's track, with the
 * thread's callstack (interned on sequence 1, as a zone's) and the fault
 * address.
 */
static int perfetto_crash(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct outbuf *o = &c->out;
	char name[80];
	int len = snprintf(name, sizeof name, "crash: %s", profev_reader_string(c->r, ev->name));
	if (len < 0 || (size_t)len >= sizeof name)
		len = (int)sizeof name - 1;
	int rc = perfetto_seq_use(c, t);
	if (rc)
		return rc;
	if (ev->stack)
		perfetto_use_shared(c->fmt); /* callstacks are interned on sequence 1 only */
	size_t extra = 3 * (size_t)len + 64;
	int stack = perfetto_stack_prepare(c, ev->stack, &extra);
	if (stack < 0)
		return stack;
	struct te_marks m;
	if ((rc = perfetto_te_open(c, &m, c->now, TYPE_INSTANT, perfetto_track_uuid(t), 0, 0, extra)))
		return rc;
	c->st.replaced_bytes += pb_string_utf8(o, TE_NAME, name, (size_t)len);
	if (stack)
		pb_uint(o, TE_CALLSTACK_IID, ev->stack);
	perfetto_annotation_uint(o, "address", ev->payload);
	perfetto_te_close(c, &m);
	return 0;
}


static uint64_t async_hash(uint32_t name, uint64_t id)
{
	uint64_t h = (id ^ ((uint64_t)name << 32 | name)) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/*
 * An async span: a slice on a track of its own for its name and id, under
 * the process, named by the span. Its begin and end may come from two
 * threads, in either order in the file: trace_processor sorts by time.
 */
static int perfetto_async(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, ev->name);
	uint32_t shared = l && l->name ? l->name : ev->name;
	uint32_t cat = l ? l->category : 0;
	uint64_t uuid = UUID_ASYNC(async_hash(shared, ev->payload));
	int fresh = interned_add(&p->asyncs, uuid), rc;
	if (fresh < 0)
		return fresh;
	if ((rc = perfetto_seq_use(c, t)))
		return rc;
	if (fresh) {
		const char *name = profev_reader_string(c->r, ev->name);
		if ((rc = outbuf_reserve(o, PACKET_MAX + 3 * strlen(name))))
			return rc;
		named_track(c, uuid, "", name, 0);
	}
	int newn, newc;
	if ((rc = perfetto_intern(c, ev->name, cat, 0, &newn, &newc)))
		return rc;
	size_t pk = perfetto_packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
	perfetto_write_interned(c, ev->name, cat, newn, newc);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, ev->type == PROFEV_EV_ASYNC_BEGIN ? TYPE_SLICE_BEGIN : TYPE_SLICE_END);
	pb_uint(o, TE_TRACK_UUID, uuid);
	if (ev->type == PROFEV_EV_ASYNC_BEGIN) {
		if (ev->name)
			pb_uint(o, TE_NAME_IID, ev->name);
		if (cat)
			pb_uint(o, TE_CATEGORY_IIDS, cat);
		if (ev->name && u64_map_find(&p->cur->srclocs, ev->name))
			pb_uint(o, TE_SOURCE_LOCATION_IID, ev->name);
		perfetto_annotation_uint(o, "id", ev->payload);
	}
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

/* A lock wait: a "wait: NAME" slice on the waiting thread, from the wait
 * to the acquisition, with the lock and the thread that held it. */
static int perfetto_lock_wait(struct conv *c, struct conv_thread *t, const struct conv_wait *w)
{
	struct outbuf *o = &c->out;
	const char *name = profev_reader_string(c->r, w->name);
	const char *holder = w->holder ? profev_reader_thread_name(c->r, w->holder) : "";
	int rc = perfetto_seq_use(c, t);
	if (!rc)
		rc = outbuf_reserve(o, 2 * PACKET_MAX + 3 * (strlen(name) + strlen(holder)));
	if (rc)
		return rc;
	size_t pk = perfetto_packet_begin(c, w->begin, 0);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_BEGIN);
	perfetto_track_write(c, perfetto_track_uuid(t));
	size_t n = pb_begin(o, TE_NAME);
	outbuf_lit(o, "wait: ");
	c->st.replaced_bytes += pb_utf8(o, name, strlen(name));
	pb_end(o, n);
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, "lock", 4);
	pb_uint(o, DA_POINTER_VALUE, w->lock);
	pb_end(o, a);
	if (w->holder) {
		perfetto_annotation_uint(o, "holder_tid", w->holder);
		a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
		pb_bytes(o, DA_NAME, "holder", 6);
		c->st.replaced_bytes += pb_string_utf8(o, DA_STRING_VALUE, holder, strlen(holder));
		pb_end(o, a);
	}
	pb_end(o, te);
	pb_end(o, pk);
	pk = perfetto_packet_begin(c, w->end, 0);
	te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_END);
	perfetto_track_write(c, perfetto_track_uuid(t));
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

/*
 * A frame image: an instant "Screenshot" in category "android_screenshot"
 * on the "Screenshots" track, with the image as TrackEvent.screenshot's
 * jpg_image: what Perfetto UI's screenshot track looks for (trace
 * processor's android_screenshots table selects such slices).
 */
static int perfetto_image(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		    const struct profev_image *img)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	const uint8_t *jpg;
	size_t len;
	(void)t, (void)ev;
	perfetto_use_shared(p);
	int rc = conv_shot_jpeg(&p->shots, img, &jpg, &len);
	if (rc)
		return rc == PROFEV_E_NOMEM ? rc : 0; /* not an image TurboJPEG takes: left out */
	if (!p->shots_track) {
		if ((rc = outbuf_reserve(o, PACKET_MAX)))
			return rc;
		named_track(c, UUID_SCREENSHOTS, "Screenshots", "", 0);
		p->shots_track = 1;
	}
	if ((rc = outbuf_reserve(o, PACKET_MAX + len + 4 * PB_FIELD_MAX)))
		return rc;
	size_t pk = perfetto_packet_begin(c, c->now, 0);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_INSTANT);
	pb_uint(o, TE_TRACK_UUID, UUID_SCREENSHOTS);
	pb_bytes(o, TE_CATEGORIES, "android_screenshot", 18);
	pb_bytes(o, TE_NAME, "Screenshot", 10);
	size_t sc = pb_begin(o, TE_SCREENSHOT);
	pb_bytes(o, SCREENSHOT_JPG_IMAGE, jpg, len);
	pb_end(o, sc);
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}


const struct conv_ops conv_perfetto_ops = {
	.name = "perfetto",
	.split_ok = 1,
	.init = perfetto_init,
	.fini = perfetto_fini,
	.part_begin = perfetto_part_begin,
	.part_end = perfetto_part_end,
	.thread = perfetto_thread,
	.zone_begin = perfetto_zone_begin,
	.zone_end = perfetto_zone_end,
	.instant = perfetto_instant,
	.message = perfetto_message,
	.lost = perfetto_lost,
	.counter = perfetto_counter,
	.memory = perfetto_memory,
	.arg = perfetto_arg,
	.zone_rename = perfetto_zone_rename,
	.async = perfetto_async,
	.lock_wait = perfetto_lock_wait,
	.image = perfetto_image,
	.sample = perfetto_sample,
	.sched = perfetto_sched,
	.sample_lost = perfetto_sample_lost,
	.crash = perfetto_crash,
	.gpu_begin = perfetto_gpu_begin,
	.gpu_end = perfetto_gpu_end,
};
