/*
 * conv/perfetto_packets.h - the Perfetto target's packets (not installed):
 * the sequences a packet is written on, the interning of strings per
 * sequence, the general TrackEvent packet and the fast path's byte-by-byte
 * writing, shared by the perfetto*.c files (conv_internal.h holds their
 * state, struct perfetto).
 */
#ifndef PROFEV_CONV_PERFETTO_PACKETS_H
#define PROFEV_CONV_PERFETTO_PACKETS_H
#include <string.h>
#include "conv/conv_internal.h"
#include "conv/perfetto_proto.h"
#include "conv/pb.h"

/* Add id (not 0) to the set s: 1 if it is new, 0 if it was there, <0 on no
 * memory. */
static inline int interned_add(struct u64_map *s, uint64_t id)
{
	int added;
	return u64_map_insert(s, id, &added) ? added : PROFEV_E_NOMEM;
}

/* A packet's timestamp on sequence s: a delta on its incremental clock, or
 * the whole time on the trace clock where that would go back. Needs room
 * for 2 * PB_FIELD_MAX. */
static inline uint8_t *perfetto_put_time(struct perfetto_seq *s, uint8_t *q, uint64_t ts)
{
	*q++ = TP_TIMESTAMP << 3 | PB_WT_VARINT;
	if (!s->incremental)
		return pb_put_varint(q, ts);
	if (__builtin_expect(ts >= s->last, 1)) {
		q = pb_put_varint(q, ts - s->last);
		s->last = ts;
		return q;
	}
	q = pb_put_varint(q, ts);
	/* TP_TIMESTAMP_CLOCK_ID's two-byte tag, then the clock */
	*q++ = (uint8_t)(TP_TIMESTAMP_CLOCK_ID << 3 | 0x80);
	*q++ = (uint8_t)(TP_TIMESTAMP_CLOCK_ID >> 4);
	*q++ = BUILTIN_CLOCK_BOOTTIME;
	return q;
}

/* A packet on the current sequence at ts. flags: SEQ_INCREMENTAL_STATE_CLEARED
 * on a sequence's first packet, SEQ_NEEDS_INCREMENTAL_STATE on one that
 * refers to interned data, else 0; a track sequence's later packets get
 * SEQ_NEEDS_INCREMENTAL_STATE whatever flags says (see the top). */
static inline size_t perfetto_packet_begin(struct conv *c, uint64_t ts, unsigned flags)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	size_t m = pb_begin(o, TRACE_PACKET);
	o->p = perfetto_put_time(p->cur, o->p, ts);
	pb_uint(o, TP_SEQUENCE_ID, p->cur->id);
	if (p->cur->needs && flags != SEQ_INCREMENTAL_STATE_CLEARED)
		flags = SEQ_NEEDS_INCREMENTAL_STATE;
	if (flags)
		pb_uint(o, TP_SEQUENCE_FLAGS, flags);
	return m;
}

/* TE_TRACK_UUID, unless track is the current sequence's default. */
static inline void perfetto_track_write(struct conv *c, uint64_t track)
{
	struct perfetto *p = c->fmt;
	if (track != p->cur->track)
		pb_uint(&c->out, TE_TRACK_UUID, track);
}


static inline uint64_t perfetto_track_uuid(const struct conv_thread *t)
{
	return t->kind == CONV_FRAMES ? UUID_FRAMES(t->tid) : UUID_THREAD(t->tid);
}

/* t's sequence if it is started in this part, else NULL. */
static inline struct perfetto_seq *perfetto_seq_ready(const struct perfetto *p, const struct conv_thread *t)
{
	struct perfetto_seq *s = t->seq < p->nseqs ? p->seqs[t->seq] : NULL;
	return s && s->part == p->part ? s : NULL;
}

static inline void perfetto_use_shared(struct perfetto *p)
{
	p->cur = &p->shared;
}

/*
 * The general TrackEvent packet, for what the fast paths below do not
 * write: on the current sequence at ts, of type, on the track uuid, named
 * by the interned string name and in the category cat (0: none), with an
 * InternedData defining what the sequence has not seen yet in the part (and
 * the callstack perfetto_stack_prepare() made ready). The caller may add fields within extra bytes of room (strings
 * apart from its own count), then closes it with perfetto_te_close().
 */
struct te_marks {
	size_t pk, te;
};

static inline void perfetto_te_close(struct conv *c, const struct te_marks *m)
{
	pb_end(&c->out, m->te);
	pb_end(&c->out, m->pk);
}

/*
 * The common packets (zones, counters), written byte by byte: names already
 * interned, no annotation. Every field is known to fit one-byte lengths (at
 * most 3 tags + 2 varints of 10 bytes + 2 of 5 + 8 fixed bytes), so the
 * generic pb_begin()/pb_end() bookkeeping is skipped; these packets are
 * most of a trace. Some stores are of 8 bytes whatever the field's length
 * (what follows overwrites the rest): FAST_PACKET_MAX has room for that.
 */
