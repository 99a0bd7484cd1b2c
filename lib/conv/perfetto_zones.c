/*
 * The Perfetto target's zones: the hot path writes a zone's begin and end
 * byte by byte (names already interned, no annotation), the rest through
 * the general TrackEvent packet; a zone's arguments ride on its end, its
 * flow marks on its begin, written again when they follow it.
 */
#include <stdlib.h>
#include "conv/perfetto_packets.h"
#include "common/common.h"

static int zone_begin_slow(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge);

/* The name fields of zones named name with category cat, both interned in
 * this part on sequence s, which adds s to the sequences they may be
 * copied on. @return NULL when they take more than 16 bytes, on no memory,
 * or when s differs from the sequences they were made for (the caller
 * encodes them itself). */
static __attribute__((noinline)) const struct zone_name_fields *zone_fields_make(struct perfetto *pf, struct perfetto_seq *s, uint32_t name,
							     uint32_t cat)
{
	if (name >= 1u << 21 || cat >= 1u << 21) /* 1 + 3 bytes each at most */
		return NULL;
	if (array_grow((void **)&pf->zone_fields, &pf->nzone_fields, sizeof(*pf->zone_fields), (uint64_t)name + 1))
		return NULL;
	struct zone_name_fields *e = &pf->zone_fields[name];
	unsigned loc = name && u64_map_find(&s->srclocs, name);
	uint64_t bit = s->idx < 64 ? 1ull << s->idx : 0;
	if (e->part_len >> 6 == pf->part && e->cat == cat) {
		/* made on another sequence: good here if the location is too */
		if ((e->part_len >> 5 & 1) != loc)
			return NULL;
		e->seqs |= bit;
		return e;
	}
	uint8_t b[24], *p = b;
	if (name) {
		*p++ = TE_NAME_IID << 3 | PB_WT_VARINT;
		p = pb_put_varint(p, name);
	}
	if (cat) {
		*p++ = TE_CATEGORY_IIDS << 3 | PB_WT_VARINT;
		p = pb_put_varint(p, cat);
	}
	if (loc) /* 2 + 3 bytes at most */
		p = pb_put_varint(pb_put_varint(p, TE_SOURCE_LOCATION_IID << 3 | PB_WT_VARINT), name);
	unsigned n = (unsigned)(p - b);
	e->bytes[0] = e->bytes[1] = 0;
	for (unsigned i = 0; i < n; i++)
		e->bytes[i / 8] |= (uint64_t)b[i] << (8 * (i % 8));
	e->cat = cat;
	e->seqs = bit;
	e->part_len = pf->part << 6 | loc << 5 | n;
	return e;
}

/* A zone begin's packet ends the output at start..o->p, written on s whose
 * clock was at last before it: remember it. */
static inline void begin_written(struct perfetto *pf, const struct conv *c, const struct conv_thread *t,
				 const uint8_t *start, int edge, struct perfetto_seq *s, uint64_t last)
{
	pf->open_t = t;
	pf->open_depth = t->depth;
	pf->open_edge = edge;
	pf->open_p = c->out.p;
	pf->open_drained = c->out.drained;
	pf->open_len = (size_t)(c->out.p - start);
	pf->open_seq = s;
	pf->open_last = last;
}

static int begin_packet(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge,
			const struct profev_event *a, uint32_t n);

int perfetto_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	struct perfetto *pf = c->fmt;
	struct perfetto_seq *s = perfetto_seq_ready(pf, t);
	if (__builtin_expect(edge != CONV_EDGE_NORMAL || t->kind != CONV_THREAD || z->stack || !s, 0))
		return zone_begin_slow(c, t, z, edge);
	const struct zone_name_fields *e = z->name < pf->nzone_fields ? &pf->zone_fields[z->name] : NULL;
	if (__builtin_expect(!e || e->part_len >> 6 != pf->part || e->cat != z->cat ||
			     !(s->idx < 64 && (e->seqs >> s->idx & 1)), 0)) {
		if (!u64_map_find(&s->names, z->name) || (z->cat && !u64_map_find(&s->cats, z->cat)))
			return zone_begin_slow(c, t, z, edge);
		e = zone_fields_make(pf, s, z->name, z->cat);
	}
	if (__builtin_expect(!outbuf_reserve(&c->out, FAST_PACKET_MAX), 1)) {
		uint8_t *plen, *telen;
		const uint8_t *start = c->out.p;
		uint64_t last = s->last;
		uint8_t *p = perfetto_fast_head(s, c->out.p, z->shown, &plen, &telen);
		p[0] = TE_TYPE << 3 | PB_WT_VARINT;
		p[1] = TYPE_SLICE_BEGIN;
		p += 2;
		pf->cur = s;
		pf->last_t = t;
		if (__builtin_expect(e != NULL, 1)) {
			perfetto_put8(p, e->bytes[0]);
			perfetto_put8(p + 8, e->bytes[1]);
			perfetto_fast_tail(&c->out, p + (e->part_len & 31), plen, telen);
			pf->nundo = 0;
			begin_written(pf, c, t, start, edge, s, last);
			return 0;
		}
		if (z->name) {
			*p++ = TE_NAME_IID << 3 | PB_WT_VARINT;
			p = pb_put_varint(p, z->name);
		}
		if (z->cat) {
			*p++ = TE_CATEGORY_IIDS << 3 | PB_WT_VARINT;
			p = pb_put_varint(p, z->cat);
		}
		if (z->name && u64_map_find(&s->srclocs, z->name))
			p = pb_put_varint(pb_put_varint(p, TE_SOURCE_LOCATION_IID << 3 | PB_WT_VARINT), z->name);
		perfetto_fast_tail(&c->out, p, plen, telen);
		pf->nundo = 0;
		begin_written(pf, c, t, start, edge, s, last);
		return 0;
	}
	return zone_begin_slow(c, t, z, edge);
}

