/*
 * Perfetto target: a Trace of TracePackets (the .proto files in formats/perfetto hold
 * the subset written here, with Perfetto's field numbers).
 *
 * All packets form one packet sequence. Its first packet clears the
 * incremental state; the others need it, since zone names and categories
 * are interned: the trace's string ids serve as interning ids, and each
 * string is defined in the packet that first uses it in the part. Tracks
 * are described (TrackDescriptor) before their first event: a process
 * track, a thread track per thread, a counter track per counter and a track
 * per frame set.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv_internal.h"
#include "pb.h"

/* Field numbers, as in Perfetto's protos/perfetto/trace/. */
enum {
	TRACE_PACKET = 1,

	TP_TIMESTAMP = 8,
	TP_SEQUENCE_ID = 10,         /* trusted_packet_sequence_id */
	TP_TRACK_EVENT = 11,
	TP_INTERNED_DATA = 12,
	TP_SEQUENCE_FLAGS = 13,
	TP_CLOCK_SNAPSHOT = 6,
	TP_TRACK_DESCRIPTOR = 60,
	TP_FIRST_PACKET_ON_SEQUENCE = 87,

	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,

	CS_CLOCKS = 1,
	CLOCK_ID = 1,
	CLOCK_TIMESTAMP = 2,
	BUILTIN_CLOCK_REALTIME = 1,
	BUILTIN_CLOCK_BOOTTIME = 6,

	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT_UUID = 5,
	TD_COUNTER = 8,

	PD_PID = 1,
	PD_CMDLINE = 2,
	PD_PROCESS_NAME = 6,

	THD_PID = 1,
	THD_TID = 2,
	THD_THREAD_NAME = 5,

	TE_CATEGORY_IIDS = 3,
	TE_DEBUG_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_NAME = 23,
	TE_DOUBLE_COUNTER_VALUE = 44,

	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	TYPE_COUNTER = 4,

	DA_BOOL_VALUE = 2,
	DA_UINT_VALUE = 3,
	DA_STRING_VALUE = 6,
	DA_NAME = 10,

	ID_EVENT_CATEGORIES = 1,
	ID_EVENT_NAMES = 2,
	IE_IID = 1,
	IE_NAME = 2,
};

/* Track uuids: one process track, threads by TID, then counters and frame
 * sets by string id in ranges no TID reaches. */
#define SEQUENCE 1
#define UUID_PROCESS 1ull
#define UUID_THREAD(tid) (16ull + (tid))
#define UUID_COUNTER(id) (2ull << 32 | (id))
#define UUID_FRAMES(id) (3ull << 32 | (id))

/* Room for a packet's fixed fields and nesting, strings apart. */
#define PACKET_MAX 192
#define TITLE_MAX 96

/* Set of string ids, growing with the trace's string table. */
struct idset {
	uint64_t *w;
	size_t nw;
};

struct pf {
	struct idset names, cats, counters;
};

static int idset_grow(struct idset *s, uint32_t id)
{
	size_t i = id >> 6;
	size_t nw = s->nw ? s->nw : 64;
	while (nw <= i)
		nw *= 2;
	uint64_t *w = realloc(s->w, nw * sizeof(*w));
	if (!w)
		return PROFEV_E_NOMEM;
	memset(w + s->nw, 0, (nw - s->nw) * sizeof(*w));
	s->w = w;
	s->nw = nw;
	return 0;
}

/* Add id: 1 if it is new, 0 if it was there, <0 on no memory. */
static inline int idset_add(struct idset *s, uint32_t id)
{
	size_t i = id >> 6;
	if (__builtin_expect(i >= s->nw, 0) && idset_grow(s, id))
		return PROFEV_E_NOMEM;
	uint64_t bit = 1ull << (id & 63);
	if (s->w[i] & bit)
		return 0;
	s->w[i] |= bit;
	return 1;
}

static void idset_clear(struct idset *s)
{
	if (s->w)
		memset(s->w, 0, s->nw * sizeof(*s->w));
}

static int pf_init(struct conv *c)
{
	c->fmt = calloc(1, sizeof(struct pf));
	return c->fmt ? 0 : PROFEV_E_NOMEM;
}

static void pf_fini(struct conv *c)
{
	struct pf *p = c->fmt;
	if (!p)
		return;
	free(p->names.w);
	free(p->cats.w);
	free(p->counters.w);
	free(p);
}