#define FAST_PACKET_MAX 64

static inline void perfetto_put8(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &x, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(x >> (8 * i));
#endif
}

static inline uint8_t *perfetto_put_field(uint8_t *p, uint64_t field)
{
	perfetto_put8(p, field);
	return p + (field >> 56);
}

/* A TrackEvent packet's head on sequence s: its timestamp, its flags (a
 * track sequence's), the sequence id and the TrackEvent's tag; *plen and
 * *telen get the two length bytes. */
static inline uint8_t *perfetto_fast_head(struct perfetto_seq *s, uint8_t *p, uint64_t ts, uint8_t **plen,
				 uint8_t **telen)
{
	p[0] = TRACE_PACKET << 3 | PB_WT_LEN;
	*plen = p + 1;
	p = perfetto_put_field(perfetto_put_field(perfetto_put_time(s, p + 2, ts), s->needs), s->head);
	*telen = p - 1;
	return p;
}

static inline void perfetto_fast_tail(struct outbuf *o, uint8_t *p, uint8_t *plen, uint8_t *telen)
{
	*telen = (uint8_t)(p - telen - 1);
	*plen = (uint8_t)(p - plen - 1);
	o->p = p;
}


/* perfetto_packets.c */
/* Sequence s, its sets empty, as trusted_packet_sequence_id id. */
CONV_HIDDEN void perfetto_seq_init(struct perfetto_seq *s, uint32_t id);
/* Write on t's sequence from here on, starting it if this part has not. */
CONV_HIDDEN int perfetto_seq_use(struct conv *c, struct conv_thread *t);
/* Define in this packet the name and category strings it uses for the first
 * time on its sequence in the part. Reserves the room the whole packet needs. */
CONV_HIDDEN int perfetto_intern(struct conv *c, uint32_t name, uint32_t cat, size_t extra, int *newn,
				int *newc);
/* Names, categories and (when perfetto_stack_prepare() made one ready, on
 * sequence 1) a callstack new to the part, in the packet's one InternedData. */
CONV_HIDDEN void perfetto_write_interned(struct conv *c, uint32_t name, uint32_t cat, int newn, int newc);
/* perfetto_gpu.c: the ops of GPU zones. */
CONV_HIDDEN int perfetto_gpu_begin(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z);
CONV_HIDDEN int perfetto_gpu_end(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z);
CONV_HIDDEN int perfetto_te_open(struct conv *c, struct te_marks *m, uint64_t ts, unsigned type,
				 uint64_t track, uint32_t name, uint32_t cat, size_t extra);
CONV_HIDDEN void perfetto_annotation_bool(struct outbuf *o, const char *name);
CONV_HIDDEN void perfetto_annotation_uint(struct outbuf *o, const char *name, uint64_t v);
/* Needs room for PB_FIELD_MAX * 3 + strlen(name) + 3 * len. */
CONV_HIDDEN void perfetto_annotation_string(struct conv *c, const char *name, const char *s, size_t len);
/* Room for the interned names and values of n arguments. */
CONV_HIDDEN size_t perfetto_args_room(struct conv *c, const struct profev_event *a, uint32_t n);
/* Inside an InternedData: the argument keys the sequence has not defined
 * in this part. */
CONV_HIDDEN void perfetto_arg_names_write(struct conv *c, const struct profev_event *a, uint32_t n);
/* 1 if one of the argument keys is not defined on the sequence. */
CONV_HIDDEN int perfetto_arg_names_new(struct conv *c, const struct profev_event *a, uint32_t n);
/* The arguments as debug annotations with interned names, the flow marks
 * as flow ids (a FLOW_IN ends its flow). */
CONV_HIDDEN void perfetto_args_write(struct conv *c, const struct profev_event *a, uint32_t n);

/* perfetto_callstacks.c */
/* Make ready to define callstack id in the next packet, with the frames and
 * mappings this part has not defined yet; *need grows by the room they
 * take. @return 1 if the packet may refer to it (0: unknown or empty
 * stack), <0 on no memory. */
CONV_HIDDEN int perfetto_stack_prepare(struct conv *c, uint32_t id, size_t *need);
/* Inside an InternedData: what perfetto_stack_prepare() found new. */
CONV_HIDDEN void perfetto_stack_write(struct conv *c);

/* perfetto_zones.c: the ops of zones and of their arguments. */
CONV_HIDDEN int perfetto_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge);
CONV_HIDDEN int perfetto_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
				  int edge);
CONV_HIDDEN int perfetto_arg(struct conv *c, struct conv_thread *t, struct conv_zone *z,
			     const struct profev_event *ev);
CONV_HIDDEN int perfetto_zone_rename(struct conv *c, struct conv_thread *t, struct conv_zone *z);

/* perfetto_samples.c: the ops of samples and context switches. */
CONV_HIDDEN int perfetto_sample(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
CONV_HIDDEN int perfetto_sample_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
CONV_HIDDEN int perfetto_sched(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
#endif