static int zone_begin_slow(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	return begin_packet(c, t, z, edge, NULL, 0);
}

/* A zone begin with the first n of its arguments and flow marks. */
static int begin_packet(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge,
			const struct profev_event *a, uint32_t n)
{
	struct outbuf *o = &c->out;
	struct perfetto *pf = c->fmt;
	struct te_marks m;
	int rc, stack = 0;
	size_t extra = n ? perfetto_args_room(c, a, n) : 0;
	char title[CONV_FRAME_TITLE];
	if ((rc = perfetto_seq_use(c, t)))
		return rc;
	if (t->kind != CONV_FRAMES && z->stack)
		perfetto_use_shared(pf); /* callstacks are interned on sequence 1 only */
	struct perfetto_seq *s = pf->cur;
	uint64_t last = s->last;
	z->aux = n;
	pf->key_args = a;
	pf->nkey_args = n;
	pf->nundo = 0;
	if (t->kind == CONV_FRAMES) {
		if ((rc = perfetto_te_open(c, &m, z->shown, TYPE_SLICE_BEGIN, perfetto_track_uuid(t), 0, 0, extra)))
			return rc;
		pb_bytes(o, TE_NAME, title, conv_frame_title(title, z->frame));
	} else {
		if ((stack = perfetto_stack_prepare(c, (uint32_t)z->stack, &extra)) < 0)
			return stack;
		if ((rc = perfetto_te_open(c, &m, z->shown, TYPE_SLICE_BEGIN, perfetto_track_uuid(t), z->name, z->cat, extra)))
			return rc;
		if (stack)
			pb_uint(o, TE_CALLSTACK_IID, z->stack);
	}
	/* The packet's tag and one-byte length come before its mark; perfetto_te_open()
	 * made all the room it needs, so nothing moves the buffer until its end. */
	const uint8_t *start = o->base + m.pk - 2;
	pf->nkey_args = 0;
	if (edge == CONV_EDGE_CUT)
		perfetto_annotation_bool(o, "continued");
	else if (edge == CONV_EDGE_BEFORE)
		perfetto_annotation_bool(o, "begun_before_window");
	perfetto_args_write(c, a, n);
	perfetto_te_close(c, &m);
	begin_written(pf, c, t, start, edge, s, last);
	if (stack || pf->nundo > sizeof(pf->undo) / sizeof(pf->undo[0]))
		pf->open_t = NULL; /* what it defined cannot be told again */
	return 0;
}


/* z->aux in Perfetto output: the count of its arguments and flow marks its
 * begin carried, and this bit when it was named after its begin was
 * written (perfetto_zone_rename()). */
#define AUX_NAMED_LATE (1ull << 63)

static int zone_end_rich(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge);

/* Arguments of z that its begin did not carry (flows never wait for the end). */
static int end_args(const struct conv_thread *t, const struct conv_zone *z)
{
	uint32_t n;
	const struct profev_event *a = conv_zone_args(t, z, &n);
	for (uint32_t i = (uint32_t)z->aux; i < n; i++)
		if (a[i].type == PROFEV_EV_ARG)
			return 1;
	return 0;
}

int perfetto_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
		       int edge)
{
	struct outbuf *o = &c->out;
	uint32_t nargs;
	conv_zone_args(t, z, &nargs);
	if (__builtin_expect(nargs != z->aux, 0) && ((z->aux & AUX_NAMED_LATE) || end_args(t, z)))
		return zone_end_rich(c, t, z, ts, edge);
	struct perfetto *pf = c->fmt;
	struct perfetto_seq *s = perfetto_seq_ready(pf, t);
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	if (__builtin_expect(edge == CONV_EDGE_NORMAL && s != NULL, 1)) {
		uint8_t *plen, *telen;
		uint8_t *p = perfetto_fast_head(s, o->p, ts, &plen, &telen);
		p[0] = TE_TYPE << 3 | PB_WT_VARINT;
		p[1] = TYPE_SLICE_END;
		perfetto_fast_tail(o, p + 2, plen, telen);
		pf->cur = s;
		pf->last_t = t;
		return 0;
	}
	struct te_marks m;
	if ((rc = perfetto_seq_use(c, t)) || (rc = perfetto_te_open(c, &m, ts, TYPE_SLICE_END, perfetto_track_uuid(t), 0, 0, 0)))
		return rc;
	perfetto_annotation_bool(o, edge == CONV_EDGE_UNCLOSED ? "unclosed"
				    : edge == CONV_EDGE_AFTER  ? "open_after_window"
							       : "cut");
	perfetto_te_close(c, &m);
	return 0;
}