static inline size_t packet_begin(struct conv *c, uint64_t ts, unsigned flags)
{
	struct outbuf *o = &c->out;
	size_t m = pb_begin(o, TRACE_PACKET);
	pb_uint(o, TP_TIMESTAMP, ts);
	/* trusted_packet_sequence_id = SEQUENCE, sequence_flags = flags: four
	 * bytes, since both values and field numbers are below 16 */
	uint8_t tail[4] = { TP_SEQUENCE_ID << 3, SEQUENCE, TP_SEQUENCE_FLAGS << 3, (uint8_t)flags };
	outbuf_put(o, tail, 4);
	return m;
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int pf_part_begin(struct conv *c)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	/* Each part is a trace of its own: everything is defined again. */
	idset_clear(&p->names);
	idset_clear(&p->cats);
	idset_clear(&p->counters);

	const struct profev_meta *m = profev_reader_meta(c->r);
	size_t need = PACKET_MAX;
	if (c->program)
		need += 3 * strlen(c->program) + PB_FIELD_MAX;
	for (uint32_t i = 0; m && i < m->argc; i++)
		need += 3 * strlen(m->argv[i] ? m->argv[i] : "") + PB_FIELD_MAX;
	int rc = outbuf_reserve(o, need);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, c->now, SEQ_INCREMENTAL_STATE_CLEARED);
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
	 * values written as the trace clock. */
	if (m && m->wall_start_ns > 0 && m->mono_start_ns) {
		if ((rc = outbuf_reserve(o, PACKET_MAX)))
			return rc;
		pk = packet_begin(c, m->mono_start_ns, SEQ_NEEDS_INCREMENTAL_STATE);
		size_t cs = pb_begin(o, TP_CLOCK_SNAPSHOT);
		size_t k = pb_begin(o, CS_CLOCKS);
		pb_uint(o, CLOCK_ID, BUILTIN_CLOCK_BOOTTIME);
		pb_uint(o, CLOCK_TIMESTAMP, m->mono_start_ns);
		pb_end(o, k);
		k = pb_begin(o, CS_CLOCKS);
		pb_uint(o, CLOCK_ID, BUILTIN_CLOCK_REALTIME);
		pb_uint(o, CLOCK_TIMESTAMP, (uint64_t)m->wall_start_ns);
		pb_end(o, k);
		pb_end(o, cs);
		pb_end(o, pk);
	}
	return 0;
}

static int pf_part_end(struct conv *c)
{
	(void)c;
	return 0;
}

static int pf_thread(struct conv *c, struct conv_thread *t)
{
	struct outbuf *o = &c->out;
	size_t len = strlen(t->name);
	int rc = outbuf_reserve(o, PACKET_MAX + 3 * len + 16);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
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

static uint64_t track_uuid(const struct conv_thread *t)
{
	return t->kind == CONV_FRAMES ? UUID_FRAMES(t->tid) : UUID_THREAD(t->tid);
}

/* Define in this packet the name and category strings it uses for the first
 * time in the part. Reserves the room the whole packet needs. */
static int intern(struct conv *c, uint32_t name, uint32_t cat, size_t extra, int *newn, int *newc)
{
	struct pf *p = c->fmt;
	size_t need = PACKET_MAX + extra;
	const char *ns = NULL, *cs = NULL;
	size_t nl = 0, cl = 0;
	*newn = *newc = 0;
	if (name) {
		int r = idset_add(&p->names, name);
		if (r < 0)
			return r;
		if (r) {
			*newn = 1;
			ns = profev_reader_string(c->r, name);
			need += 3 * (nl = strlen(ns)) + 2 * PB_FIELD_MAX;
		}
	}
	if (cat) {
		int r = idset_add(&p->cats, cat);
		if (r < 0)
			return r;
		if (r) {
			*newc = 1;
			cs = profev_reader_string(c->r, cat);
			need += 3 * (cl = strlen(cs)) + 2 * PB_FIELD_MAX;
		}
	}
	return outbuf_reserve(&c->out, need);
}

static void write_interned(struct conv *c, uint32_t name, uint32_t cat, int newn, int newc)
{
	struct outbuf *o = &c->out;
	if (!newn && !newc)
		return;
	size_t id = pb_begin(o, TP_INTERNED_DATA);
	if (newc) {
		const char *s = profev_reader_string(c->r, cat);
		size_t e = pb_begin(o, ID_EVENT_CATEGORIES);
		pb_uint(o, IE_IID, cat);
		c->st.replaced_bytes += pb_string_utf8(o, IE_NAME, s, strlen(s));
		pb_end(o, e);
	}
	if (newn) {
		const char *s = profev_reader_string(c->r, name);
		size_t e = pb_begin(o, ID_EVENT_NAMES);
		pb_uint(o, IE_IID, name);
		c->st.replaced_bytes += pb_string_utf8(o, IE_NAME, s, strlen(s));
		pb_end(o, e);
	}
	pb_end(o, id);
}

static void annotation_bool(struct outbuf *o, const char *name)
{
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, name, strlen(name));
	pb_uint(o, DA_BOOL_VALUE, 1);
	pb_end(o, a);
}