/* The end of a zone with arguments or flow marks: they ride on it, and
 * trace_processor adds an end's annotations and flows to its slice. */
static int zone_end_rich(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge)
{
	struct outbuf *o = &c->out;
	uint32_t n, skip = (uint32_t)z->aux;
	const struct profev_event *a = conv_zone_args(t, z, &n);
	a += skip, n -= skip;
	int rc = perfetto_seq_use(c, t);
	if (!rc)
		rc = outbuf_reserve(o, PACKET_MAX + perfetto_args_room(c, a, n) + 16 * (size_t)n +
					(z->aux & AUX_NAMED_LATE ? 3 * strlen(profev_reader_string(c->r, z->name)) +
					 3 * PB_FIELD_MAX : 0));
	if (rc)
		return rc;
	size_t pk = perfetto_packet_begin(c, ts, SEQ_NEEDS_INCREMENTAL_STATE);
	if (perfetto_arg_names_new(c, a, n)) {
		size_t id = pb_begin(o, TP_INTERNED_DATA);
		perfetto_arg_names_write(c, a, n);
		pb_end(o, id);
	}
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_END);
	perfetto_track_write(c, perfetto_track_uuid(t));
	for (uint32_t i = 0; i < n; i++)
		if (a[i].type == PROFEV_EV_ARG)
			perfetto_args_write(c, &a[i], 1);
	if (edge == CONV_EDGE_UNCLOSED)
		perfetto_annotation_bool(o, "unclosed");
	else if (edge == CONV_EDGE_CUT)
		perfetto_annotation_bool(o, "cut");
	else if (edge == CONV_EDGE_AFTER)
		perfetto_annotation_bool(o, "open_after_window");
	if (z->aux & AUX_NAMED_LATE) {
		/* named too late to write the begin again: the name rides on
		 * the end as the argument "name" */
		const char *name = profev_reader_string(c->r, z->name);
		perfetto_annotation_string(c, "name", name, strlen(name));
	}
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

/* When z's begin is still the last packet written (nothing followed it):
 * takes it back, so that it can be written again, and returns 1. */
static int begin_take_back(struct perfetto *p, struct outbuf *o, const struct conv_thread *t)
{
	if (t->kind != CONV_THREAD || p->open_t != t || p->open_depth != t->depth || p->open_p != o->p ||
	    p->open_drained != o->drained || (size_t)(o->p - o->base) < p->open_len)
		return 0;
	for (unsigned i = 0; i < p->nundo; i++)
		u64_map_delete(p->undo[i].set, p->undo[i].id);
	o->p -= p->open_len;
	p->open_seq->last = p->open_last;
	p->open_t = NULL;
	return 1;
}

/*
 * t's top zone z was named at run time. Perfetto names a slice at its
 * begin: while the begin is the last packet written (the name came right
 * after it, before any child, instant, end or other output, as Tracy's
 * ZoneName does after ZoneScoped), it is written again with the name;
 * else the slice keeps its first name and its end carries the new one as
 * the argument "name".
 */
int perfetto_zone_rename(struct conv *c, struct conv_thread *t, struct conv_zone *z)
{
	struct perfetto *p = c->fmt;
	if (!begin_take_back(p, &c->out, t)) {
		z->aux |= AUX_NAMED_LATE;
		return 0;
	}
	uint32_t n;
	const struct profev_event *a = conv_zone_args(t, z, &n);
	return begin_packet(c, t, z, p->open_edge, a, n);
}

/*
 * An argument or flow mark of t's top zone z. Arguments ride on the zone's
 * end, whose annotations trace_processor adds to the slice. A flow mark
 * must be on the begin, since trace_processor binds a flow to the slice
 * whose begin lists it: right after z's begin (as they come as a rule) the
 * begin is written again with it and what came before it; a later one
 * rides on an instant "flow" inside the zone.
 */
int perfetto_arg(struct conv *c, struct conv_thread *t, struct conv_zone *z, const struct profev_event *ev)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	uint32_t n;
	const struct profev_event *a = conv_zone_args(t, z, &n);
	if (ev->type == PROFEV_EV_ARG)
		return 0;
	if (begin_take_back(p, o, t))
		return begin_packet(c, t, z, p->open_edge, a, n);
	int rc = perfetto_seq_use(c, t);
	if (!rc)
		rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	size_t pk = perfetto_packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_INSTANT);
	perfetto_track_write(c, perfetto_track_uuid(t));
	pb_bytes(o, TE_NAME, "flow", 4);
	perfetto_args_write(c, ev, 1);
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