static int zone_begin_slow(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge);

static inline int idset_has(const struct idset *s, uint32_t id)
{
	size_t i = id >> 6;
	return i < s->nw && (s->w[i] >> (id & 63) & 1);
}

/*
 * The common zone packets, written byte by byte: names already interned,
 * no annotation. Every field is known to fit one-byte lengths (at most 3
 * tags + 2 varints of 10 bytes + 2 of 5 + 8 fixed bytes), so the generic
 * pb_begin()/pb_end() bookkeeping is skipped; these two packets are most
 * of a trace.
 */
#define FAST_PACKET_MAX 64

static inline uint8_t *fast_head(uint8_t *p, uint64_t ts, uint8_t **plen, uint8_t **telen)
{
	*p++ = TRACE_PACKET << 3 | PB_WT_LEN;
	*plen = p++;
	*p++ = TP_TIMESTAMP << 3 | PB_WT_VARINT;
	p = pb_put_varint(p, ts);
	*p++ = TP_SEQUENCE_ID << 3 | PB_WT_VARINT;
	*p++ = SEQUENCE;
	*p++ = TP_SEQUENCE_FLAGS << 3 | PB_WT_VARINT;
	*p++ = SEQ_NEEDS_INCREMENTAL_STATE;
	*p++ = TP_TRACK_EVENT << 3 | PB_WT_LEN;
	*telen = p++;
	return p;
}

static inline void fast_tail(struct outbuf *o, uint8_t *p, uint8_t *plen, uint8_t *telen)
{
	*telen = (uint8_t)(p - telen - 1);
	*plen = (uint8_t)(p - plen - 1);
	o->p = p;
}

static int pf_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	struct pf *pf = c->fmt;
	if (__builtin_expect(edge == CONV_EDGE_NORMAL && t->kind == CONV_THREAD &&
			     idset_has(&pf->names, z->name) && (!z->cat || idset_has(&pf->cats, z->cat)) &&
			     !outbuf_reserve(&c->out, FAST_PACKET_MAX), 1)) {
		uint8_t *plen, *telen;
		uint8_t *p = fast_head(c->out.p, z->shown, &plen, &telen);
		*p++ = TE_TYPE << 3 | PB_WT_VARINT;
		*p++ = TYPE_SLICE_BEGIN;
		*p++ = TE_TRACK_UUID << 3 | PB_WT_VARINT;
		p = pb_put_varint(p, UUID_THREAD(t->tid));
		if (z->name) {
			*p++ = TE_NAME_IID << 3 | PB_WT_VARINT;
			p = pb_put_varint(p, z->name);
		}
		if (z->cat) {
			*p++ = TE_CATEGORY_IIDS << 3 | PB_WT_VARINT;
			p = pb_put_varint(p, z->cat);
		}
		fast_tail(&c->out, p, plen, telen);
		return 0;
	}
	return zone_begin_slow(c, t, z, edge);
}

static int zone_begin_slow(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	struct outbuf *o = &c->out;
	int newn, newc, rc;
	char title[48];
	if (t->kind == CONV_FRAMES) {
		if ((rc = outbuf_reserve(o, PACKET_MAX)))
			return rc;
		newn = newc = 0;
	} else if ((rc = intern(c, z->name, z->cat, 0, &newn, &newc))) {
		return rc;
	}
	size_t pk = packet_begin(c, z->shown, SEQ_NEEDS_INCREMENTAL_STATE);
	write_interned(c, z->name, z->cat, newn, newc);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_BEGIN);
	pb_uint(o, TE_TRACK_UUID, track_uuid(t));
	if (t->kind == CONV_FRAMES) {
		int n = snprintf(title, sizeof(title), "Frame %" PRIu64, z->frame);
		pb_bytes(o, TE_NAME, title, (size_t)n);
	} else {
		if (z->name)
			pb_uint(o, TE_NAME_IID, z->name);
		if (z->cat)
			pb_uint(o, TE_CATEGORY_IIDS, z->cat);
	}
	if (edge == CONV_EDGE_CUT)
		annotation_bool(o, "continued");
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

static int pf_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
		       int edge)
{
	struct outbuf *o = &c->out;
	(void)z;
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	if (__builtin_expect(edge == CONV_EDGE_NORMAL, 1)) {
		uint8_t *plen, *telen;
		uint8_t *p = fast_head(o->p, ts, &plen, &telen);
		*p++ = TE_TYPE << 3 | PB_WT_VARINT;
		*p++ = TYPE_SLICE_END;
		*p++ = TE_TRACK_UUID << 3 | PB_WT_VARINT;
		p = pb_put_varint(p, track_uuid(t));
		fast_tail(o, p, plen, telen);
		return 0;
	}
	size_t pk = packet_begin(c, ts, SEQ_NEEDS_INCREMENTAL_STATE);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_END);
	pb_uint(o, TE_TRACK_UUID, track_uuid(t));
	if (edge == CONV_EDGE_UNCLOSED)
		annotation_bool(o, "unclosed");
	else if (edge == CONV_EDGE_CUT)
		annotation_bool(o, "cut");
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

static int pf_instant(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const struct profev_event_info *in)
{
	struct outbuf *o = &c->out;
	int newn, newc;
	uint32_t cat = (uint32_t)ev->payload;
	(void)in;
	int rc = intern(c, ev->name, cat, 0, &newn, &newc);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
	write_interned(c, ev->name, cat, newn, newc);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_INSTANT);
	pb_uint(o, TE_TRACK_UUID, track_uuid(t));
	if (ev->name)
		pb_uint(o, TE_NAME_IID, ev->name);
	if (cat)
		pb_uint(o, TE_CATEGORY_IIDS, cat);
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

/* A message: an instant named by its first line, carrying the whole text. */
static int pf_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const struct profev_event_info *in)
{
	struct outbuf *o = &c->out;
	int newn, newc;
	uint32_t cat = (uint32_t)ev->payload;
	size_t title = conv_message_title(in->text, in->text_len, TITLE_MAX);
	int rc = intern(c, 0, cat, 3 * (in->text_len + title) + 4 * PB_FIELD_MAX, &newn, &newc);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
	write_interned(c, 0, cat, newn, newc);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_INSTANT);
	pb_uint(o, TE_TRACK_UUID, track_uuid(t));
	c->st.replaced_bytes += pb_string_utf8(o, TE_NAME, in->text, title);
	if (cat)
		pb_uint(o, TE_CATEGORY_IIDS, cat);
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, "text", 4);
	c->st.replaced_bytes += pb_string_utf8(o, DA_STRING_VALUE, in->text, in->text_len);
	pb_end(o, a);
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

static int pf_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct outbuf *o = &c->out;
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_INSTANT);
	pb_uint(o, TE_TRACK_UUID, track_uuid(t));
	pb_bytes(o, TE_NAME, "lost events", 11);
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, "count", 5);
	pb_uint(o, DA_UINT_VALUE, ev->payload);
	pb_end(o, a);
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

static int pf_counter(struct conv *c, const struct profev_event *ev,
		      const struct profev_event_info *in)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	int fresh = idset_add(&p->counters, ev->name);
	if (fresh < 0)
		return fresh;
	if (fresh) {
		size_t len = strlen(in->name);
		int rc = outbuf_reserve(o, PACKET_MAX + 3 * len);
		if (rc)
			return rc;
		size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
		size_t td = pb_begin(o, TP_TRACK_DESCRIPTOR);
		pb_uint(o, TD_UUID, UUID_COUNTER(ev->name));
		pb_uint(o, TD_PARENT_UUID, UUID_PROCESS);
		c->st.replaced_bytes += pb_string_utf8(o, TD_NAME, in->name, len);
		size_t cd = pb_begin(o, TD_COUNTER);
		pb_end(o, cd);
		pb_end(o, td);
		pb_end(o, pk);
	}
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_COUNTER);
	pb_uint(o, TE_TRACK_UUID, UUID_COUNTER(ev->name));
	pb_double(o, TE_DOUBLE_COUNTER_VALUE, profev_event_double(ev));
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

const struct conv_ops conv_perfetto_ops = {
	.name = "perfetto",
	.split_ok = 1,
	.init = pf_init,
	.fini = pf_fini,
	.part_begin = pf_part_begin,
	.part_end = pf_part_end,
	.thread = pf_thread,
	.zone_begin = pf_zone_begin,
	.zone_end = pf_zone_end,
	.instant = pf_instant,
	.message = pf_message,
	.lost = pf_lost,
	.counter = pf_counter,
};
