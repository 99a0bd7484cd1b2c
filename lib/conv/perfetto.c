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
 * and what they refer to only on sequence 1. Only a sequence's first packet
 * has sequence_flags (SEQ_INCREMENTAL_STATE_CLEARED): the others would say
 * SEQ_NEEDS_INCREMENTAL_STATE, which lets a reader skip packets whose state
 * a ring buffer lost; a converted file loses none, trace_processor needs no
 * flag to use the state, and it took two bytes of every event. Tracks are
 * described (TrackDescriptor) before their first event: a process track, a
 * thread track per thread, a counter track per counter and a track per
 * frame set.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/conv_internal.h"
#include "trace/trace_internal.h"
#include "conv/pb.h"

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
	TP_TIMESTAMP_CLOCK_ID = 58,
	TP_TRACE_PACKET_DEFAULTS = 59,
	TP_FIRST_PACKET_ON_SEQUENCE = 87,
	/* TracePacketDefaults, and its TrackEventDefaults */
	TPD_TIMESTAMP_CLOCK_ID = 58,
	TPD_TRACK_EVENT_DEFAULTS = 11,
	TED_TRACK_UUID = 11,

	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,

	CS_CLOCKS = 1,
	CLOCK_ID = 1,
	CLOCK_TIMESTAMP = 2,
	CLOCK_IS_INCREMENTAL = 3,
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
	TE_CATEGORIES = 22,
	TE_NAME = 23,
	TE_SCREENSHOT = 50,
	SCREENSHOT_JPG_IMAGE = 1,
	TE_COUNTER_VALUE = 30,
	TE_DOUBLE_COUNTER_VALUE = 44,
	TE_CALLSTACK_IID = 56,
	TE_CALLSTACK_WEIGHT = 57,     /* double: what the UI's flame graph sums */

	CD_UNIT = 3,
	UNIT_SIZE_BYTES = 3,

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
	ID_FUNCTION_NAMES = 5,
	ID_FRAMES = 6,
	ID_CALLSTACKS = 7,
	ID_BUILD_IDS = 16,
	ID_MAPPING_PATHS = 17,
	ID_SOURCE_PATHS = 18,
	ID_MAPPINGS = 19,
	IE_IID = 1,
	IE_NAME = 2,

	/* profiling/profile_common.proto */
	IS_IID = 1,
	IS_STR = 2,
	MAP_IID = 1,
	MAP_BUILD_ID = 2,
	MAP_START_OFFSET = 3,
	MAP_START = 4,
	MAP_END = 5,
	MAP_LOAD_BIAS = 6,
	MAP_PATH_STRING_IDS = 7,
	MAP_EXACT_OFFSET = 8,
	FR_IID = 1,
	FR_FUNCTION_NAME_ID = 2,
	FR_MAPPING_ID = 3,
	FR_REL_PC = 4,
	FR_SOURCE_PATH_IID = 5,
	FR_LINE_NUMBER = 6,
	CST_IID = 1,
	CST_FRAME_IDS = 2,
};

/* Fields of the rich events (arguments, flows, source locations, async
 * spans, lock waits), as in Perfetto's protos. */
enum {
	TE_SOURCE_LOCATION_IID = 34,
	TE_FLOW_IDS = 47,             /* repeated fixed64 */
	TE_TERMINATING_FLOW_IDS = 48, /* repeated fixed64 */
	DA_NAME_IID = 1,
	DA_INT_VALUE = 4,
	DA_DOUBLE_VALUE = 5,
	DA_POINTER_VALUE = 7,
	ID_DEBUG_ANNOTATION_NAMES = 3,
	ID_SOURCE_LOCATIONS = 4,
	SL_IID = 1,
	SL_FILE_NAME = 2,
	SL_FUNCTION_NAME = 3,
	SL_LINE_NUMBER = 4,
};

/* Track uuids: one process track, counters by string id (small, as
 * counter events name their track), then threads by TID, frame sets by
 * string id and the rest in ranges neither reaches. Thread and frame-set
 * tracks are their sequence's default track, so their uuids are rarely
 * written. */
#define SEQ_SHARED 1
#define SEQ_FIRST 2
#define CLOCK_SEQ 64 /* each track sequence's incremental clock (64-127: sequence-scoped) */
#define UUID_PROCESS 1ull
#define UUID_COUNTER(id) (16ull + (id))
#define UUID_THREAD(tid) (2ull << 32 | (tid))
#define UUID_FRAMES(id) (3ull << 32 | (id))
#define UUID_MEMORY(pool) (4ull << 32 | (pool))
#define UUID_ALLOCS (5ull << 32)
#define UUID_SCREENSHOTS (6ull << 32)
/* An async span's track: one per (name, id), so that spans that overlap
 * never share one (the UI shows tracks of one name together). */
#define UUID_ASYNC(h) (0xa000000000000000ull | ((h) & 0x0fffffffffffffffull))

/* Mapping path components: iid (module index + 1) << 8 | component. */
#define PATH_PARTS 255

/* Room for a packet's fixed fields and nesting, strings apart. */
#define PACKET_MAX 192
#define TITLE_MAX 96

/*
 * Callstack interning. The trace's callstack ids serve as callstack iids
 * and module index + 1 as mapping and build-id iids. Frames get their own
 * iids: each distinct (module, offset) a run of consecutive ones, one per
 * function of its inline chain (one if it is not symbolized), innermost
 * first; function names and source paths take their frame's iid. Iids are
 * never reused for other values, as Perfetto requires across resets; each
 * part defines again what it uses.
 */
struct pfr {
	uint64_t offset;
	uint32_t module;  /* index, or NOMOD: the offset is an absolute pc */
	uint32_t iid;     /* first of n; 0 = empty slot */
	uint32_t n;
	uint32_t part;    /* part it was last defined in, counted from 1 */
	uint32_t ret;     /* a return address: rel_pc is offset - 1 */
};
#define NOMOD UINT32_MAX

/* A set of ids (0 is none), as a hash table: string ids, one set per
 * sequence and kind of interned string, so its size is what the sequence
 * uses, not the largest id; and the part's async track uuids. */
struct pfset {
	uint64_t *k;   /* 0 = empty slot */
	uint32_t mask, n;
};

static inline uint32_t pfset_slot(uint64_t id, uint32_t mask)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static int pfset_has(const struct pfset *s, uint64_t id)
{
	if (!s->n)
		return 0;
	for (uint32_t i = pfset_slot(id, s->mask); s->k[i]; i = (i + 1) & s->mask)
		if (s->k[i] == id)
			return 1;
	return 0;
}

/* Add id (not 0): 1 if it is new, 0 if it was there, <0 on no memory. */
static int pfset_add(struct pfset *s, uint64_t id)
{
	if (!s->k || (s->n + 1) * 2 > s->mask) {
		uint64_t *old = s->k;
		uint32_t n = old ? s->mask + 1 : 0, mask = n ? 2 * n - 1 : 15;
		if (!(s->k = calloc((size_t)mask + 1, sizeof(*s->k)))) {
			s->k = old;
			return PROFEV_E_NOMEM;
		}
		s->mask = mask;
		for (uint32_t i = 0; i < n; i++) {
			if (!old[i])
				continue;
			uint32_t j = pfset_slot(old[i], mask);
			while (s->k[j])
				j = (j + 1) & mask;
			s->k[j] = old[i];
		}
		free(old);
	}
	uint32_t i = pfset_slot(id, s->mask);
	for (; s->k[i]; i = (i + 1) & s->mask)
		if (s->k[i] == id)
			return 0;
	s->k[i] = id;
	s->n++;
	return 1;
}

/* Remove id, moving back the entries of its run that may not stay behind
 * the hole (linear probing has no tombstones). */
static void pfset_del(struct pfset *s, uint64_t id)
{
	if (!s->n)
		return;
	uint32_t i = pfset_slot(id, s->mask);
	while (s->k[i] && s->k[i] != id)
		i = (i + 1) & s->mask;
	if (!s->k[i])
		return;
	s->k[i] = 0;
	s->n--;
	for (uint32_t j = (i + 1) & s->mask; s->k[j]; j = (j + 1) & s->mask) {
		uint32_t h = pfset_slot(s->k[j], s->mask);
		/* stays if its home is cyclically in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		s->k[i] = s->k[j];
		s->k[j] = 0;
		i = j;
	}
}

static void pfset_clear(struct pfset *s)
{
	if (s->k)
		memset(s->k, 0, ((size_t)s->mask + 1) * sizeof(*s->k));
	s->n = 0;
}

/* A packet sequence and what is interned on it in the current part. */
struct pfseq {
	uint32_t id;        /* trusted_packet_sequence_id */
	uint32_t part;      /* the part it was started in, 0 = none yet */
	uint32_t idx;       /* track sequences: the track's creation order */
	int incremental;    /* timestamps are deltas on CLOCK_SEQ */
	uint64_t last;      /* that clock: the last time written on it */
	uint64_t track;     /* default track uuid, 0 = none */
	uint64_t head;      /* after the timestamp: the sequence id's field and
	                       TP_TRACK_EVENT's tag and a length byte, from the
	                       lowest byte; their count in the top byte */
	struct pfset names, cats, srclocs, annames;
};

/* A zone name's TE_NAME_IID and TE_CATEGORY_IIDS fields, encoded once: they
 * may be copied in the part they were made in, for the category they were
 * made with, on the sequences whose bit is set in seqs (both strings are
 * interned there, and so is the source location when it is encoded). */
struct pfzn {
	uint64_t bytes[2];  /* the fields, from the lowest byte */
	uint64_t seqs;      /* track sequences by idx, the first 64 */
	uint32_t cat;
	uint32_t part_len;  /* part << 6 | srcloc << 5 | byte count (at most 16) */
};

struct pf {
	struct conv_idset counters, pools, stacks, mappings;
	struct pfseq shared;  /* sequence 1 */
	struct pfseq **seqs;  /* track sequences by creation order */
	uint32_t nseqs;
	struct pfseq *cur;    /* the sequence being written on */
	struct conv_thread *last_t; /* the track last written for */
	struct pfset asyncs;  /* async track uuids described in this part */
	/* The zone begin written last, while nothing follows it: the arguments
	 * and flows that come next are written into it again. */
	const struct conv_thread *open_t;
	unsigned open_depth;
	int open_edge;
	const uint8_t *open_p;
	uint64_t open_drained;
	size_t open_len;
	struct pfseq *open_seq;   /* its sequence, and that clock before it */
	uint64_t open_last;
	/* Arguments whose keys the packet being written defines. */
	const struct profev_event *an;
	uint32_t nan;
	/* What the open zone begin defined, to define again when it is
	 * written again; more than fits: it is not written again. */
	struct { struct pfset *set; uint32_t id; } undo[16];
	unsigned nundo;
	struct pfzn *zn;    /* by zone name id */
	uint32_t nzn;
	int allocs_track;         /* the allocations track is described */
	int shots_track;          /* the Screenshots track is described */
	struct conv_shots shots;  /* frame images to JPEG */
	uint32_t part;
	struct pfr *fr;           /* (module, offset) -> frame iids */
	size_t frmask, nfr;
	uint32_t next_iid;
	/* What the packet being prepared defines. */
	uint32_t stack;           /* callstack to define, 0 = none */
	struct pfr *newfr;
	uint32_t *newmod;
	unsigned nnewfr, nnewmod, newcap;
};

static void seq_init(struct pfseq *s, uint32_t id)
{
	uint8_t b[16], *q = b;
	*q++ = TP_SEQUENCE_ID << 3 | PB_WT_VARINT;
	q = pb_put_varint(q, id);
	*q++ = TP_TRACK_EVENT << 3 | PB_WT_LEN;
	*q++ = 0;
	s->id = id;
	s->head = (uint64_t)(q - b) << 56;
	for (unsigned i = 0; i < (unsigned)(q - b); i++)
		s->head |= (uint64_t)b[i] << (8 * i);
}

static int pf_init(struct conv *c)
{
	struct pf *p = calloc(1, sizeof(struct pf));
	if (!p)
		return PROFEV_E_NOMEM;
	seq_init(&p->shared, SEQ_SHARED);
	p->cur = &p->shared;
	c->fmt = p;
	return 0;
}

static void seq_free(struct pfseq *s)
{
	free(s->names.k);
	free(s->cats.k);
	free(s->srclocs.k);
	free(s->annames.k);
}

static void pf_fini(struct conv *c)
{
	struct pf *p = c->fmt;
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
	free(p->asyncs.k);
	free(p->zn);
	free(p->fr);
	free(p->newfr);
	free(p->newmod);
	conv_shots_free(&p->shots);
	free(p);
}

/* A packet's timestamp on sequence s: a delta on its incremental clock, or
 * the whole time on the trace clock where that would go back. Needs room
 * for 2 * PB_FIELD_MAX. */
static inline uint8_t *put_time(struct pfseq *s, uint8_t *q, uint64_t ts)
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
 * on a sequence's first packet; any other value writes none (see the top). */
static inline size_t packet_begin(struct conv *c, uint64_t ts, unsigned flags)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	size_t m = pb_begin(o, TRACE_PACKET);
	o->p = put_time(p->cur, o->p, ts);
	pb_uint(o, TP_SEQUENCE_ID, p->cur->id);
	if (flags == SEQ_INCREMENTAL_STATE_CLEARED)
		pb_uint(o, TP_SEQUENCE_FLAGS, flags);
	return m;
}

/* TE_TRACK_UUID, unless track is the current sequence's default. */
static inline void track_write(struct conv *c, uint64_t track)
{
	struct pf *p = c->fmt;
	if (track != p->cur->track)
		pb_uint(&c->out, TE_TRACK_UUID, track);
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
	/* Each part is a trace of its own: everything is defined again, and
	 * each track sequence starts again with its track's first event. */
	conv_idset_clear(&p->counters);
	conv_idset_clear(&p->pools);
	conv_idset_clear(&p->stacks);
	conv_idset_clear(&p->mappings);
	pfset_clear(&p->shared.names);
	pfset_clear(&p->shared.cats);
	pfset_clear(&p->shared.srclocs);
	pfset_clear(&p->shared.annames);
	p->cur = &p->shared;
	p->last_t = NULL;
	p->open_t = NULL;
	pfset_clear(&p->asyncs);
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
	 * values written as the trace clock. Taken at the trace's base, where
	 * each track sequence's clock starts too: trace_processor wants a
	 * clock's values in its snapshots never to go back. */
	uint64_t back = m && m->mono_start_ns >= c->base ? m->mono_start_ns - c->base : 0;
	if (m && m->wall_start_ns > 0 && m->mono_start_ns && m->mono_start_ns >= c->base &&
	    back < (uint64_t)m->wall_start_ns) {
		if ((rc = outbuf_reserve(o, PACKET_MAX)))
			return rc;
		pk = packet_begin(c, c->base, SEQ_NEEDS_INCREMENTAL_STATE);
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

static int pf_part_end(struct conv *c)
{
	(void)c;
	return 0;
}

static uint64_t track_uuid(const struct conv_thread *t)
{
	return t->kind == CONV_FRAMES ? UUID_FRAMES(t->tid) : UUID_THREAD(t->tid);
}

/*
 * Start sequence s of track t in this part: one packet, without a
 * timestamp, that clears its state, makes t's track its default and
 * CLOCK_SEQ its clock, and starts that clock at the trace's base with a
 * ClockSnapshot (BOOTTIME being the trace clock).
 */
static int seq_start(struct conv *c, const struct conv_thread *t, struct pfseq *s)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	pfset_clear(&s->names);
	pfset_clear(&s->cats);
	pfset_clear(&s->srclocs);
	pfset_clear(&s->annames);
	s->part = p->part;
	s->track = track_uuid(t);
	size_t pk = pb_begin(o, TRACE_PACKET);
	pb_uint(o, TP_SEQUENCE_ID, s->id);
	pb_uint(o, TP_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_uint(o, TP_FIRST_PACKET_ON_SEQUENCE, 1);
	size_t d = pb_begin(o, TP_TRACE_PACKET_DEFAULTS);
	pb_uint(o, TPD_TIMESTAMP_CLOCK_ID, CLOCK_SEQ);
	size_t ted = pb_begin(o, TPD_TRACK_EVENT_DEFAULTS);
	pb_uint(o, TED_TRACK_UUID, s->track);
	pb_end(o, ted);
	pb_end(o, d);
	size_t cs = pb_begin(o, TP_CLOCK_SNAPSHOT);
	size_t k = pb_begin(o, CS_CLOCKS);
	pb_uint(o, CLOCK_ID, CLOCK_SEQ);
	pb_uint(o, CLOCK_TIMESTAMP, c->base);
	pb_uint(o, CLOCK_IS_INCREMENTAL, 1);
	pb_end(o, k);
	k = pb_begin(o, CS_CLOCKS);
	pb_uint(o, CLOCK_ID, BUILTIN_CLOCK_BOOTTIME);
	pb_uint(o, CLOCK_TIMESTAMP, c->base);
	pb_end(o, k);
	pb_end(o, cs);
	pb_end(o, pk);
	s->incremental = 1;
	s->last = c->base;
	return 0;
}

/* Write on t's sequence from here on, starting it if this part has not. */
static int seq_use(struct conv *c, struct conv_thread *t)
{
	struct pf *p = c->fmt;
	struct pfseq *s = t->seq < p->nseqs ? p->seqs[t->seq] : NULL;
	if (__builtin_expect(!s, 0)) {
		if (t->seq > UINT32_MAX - SEQ_FIRST ||
		    array_grow((void **)&p->seqs, &p->nseqs, sizeof(*p->seqs), (uint64_t)t->seq + 1) ||
		    !(s = calloc(1, sizeof(*s))))
			return PROFEV_E_NOMEM;
		seq_init(s, SEQ_FIRST + t->seq);
		s->idx = t->seq;
		p->seqs[t->seq] = s;
	}
	int rc;
	if (s->part != p->part && (rc = seq_start(c, t, s)))
		return rc;
	p->cur = s;
	p->last_t = t;
	return 0;
}

/* t's sequence if it is started in this part, else NULL. */
static inline struct pfseq *seq_ready(const struct pf *p, const struct conv_thread *t)
{
	struct pfseq *s = t->seq < p->nseqs ? p->seqs[t->seq] : NULL;
	return s && s->part == p->part ? s : NULL;
}

static void use_shared(struct pf *p)
{
	p->cur = &p->shared;
}

static int pf_thread(struct conv *c, struct conv_thread *t)
{
	struct outbuf *o = &c->out;
	size_t len = strlen(t->name);
	int rc = seq_use(c, t);
	if (!rc)
		rc = outbuf_reserve(o, PACKET_MAX + 3 * len + 16);
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

/* A string the packet being written defines in its sequence's set. */
static void undo_push(struct pf *p, struct pfset *set, uint32_t id)
{
	if (p->nundo < sizeof(p->undo) / sizeof(p->undo[0]))
		p->undo[p->nundo].set = set, p->undo[p->nundo].id = id;
	p->nundo++;
}

/* Source locations: a call site's string id is its location's iid too,
 * defined with the name. Room for the one of id, 0 if it has none. */
static size_t srcloc_room(struct conv *c, uint32_t id)
{
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, id);
	if (!l)
		return 0;
	return 3 * (strlen(profev_reader_string(c->r, l->file)) +
		    strlen(profev_reader_string(c->r, l->function))) + 4 * PB_FIELD_MAX;
}

/* Inside an InternedData: the source location of call site id, if it has
 * one the sequence has not defined. @return 1 if the event may refer to it
 * (0 too when there is no memory to remember it: it is left out). */
static int srcloc_write(struct conv *c, uint32_t id)
{
	struct pf *p = c->fmt;
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, id);
	if (!l || pfset_add(&p->cur->srclocs, id) != 1)
		return l != NULL && pfset_has(&p->cur->srclocs, id);
	undo_push(p, &p->cur->srclocs, id);
	struct outbuf *o = &c->out;
	const char *file = profev_reader_string(c->r, l->file);
	const char *fn = profev_reader_string(c->r, l->function);
	size_t e = pb_begin(o, ID_SOURCE_LOCATIONS);
	pb_uint(o, SL_IID, id);
	c->st.replaced_bytes += pb_string_utf8(o, SL_FILE_NAME, file, strlen(file));
	c->st.replaced_bytes += pb_string_utf8(o, SL_FUNCTION_NAME, fn, strlen(fn));
	pb_uint(o, SL_LINE_NUMBER, l->line);
	pb_end(o, e);
	return 1;
}

/* Adds id (0: none) to the sequence's set; *is_new says whether the packet
 * must define it, and *need grows by the room its string takes then. */
static int intern_one(struct conv *c, struct pfset *set, uint32_t id, int *is_new, size_t *need)
{
	*is_new = 0;
	if (!id)
		return 0;
	int r = pfset_add(set, id);
	if (r <= 0)
		return r;
	undo_push(c->fmt, set, id);
	*is_new = 1;
	*need += 3 * strlen(profev_reader_string(c->r, id)) + 2 * PB_FIELD_MAX;
	return 0;
}

/* Define in this packet the name and category strings it uses for the first
 * time on its sequence in the part. Reserves the room the whole packet needs. */
static int intern(struct conv *c, uint32_t name, uint32_t cat, size_t extra, int *newn, int *newc)
{
	struct pf *p = c->fmt;
	size_t need = PACKET_MAX + extra;
	*newn = *newc = 0;
	int rc = intern_one(c, &p->cur->names, name, newn, &need);
	if (!rc)
		rc = intern_one(c, &p->cur->cats, cat, newc, &need);
	if (!rc && *newn)
		need += srcloc_room(c, name);
	return rc ? rc : outbuf_reserve(&c->out, need);
}

static void stack_write(struct conv *c);
static int annames_new(struct conv *c, const struct profev_event *a, uint32_t n);
static void annames_write(struct conv *c, const struct profev_event *a, uint32_t n);
static size_t args_room(struct conv *c, const struct profev_event *a, uint32_t n);
static void args_write(struct conv *c, const struct profev_event *a, uint32_t n);

/* An entry of InternedData's field (event names, categories, annotation
 * names): the trace's string iid, with the string as its name. */
static void interned_string_write(struct conv *c, unsigned field, uint32_t iid)
{
	struct outbuf *o = &c->out;
	const char *s = profev_reader_string(c->r, iid);
	size_t e = pb_begin(o, field);
	pb_uint(o, IE_IID, iid);
	c->st.replaced_bytes += pb_string_utf8(o, IE_NAME, s, strlen(s));
	pb_end(o, e);
}

/* Names, categories and (when stack_prepare() made one ready, on sequence
 * 1) a callstack new to the part, in the packet's one InternedData. */
static void write_interned(struct conv *c, uint32_t name, uint32_t cat, int newn, int newc)
{
	struct outbuf *o = &c->out;
	struct pf *p = c->fmt;
	if (!newn && !newc && !p->stack && !(p->nan && annames_new(c, p->an, p->nan)))
		return;
	size_t id = pb_begin(o, TP_INTERNED_DATA);
	if (p->nan)
		annames_write(c, p->an, p->nan);
	if (newc)
		interned_string_write(c, ID_EVENT_CATEGORIES, cat);
	if (newn) {
		interned_string_write(c, ID_EVENT_NAMES, name);
		srcloc_write(c, name);
	}
	if (p->stack)
		stack_write(c);
	pb_end(o, id);
}

/*
 * The general TrackEvent packet, for what the fast paths below do not
 * write: on the current sequence at ts, of type, on the track uuid, named
 * by the interned string name and in the category cat (0: none), with an
 * InternedData defining what the sequence has not seen yet in the part (and
 * the callstack stack_prepare() made ready). The caller may add fields within extra bytes of room (strings
 * apart from its own count), then closes it with te_close().
 */
struct te_marks {
	size_t pk, te;
};

static int te_open(struct conv *c, struct te_marks *m, uint64_t ts, unsigned type, uint64_t track,
		   uint32_t name, uint32_t cat, size_t extra)
{
	struct outbuf *o = &c->out;
	int newn, newc, rc = intern(c, name, cat, extra, &newn, &newc);
	if (rc)
		return rc;
	m->pk = packet_begin(c, ts, SEQ_NEEDS_INCREMENTAL_STATE);
	write_interned(c, name, cat, newn, newc);
	m->te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, type);
	track_write(c, track);
	if (name)
		pb_uint(o, TE_NAME_IID, name);
	if (cat)
		pb_uint(o, TE_CATEGORY_IIDS, cat);
	if (name && pfset_has(&((struct pf *)c->fmt)->cur->srclocs, name))
		pb_uint(o, TE_SOURCE_LOCATION_IID, name);
	return 0;
}

static void te_close(struct conv *c, const struct te_marks *m)
{
	pb_end(&c->out, m->te);
	pb_end(&c->out, m->pk);
}

/* ---- callstacks ---- */

static const struct profev_module *module_of(const struct conv *c, const struct profev_frame *f)
{
	return f->flags & PROFEV_FRAMEF_NOMODULE ? NULL : profev_reader_module(c->r, f->module);
}

static struct pfr *fr_slot(const struct pf *p, uint32_t module, uint64_t offset, uint32_t ret)
{
	uint64_t h = (offset * 0x9e3779b97f4a7c15ull ^ module ^ (uint64_t)ret << 32) * 0xff51afd7ed558ccdull;
	size_t i = (size_t)(h >> 32) & p->frmask;
	while (p->fr[i].iid &&
	       (p->fr[i].offset != offset || p->fr[i].module != module || p->fr[i].ret != ret))
		i = (i + 1) & p->frmask;
	return &p->fr[i];
}

static int fr_rehash(struct pf *p)
{
	size_t n = p->fr ? p->frmask + 1 : 0, mask = n ? 2 * n - 1 : 255;
	struct pfr *old = p->fr;
	if (!(p->fr = calloc(mask + 1, sizeof(*p->fr)))) {
		p->fr = old;
		return PROFEV_E_NOMEM;
	}
	p->frmask = mask;
	for (size_t i = 0; i < n; i++)
		if (old[i].iid)
			*fr_slot(p, old[i].module, old[i].offset, old[i].ret) = old[i];
	free(old);
	return 0;
}

/*
 * A frame's rel_pc is the address pfsym resolves, as Perfetto's producers
 * (libunwindstack in traced_perf and heapprofd) store it: a return address
 * less one, in the call instruction.
 */
static uint32_t fr_ret(const struct profev_frame *f)
{
	return (f->flags & PROFEV_FRAMEF_RETURN) && !(f->flags & PROFEV_FRAMEF_NOMODULE) && f->offset;
}

/* The frame iids of f, made on first sight. */
static struct pfr *fr_get(struct conv *c, const struct profev_frame *f)
{
	struct pf *p = c->fmt;
	if ((!p->fr || (p->nfr + 1) * 2 > p->frmask) && fr_rehash(p))
		return NULL;
	uint32_t module = module_of(c, f) ? f->module : NOMOD;
	uint32_t ret = fr_ret(f);
	struct pfr *e = fr_slot(p, module, f->offset, ret);
	if (e->iid)
		return e;
	unsigned n = 0;
	if (module != NOMOD && !conv_symbol(c, module, f->offset, &n))
		n = 0;
	if (!n)
		n = 1;
	if (p->next_iid > UINT32_MAX - n - 1)
		return NULL;
	*e = (struct pfr){ f->offset, module, p->next_iid + 1, n, 0, ret };
	p->next_iid += n;
	p->nfr++;
	return e;
}

static size_t path_parts(const char *path)
{
	size_t n = 0;
	for (const char *s = path; *s; s++)
		n += (s == path || s[-1] == '/') && *s != '/';
	return n < PATH_PARTS ? n : PATH_PARTS;
}

/*
 * Make ready to define callstack id in the next packet, with the frames and
 * mappings this part has not defined yet; *need grows by the room they
 * take. @return 1 if the packet may refer to it (0: unknown or empty
 * stack), <0 on no memory.
 */
static int stack_prepare(struct conv *c, uint32_t id, size_t *need)
{
	struct pf *p = c->fmt;
	unsigned n;
	p->stack = 0;
	p->nnewfr = p->nnewmod = 0;
	const struct profev_frame *f = conv_stack(c, id, &n);
	if (!f)
		return 0;
	int fresh = conv_idset_add(&p->stacks, id);
	if (fresh <= 0)
		return fresh < 0 ? fresh : 1;
	if (n > p->newcap) {
		struct pfr *a = realloc(p->newfr, n * sizeof(*a));
		if (a)
			p->newfr = a;
		uint32_t *b = realloc(p->newmod, n * sizeof(*b));
		if (b)
			p->newmod = b;
		if (!a || !b)
			return PROFEV_E_NOMEM;
		p->newcap = n;
	}
	size_t room = 32;
	for (unsigned i = 0; i < n; i++) {
		struct pfr *e = fr_get(c, &f[i]);
		if (!e)
			return PROFEV_E_NOMEM;
		room += 11 * (size_t)e->n;
		if (e->part == p->part)
			continue;
		e->part = p->part;
		p->newfr[p->nnewfr++] = *e;
		unsigned ns = 0;
		const struct profev_symframe *sym =
			e->module == NOMOD ? NULL : conv_symbol(c, e->module, e->offset, &ns);
		room += 112 * (size_t)e->n;
		for (unsigned k = 0; sym && k < ns && k < e->n; k++)
			room += 3 * (strlen(sym[k].function ? sym[k].function : "") +
				     strlen(sym[k].file ? sym[k].file : ""));
		if (e->module == NOMOD)
			continue;
		int r = conv_idset_add(&p->mappings, e->module);
		if (r < 0)
			return r;
		if (r) {
			const struct profev_module *m = profev_reader_module(c->r, e->module);
			p->newmod[p->nnewmod++] = e->module;
			room += 128 + m->build_id_len + 3 * strlen(m->path) + 32 * path_parts(m->path);
		}
	}
	p->stack = id;
	*need += room;
	return 1;
}

static void interned_string(struct conv *c, uint32_t field, uint64_t iid, const char *s, size_t n)
{
	struct outbuf *o = &c->out;
	size_t e = pb_begin(o, field);
	pb_uint(o, IS_IID, iid);
	c->st.replaced_bytes += pb_string_utf8(o, IS_STR, s, n);
	pb_end(o, e);
}

struct map_desc {
	uint64_t start, end, exact_offset, load_bias;
};

/* The executable mapping of module m, page-aligned as the kernel maps it. */
static struct map_desc map_desc(const struct profev_module *m)
{
	struct map_desc d = { 0, 0, 0, 0 };
	const uint64_t page = 4096;
	uint64_t v = m->exec_vaddr, off = m->exec_offset;
	/* (a hostile trace: nothing that wraps or that no ELF file holds) */
	if (!m->exec_size || v < off || (v & (page - 1)) != (off & (page - 1)) ||
	    v + m->exec_size < v || m->load_bias + v + m->exec_size < m->load_bias)
		return d;
	d.start = m->load_bias + (v & ~(page - 1));
	d.end = (m->load_bias + v + m->exec_size + page - 1) & ~(page - 1);
	d.exact_offset = off & ~(page - 1);
	d.load_bias = v - off;
	if (d.end <= d.start)
		d.end = 0;
	return d;
}

/* Inside an InternedData: what stack_prepare() found new, in field order. */
static void stack_write(struct conv *c)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	char hex[24];
	for (unsigned i = 0; i < p->nnewfr; i++) {
		const struct pfr *e = &p->newfr[i];
		unsigned ns = 0;
		const struct profev_symframe *sym =
			e->module == NOMOD ? NULL : conv_symbol(c, e->module, e->offset, &ns);
		for (unsigned k = 0; k < e->n; k++) {
			const char *fn = sym && k < ns ? sym[k].function : NULL;
			if (e->module == NOMOD)
				fn = hex, snprintf(hex, sizeof(hex), "0x%" PRIx64, e->offset);
			if (fn)
				interned_string(c, ID_FUNCTION_NAMES, e->iid + k, fn, strlen(fn));
		}
	}
	for (unsigned i = 0; i < p->nnewfr; i++) {
		const struct pfr *e = &p->newfr[i];
		unsigned ns = 0;
		const struct profev_symframe *sym =
			e->module == NOMOD ? NULL : conv_symbol(c, e->module, e->offset, &ns);
		for (unsigned k = 0; k < e->n; k++) {
			const struct profev_symframe *sf = sym && k < ns ? &sym[k] : NULL;
			size_t fm = pb_begin(o, ID_FRAMES);
			pb_uint(o, FR_IID, e->iid + k);
			if ((sf && sf->function) || e->module == NOMOD)
				pb_uint(o, FR_FUNCTION_NAME_ID, e->iid + k);
			if (e->module != NOMOD) {
				pb_uint(o, FR_MAPPING_ID, (uint64_t)e->module + 1);
				pb_uint(o, FR_REL_PC, e->offset - e->ret);
			}
			if (sf && sf->file)
				pb_uint(o, FR_SOURCE_PATH_IID, e->iid + k);
			if (sf && sf->line)
				pb_uint(o, FR_LINE_NUMBER, sf->line);
			pb_end(o, fm);
		}
	}
	/* Perfetto lists a callstack's frames outermost first. */
	unsigned n;
	const struct profev_frame *f = conv_stack(c, p->stack, &n);
	size_t cs = pb_begin(o, ID_CALLSTACKS);
	pb_uint(o, CST_IID, p->stack);
	for (unsigned i = n; i-- > 0;) {
		const struct pfr *e = fr_slot(p, module_of(c, &f[i]) ? f[i].module : NOMOD, f[i].offset, fr_ret(&f[i]));
		for (unsigned k = e->n; k-- > 0;)
			pb_uint(o, CST_FRAME_IDS, e->iid + k);
	}
	pb_end(o, cs);
	for (unsigned i = 0; i < p->nnewmod; i++) {
		const struct profev_module *m = profev_reader_module(c->r, p->newmod[i]);
		if (!m->build_id_len)
			continue;
		size_t e = pb_begin(o, ID_BUILD_IDS);
		pb_uint(o, IS_IID, (uint64_t)p->newmod[i] + 1);
		pb_bytes(o, IS_STR, m->build_id, m->build_id_len);
		pb_end(o, e);
	}
	for (unsigned i = 0; i < p->nnewmod; i++) {
		const char *s = profev_reader_module(c->r, p->newmod[i])->path;
		uint64_t base = ((uint64_t)p->newmod[i] + 1) << 8;
		for (unsigned k = 0; *s && k < PATH_PARTS; k++) {
			while (*s == '/')
				s++;
			size_t len = strcspn(s, "/");
			if (!len)
				break;
			/* the last part keeps the rest of a path too long to split */
			if (k == PATH_PARTS - 1)
				len = strlen(s);
			interned_string(c, ID_MAPPING_PATHS, base | k, s, len);
			s += len;
		}
	}
	for (unsigned i = 0; i < p->nnewfr; i++) {
		const struct pfr *e = &p->newfr[i];
		unsigned ns = 0;
		const struct profev_symframe *sym =
			e->module == NOMOD ? NULL : conv_symbol(c, e->module, e->offset, &ns);
		for (unsigned k = 0; sym && k < ns && k < e->n; k++)
			if (sym[k].file)
				interned_string(c, ID_SOURCE_PATHS, e->iid + k, sym[k].file, strlen(sym[k].file));
	}
	for (unsigned i = 0; i < p->nnewmod; i++) {
		const struct profev_module *m = profev_reader_module(c->r, p->newmod[i]);
		uint64_t iid = (uint64_t)p->newmod[i] + 1;
		size_t e = pb_begin(o, ID_MAPPINGS);
		pb_uint(o, MAP_IID, iid);
		if (m->build_id_len)
			pb_uint(o, MAP_BUILD_ID, iid);
		/* As traced_perf and heapprofd describe a module (libunwindstack's
		 * view of its executable mapping in /proc/PID/maps): start and
		 * end where that mapping is, exact_offset its file offset,
		 * start_offset 0 (the file is the ELF file), load_bias p_vaddr -
		 * p_offset of the first executable segment, and rel_pc the ELF
		 * virtual address (what llvm-symbolizer takes), so that
		 * Perfetto's symbolizer finds the addresses pfsym resolves also
		 * where the two differ (lld). A module whose segment the trace
		 * does not know: all 0, rel_pc as before. */
		struct map_desc d = map_desc(m);
		pb_uint(o, MAP_START_OFFSET, 0);
		if (d.end) {
			pb_uint(o, MAP_START, d.start);
			pb_uint(o, MAP_END, d.end);
		}
		pb_uint(o, MAP_LOAD_BIAS, d.load_bias);
		for (size_t k = 0, np = path_parts(m->path); k < np; k++)
			pb_uint(o, MAP_PATH_STRING_IDS, iid << 8 | k);
		pb_uint(o, MAP_EXACT_OFFSET, d.exact_offset);
		pb_end(o, e);
	}
	p->stack = 0;
}

static void annotation_bool(struct outbuf *o, const char *name)
{
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, name, strlen(name));
	pb_uint(o, DA_BOOL_VALUE, 1);
	pb_end(o, a);
}

static void annotation_uint(struct outbuf *o, const char *name, uint64_t v)
{
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, name, strlen(name));
	pb_uint(o, DA_UINT_VALUE, v);
	pb_end(o, a);
}

/* Needs room for PB_FIELD_MAX * 3 + strlen(name) + 3 * len. */
static void annotation_string(struct conv *c, const char *name, const char *s, size_t len)
{
	struct outbuf *o = &c->out;
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, name, strlen(name));
	c->st.replaced_bytes += pb_string_utf8(o, DA_STRING_VALUE, s, len);
	pb_end(o, a);
}

static int zone_begin_slow(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge);

/*
 * The common packets (zones, counters), written byte by byte: names already
 * interned, no annotation. Every field is known to fit one-byte lengths (at
 * most 3 tags + 2 varints of 10 bytes + 2 of 5 + 8 fixed bytes), so the
 * generic pb_begin()/pb_end() bookkeeping is skipped; these packets are
 * most of a trace. Some stores are of 8 bytes whatever the field's length
 * (what follows overwrites the rest): FAST_PACKET_MAX has room for that.
 */
#define FAST_PACKET_MAX 64

static inline void put8(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &x, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(x >> (8 * i));
#endif
}

static inline uint8_t *put_field(uint8_t *p, uint64_t field)
{
	put8(p, field);
	return p + (field >> 56);
}

/* A TrackEvent packet's head on sequence s: its timestamp, the sequence id
 * and the TrackEvent's tag; *plen and *telen get the two length bytes. */
static inline uint8_t *fast_head(struct pfseq *s, uint8_t *p, uint64_t ts, uint8_t **plen,
				 uint8_t **telen)
{
	p[0] = TRACE_PACKET << 3 | PB_WT_LEN;
	*plen = p + 1;
	p = put_field(put_time(s, p + 2, ts), s->head);
	*telen = p - 1;
	return p;
}

static inline void fast_tail(struct outbuf *o, uint8_t *p, uint8_t *plen, uint8_t *telen)
{
	*telen = (uint8_t)(p - telen - 1);
	*plen = (uint8_t)(p - plen - 1);
	o->p = p;
}

/* The name fields of zones named name with category cat, both interned in
 * this part on sequence s, which adds s to the sequences they may be
 * copied on. @return NULL when they take more than 16 bytes, on no memory,
 * or when s differs from the sequences they were made for (the caller
 * encodes them itself). */
static __attribute__((noinline)) const struct pfzn *zn_make(struct pf *pf, struct pfseq *s, uint32_t name,
							     uint32_t cat)
{
	if (name >= 1u << 21 || cat >= 1u << 21) /* 1 + 3 bytes each at most */
		return NULL;
	if (array_grow((void **)&pf->zn, &pf->nzn, sizeof(*pf->zn), (uint64_t)name + 1))
		return NULL;
	struct pfzn *e = &pf->zn[name];
	unsigned loc = name && pfset_has(&s->srclocs, name);
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
static inline void begin_written(struct pf *pf, const struct conv *c, const struct conv_thread *t,
				 const uint8_t *start, int edge, struct pfseq *s, uint64_t last)
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

static int pf_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	struct pf *pf = c->fmt;
	struct pfseq *s = seq_ready(pf, t);
	if (__builtin_expect(edge != CONV_EDGE_NORMAL || t->kind != CONV_THREAD || z->stack || !s, 0))
		return zone_begin_slow(c, t, z, edge);
	const struct pfzn *e = z->name < pf->nzn ? &pf->zn[z->name] : NULL;
	if (__builtin_expect(!e || e->part_len >> 6 != pf->part || e->cat != z->cat ||
			     !(s->idx < 64 && (e->seqs >> s->idx & 1)), 0)) {
		if (!pfset_has(&s->names, z->name) || (z->cat && !pfset_has(&s->cats, z->cat)))
			return zone_begin_slow(c, t, z, edge);
		e = zn_make(pf, s, z->name, z->cat);
	}
	if (__builtin_expect(!outbuf_reserve(&c->out, FAST_PACKET_MAX), 1)) {
		uint8_t *plen, *telen;
		const uint8_t *start = c->out.p;
		uint64_t last = s->last;
		uint8_t *p = fast_head(s, c->out.p, z->shown, &plen, &telen);
		p[0] = TE_TYPE << 3 | PB_WT_VARINT;
		p[1] = TYPE_SLICE_BEGIN;
		p += 2;
		pf->cur = s;
		pf->last_t = t;
		if (__builtin_expect(e != NULL, 1)) {
			put8(p, e->bytes[0]);
			put8(p + 8, e->bytes[1]);
			fast_tail(&c->out, p + (e->part_len & 31), plen, telen);
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
		if (z->name && pfset_has(&s->srclocs, z->name))
			p = pb_put_varint(pb_put_varint(p, TE_SOURCE_LOCATION_IID << 3 | PB_WT_VARINT), z->name);
		fast_tail(&c->out, p, plen, telen);
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
	struct pf *pf = c->fmt;
	struct te_marks m;
	int rc, stack = 0;
	size_t extra = n ? args_room(c, a, n) : 0;
	char title[CONV_FRAME_TITLE];
	if ((rc = seq_use(c, t)))
		return rc;
	if (t->kind != CONV_FRAMES && z->stack)
		use_shared(pf); /* callstacks are interned on sequence 1 only */
	struct pfseq *s = pf->cur;
	uint64_t last = s->last;
	z->aux = n;
	pf->an = a;
	pf->nan = n;
	pf->nundo = 0;
	if (t->kind == CONV_FRAMES) {
		if ((rc = te_open(c, &m, z->shown, TYPE_SLICE_BEGIN, track_uuid(t), 0, 0, extra)))
			return rc;
		pb_bytes(o, TE_NAME, title, conv_frame_title(title, z->frame));
	} else {
		if ((stack = stack_prepare(c, (uint32_t)z->stack, &extra)) < 0)
			return stack;
		if ((rc = te_open(c, &m, z->shown, TYPE_SLICE_BEGIN, track_uuid(t), z->name, z->cat, extra)))
			return rc;
		if (stack)
			pb_uint(o, TE_CALLSTACK_IID, z->stack);
	}
	/* The packet's tag and one-byte length come before its mark; te_open()
	 * made all the room it needs, so nothing moves the buffer until its end. */
	const uint8_t *start = o->base + m.pk - 2;
	pf->nan = 0;
	if (edge == CONV_EDGE_CUT)
		annotation_bool(o, "continued");
	args_write(c, a, n);
	te_close(c, &m);
	begin_written(pf, c, t, start, edge, s, last);
	if (stack || pf->nundo > sizeof(pf->undo) / sizeof(pf->undo[0]))
		pf->open_t = NULL; /* what it defined cannot be told again */
	return 0;
}


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

static int pf_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
		       int edge)
{
	struct outbuf *o = &c->out;
	uint32_t nargs;
	conv_zone_args(t, z, &nargs);
	if (__builtin_expect(nargs > z->aux, 0) && end_args(t, z))
		return zone_end_rich(c, t, z, ts, edge);
	struct pf *pf = c->fmt;
	struct pfseq *s = seq_ready(pf, t);
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	if (__builtin_expect(edge == CONV_EDGE_NORMAL && s != NULL, 1)) {
		uint8_t *plen, *telen;
		uint8_t *p = fast_head(s, o->p, ts, &plen, &telen);
		p[0] = TE_TYPE << 3 | PB_WT_VARINT;
		p[1] = TYPE_SLICE_END;
		fast_tail(o, p + 2, plen, telen);
		pf->cur = s;
		pf->last_t = t;
		return 0;
	}
	struct te_marks m;
	if ((rc = seq_use(c, t)) || (rc = te_open(c, &m, ts, TYPE_SLICE_END, track_uuid(t), 0, 0, 0)))
		return rc;
	annotation_bool(o, edge == CONV_EDGE_UNCLOSED ? "unclosed" : "cut");
	te_close(c, &m);
	return 0;
}

/* An instant (named name, 0: the caller names it) of t with its arguments. */
static int point_open(struct conv *c, struct te_marks *m, struct conv_thread *t,
		      const struct profev_event *ev, uint32_t name, size_t extra)
{
	struct pf *p = c->fmt;
	uint32_t n;
	const struct profev_event *a = conv_point_args(t, &n);
	int rc = seq_use(c, t);
	if (rc)
		return rc;
	p->an = a;
	p->nan = n;
	rc = te_open(c, m, c->now, TYPE_INSTANT, track_uuid(t), name, (uint32_t)ev->payload,
		     extra + (n ? args_room(c, a, n) : 0));
	p->nan = 0;
	if (!rc && n)
		args_write(c, a, n);
	return rc;
}

static int pf_instant(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct te_marks m;
	int rc = point_open(c, &m, t, ev, ev->name, 0);
	if (!rc)
		te_close(c, &m);
	return rc;
}

/* A message: an instant named by its first line, carrying the whole text. */
static int pf_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const char *text, size_t len)
{
	struct outbuf *o = &c->out;
	struct te_marks m;
	size_t title = conv_message_title(text, len, TITLE_MAX);
	int rc = point_open(c, &m, t, ev, 0, 3 * (len + title) + 4 * PB_FIELD_MAX);
	if (rc)
		return rc;
	c->st.replaced_bytes += pb_string_utf8(o, TE_NAME, text, title);
	annotation_string(c, "text", text, len);
	te_close(c, &m);
	return 0;
}

static int pf_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct te_marks m;
	int rc = seq_use(c, t);
	if (!rc)
		rc = te_open(c, &m, c->now, TYPE_INSTANT, track_uuid(t), 0, 0, 0);
	if (rc)
		return rc;
	pb_bytes(&c->out, TE_NAME, "lost events", 11);
	annotation_uint(&c->out, "count", ev->payload);
	te_close(c, &m);
	return 0;
}

/* A counter value: on its thread's sequence when that thread wrote last
 * (counters come in their thread's runs of events), else on sequence 1.
 * A whole number is written as one, in fewer bytes than a double, for
 * trace_processor keeps counter values as doubles either way. */
static int pf_counter(struct conv *c, const struct profev_event *ev)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	const struct conv_thread *t = p->last_t;
	struct pfseq *s = t && t->kind == CONV_THREAD && t->tid == ev->tid ? seq_ready(p, t) : NULL;
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
		size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
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
	uint8_t *q = fast_head(p->cur, o->p, c->now, &plen, &telen);
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
		fast_tail(o, q, plen, telen);
		return 0;
	}
	q = pb_put_varint(q, TE_DOUBLE_COUNTER_VALUE << 3 | PB_WT_I64);
	put8(q, ev->payload); /* the double's bits, little-endian */
	fast_tail(o, q + 8, plen, telen);
	return 0;
}

/* A track of the process's own: described once per part. */
static void named_track(struct conv *c, uint64_t uuid, const char *prefix, const char *name, int bytes)
{
	struct outbuf *o = &c->out;
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
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
static int pf_memory(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		     const struct conv_mem *m)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	const char *pool = m->pool ? profev_reader_string(c->r, m->pool) : "default";
	use_shared(p); /* with their callstacks */
	int rc, fresh = conv_idset_add(&p->pools, m->pool);
	if (fresh < 0)
		return fresh;
	if (fresh) {
		if ((rc = outbuf_reserve(o, PACKET_MAX + 3 * strlen(pool))))
			return rc;
		named_track(c, UUID_MEMORY(m->pool), "memory: ", pool, 1);
	}
	struct te_marks tm;
	if ((rc = te_open(c, &tm, c->now, TYPE_COUNTER, UUID_MEMORY(m->pool), 0, 0, 0)))
		return rc;
	pb_int(o, TE_COUNTER_VALUE, (int64_t)m->live);
	te_close(c, &tm);
	if (!t || ev->type != PROFEV_EV_MEM_ALLOC)
		return 0;

	if (!p->allocs_track) {
		if ((rc = outbuf_reserve(o, PACKET_MAX)))
			return rc;
		named_track(c, UUID_ALLOCS, "allocations", "", 0);
		p->allocs_track = 1;
	}
	size_t extra = 0;
	int stack = stack_prepare(c, ev->stack, &extra);
	if (stack < 0)
		return stack;
	if ((rc = te_open(c, &tm, c->now, TYPE_INSTANT, UUID_ALLOCS, m->pool, 0, extra + 48)))
		return rc;
	if (!m->pool)
		pb_bytes(o, TE_NAME, "default", 7);
	if (stack) {
		pb_uint(o, TE_CALLSTACK_IID, ev->stack);
		pb_double(o, TE_CALLSTACK_WEIGHT, (double)m->size);
	}
	annotation_uint(o, "bytes", m->size);
	te_close(c, &tm);
	return 0;
}

/* ---- rich events ---- */

static inline int is_arg(uint8_t type)
{
	return type == PROFEV_EV_ARG || type == PROFEV_EV_POINT_ARG;
}

/* Room for the interned names and values of n arguments. */
static size_t args_room(struct conv *c, const struct profev_event *a, uint32_t n)
{
	size_t room = 0;
	for (uint32_t i = 0; i < n; i++) {
		room += 2 * PB_FIELD_MAX + 16;
		if (!is_arg(a[i].type))
			continue;
		room += 3 * strlen(profev_reader_string(c->r, a[i].name)) + 2 * PB_FIELD_MAX;
		if (profev_event_arg_kind(&a[i]) == PROFEV_AK_STR)
			room += 3 * strlen(profev_reader_string(c->r, (uint32_t)a[i].payload)) + PB_FIELD_MAX;
	}
	return room;
}

/* Inside an InternedData: the argument keys the sequence has not defined
 * in this part. */
static void annames_write(struct conv *c, const struct profev_event *a, uint32_t n)
{
	struct pf *p = c->fmt;
	for (uint32_t i = 0; i < n; i++) {
		if (!is_arg(a[i].type) || !a[i].name || pfset_add(&p->cur->annames, a[i].name) != 1)
			continue;
		undo_push(p, &p->cur->annames, a[i].name);
		interned_string_write(c, ID_DEBUG_ANNOTATION_NAMES, a[i].name);
	}
}

static int annames_new(struct conv *c, const struct profev_event *a, uint32_t n)
{
	struct pf *p = c->fmt;
	for (uint32_t i = 0; i < n; i++)
		if (is_arg(a[i].type) && a[i].name && !pfset_has(&p->cur->annames, a[i].name))
			return 1;
	return 0;
}

/* The arguments as debug annotations with interned names, the flow marks
 * as flow ids (a FLOW_IN ends its flow). */
static void args_write(struct conv *c, const struct profev_event *a, uint32_t n)
{
	struct outbuf *o = &c->out;
	for (uint32_t i = 0; i < n; i++) {
		const struct profev_event *e = &a[i];
		if (e->type == PROFEV_EV_FLOW_OUT || e->type == PROFEV_EV_FLOW_IN) {
			pb_fixed64(o, e->type == PROFEV_EV_FLOW_OUT ? TE_FLOW_IDS : TE_TERMINATING_FLOW_IDS,
				   e->payload);
			continue;
		}
		size_t d = pb_begin(o, TE_DEBUG_ANNOTATIONS);
		if (e->name)
			pb_uint(o, DA_NAME_IID, e->name);
		else
			pb_bytes(o, DA_NAME, "arg", 3);
		switch (profev_event_arg_kind(e)) {
		case PROFEV_AK_INT: pb_int(o, DA_INT_VALUE, (int64_t)e->payload); break;
		case PROFEV_AK_DOUBLE: pb_fixed64(o, DA_DOUBLE_VALUE, e->payload); break;
		case PROFEV_AK_BOOL: pb_uint(o, DA_BOOL_VALUE, e->payload != 0); break;
		case PROFEV_AK_PTR: pb_uint(o, DA_POINTER_VALUE, e->payload); break;
		case PROFEV_AK_STR: {
			const char *v = profev_reader_string(c->r, (uint32_t)e->payload);
			c->st.replaced_bytes += pb_string_utf8(o, DA_STRING_VALUE, v, strlen(v));
			break;
		}
		default: pb_uint(o, DA_UINT_VALUE, e->payload); break;
		}
		pb_end(o, d);
	}
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
	int rc = seq_use(c, t);
	if (!rc)
		rc = outbuf_reserve(o, PACKET_MAX + args_room(c, a, n) + 16 * (size_t)n);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, ts, SEQ_NEEDS_INCREMENTAL_STATE);
	if (annames_new(c, a, n)) {
		size_t id = pb_begin(o, TP_INTERNED_DATA);
		annames_write(c, a, n);
		pb_end(o, id);
	}
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_END);
	track_write(c, track_uuid(t));
	for (uint32_t i = 0; i < n; i++)
		if (a[i].type == PROFEV_EV_ARG)
			args_write(c, &a[i], 1);
	if (edge == CONV_EDGE_UNCLOSED)
		annotation_bool(o, "unclosed");
	else if (edge == CONV_EDGE_CUT)
		annotation_bool(o, "cut");
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

/*
 * An argument or flow mark of t's top zone z. Arguments ride on the zone's
 * end, whose annotations trace_processor adds to the slice. A flow mark
 * must be on the begin, since trace_processor binds a flow to the slice
 * whose begin lists it: right after z's begin (as they come as a rule) the
 * begin is written again with it and what came before it; a later one
 * rides on an instant "flow" inside the zone.
 */
static int pf_arg(struct conv *c, struct conv_thread *t, struct conv_zone *z, const struct profev_event *ev)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	uint32_t n;
	const struct profev_event *a = conv_zone_args(t, z, &n);
	if (ev->type == PROFEV_EV_ARG)
		return 0;
	if (t->kind == CONV_THREAD && p->open_t == t && p->open_depth == t->depth && p->open_p == o->p &&
	    p->open_drained == o->drained && (size_t)(o->p - o->base) >= p->open_len) {
		for (unsigned i = 0; i < p->nundo; i++)
			pfset_del(p->undo[i].set, p->undo[i].id);
		o->p -= p->open_len;
		p->open_seq->last = p->open_last;
		p->open_t = NULL;
		return begin_packet(c, t, z, p->open_edge, a, n);
	}
	int rc = seq_use(c, t);
	if (!rc)
		rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_INSTANT);
	track_write(c, track_uuid(t));
	pb_bytes(o, TE_NAME, "flow", 4);
	args_write(c, ev, 1);
	pb_end(o, te);
	pb_end(o, pk);
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
static int pf_async(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, ev->name);
	uint32_t shared = l && l->name ? l->name : ev->name;
	uint32_t cat = l ? l->category : 0;
	uint64_t uuid = UUID_ASYNC(async_hash(shared, ev->payload));
	int fresh = pfset_add(&p->asyncs, uuid), rc;
	if (fresh < 0)
		return fresh;
	if ((rc = seq_use(c, t)))
		return rc;
	if (fresh) {
		const char *name = profev_reader_string(c->r, ev->name);
		if ((rc = outbuf_reserve(o, PACKET_MAX + 3 * strlen(name))))
			return rc;
		named_track(c, uuid, "", name, 0);
	}
	int newn, newc;
	if ((rc = intern(c, ev->name, cat, 0, &newn, &newc)))
		return rc;
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
	write_interned(c, ev->name, cat, newn, newc);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, ev->type == PROFEV_EV_ASYNC_BEGIN ? TYPE_SLICE_BEGIN : TYPE_SLICE_END);
	pb_uint(o, TE_TRACK_UUID, uuid);
	if (ev->type == PROFEV_EV_ASYNC_BEGIN) {
		if (ev->name)
			pb_uint(o, TE_NAME_IID, ev->name);
		if (cat)
			pb_uint(o, TE_CATEGORY_IIDS, cat);
		if (ev->name && pfset_has(&p->cur->srclocs, ev->name))
			pb_uint(o, TE_SOURCE_LOCATION_IID, ev->name);
		annotation_uint(o, "id", ev->payload);
	}
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}

/* A lock wait: a "wait: NAME" slice on the waiting thread, from the wait
 * to the acquisition, with the lock and the thread that held it. */
static int pf_lock_wait(struct conv *c, struct conv_thread *t, const struct conv_wait *w)
{
	struct outbuf *o = &c->out;
	const char *name = profev_reader_string(c->r, w->name);
	const char *holder = w->holder ? profev_reader_thread_name(c->r, w->holder) : "";
	int rc = seq_use(c, t);
	if (!rc)
		rc = outbuf_reserve(o, 2 * PACKET_MAX + 3 * (strlen(name) + strlen(holder)));
	if (rc)
		return rc;
	size_t pk = packet_begin(c, w->begin, SEQ_NEEDS_INCREMENTAL_STATE);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_BEGIN);
	track_write(c, track_uuid(t));
	size_t n = pb_begin(o, TE_NAME);
	outbuf_lit(o, "wait: ");
	c->st.replaced_bytes += pb_utf8(o, name, strlen(name));
	pb_end(o, n);
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, "lock", 4);
	pb_uint(o, DA_POINTER_VALUE, w->lock);
	pb_end(o, a);
	if (w->holder) {
		annotation_uint(o, "holder_tid", w->holder);
		a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
		pb_bytes(o, DA_NAME, "holder", 6);
		c->st.replaced_bytes += pb_string_utf8(o, DA_STRING_VALUE, holder, strlen(holder));
		pb_end(o, a);
	}
	pb_end(o, te);
	pb_end(o, pk);
	pk = packet_begin(c, w->end, SEQ_NEEDS_INCREMENTAL_STATE);
	te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_END);
	track_write(c, track_uuid(t));
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
static int pf_image(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		    const struct profev_image *img)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	const uint8_t *jpg;
	size_t len;
	(void)t, (void)ev;
	use_shared(p);
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
	size_t pk = packet_begin(c, c->now, SEQ_NEEDS_INCREMENTAL_STATE);
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

/* ---- samples and context switches (pfrec --sample, --sched) ---- */

/* Field numbers of profiling/profile_packet.proto and ftrace/. */
enum {
	TP_FTRACE_EVENTS = 1,
	TP_PERF_SAMPLE = 66,
	PS_CPU = 1,
	PS_PID = 2,
	PS_TID = 3,
	PS_CALLSTACK_IID = 4,
	PS_CPU_MODE = 5,
	PS_KERNEL_RECORDS_LOST = 17,
	MODE_USER = 2,
	FB_CPU = 1,
	FB_EVENT = 2,
	FE_TIMESTAMP = 1,
	FE_PID = 2,
	FE_SCHED_SWITCH = 4,
	SS_PREV_COMM = 1,
	SS_PREV_PID = 2,
	SS_PREV_PRIO = 3,
	SS_PREV_STATE = 4,
	SS_NEXT_COMM = 5,
	SS_NEXT_PID = 6,
	SS_NEXT_PRIO = 7,
	TASK_RUNNING = 0,       /* prev_state of a preempted thread: Runnable */
	TASK_INTERRUPTIBLE = 1, /* of a blocked one: Sleeping */
	PRIO_NORMAL = 120,
};

/*
 * A sample as a PerfSample packet, which trace_processor loads into its
 * perf_sample table with the callstack interned as for zones: the UI
 * draws it per thread and as a flame graph over a selected range.
 */
static int pf_sample(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct pf *p = c->fmt;
	struct outbuf *o = &c->out;
	size_t need = PACKET_MAX;
	use_shared(p);
	int has = stack_prepare(c, ev->stack, &need);
	if (has < 0)
		return has;
	int rc = outbuf_reserve(o, need);
	if (rc)
		return rc;
	size_t pk = packet_begin(c, ev->ts, SEQ_NEEDS_INCREMENTAL_STATE);
	if (p->stack) {
		size_t id = pb_begin(o, TP_INTERNED_DATA);
		stack_write(c);
		pb_end(o, id);
	}
	size_t ps = pb_begin(o, TP_PERF_SAMPLE);
	pb_uint(o, PS_CPU, (uint32_t)ev->payload);
	pb_uint(o, PS_PID, t->pid);
	pb_uint(o, PS_TID, t->tid);
	if (has)
		pb_uint(o, PS_CALLSTACK_IID, ev->stack);
	pb_uint(o, PS_CPU_MODE, MODE_USER);
	pb_end(o, ps);
	pb_end(o, pk);
	return 0;
}

/*
 * Records the kernel dropped from a ring, as traced_perf reports them: a
 * PerfSample with kernel_records_lost and pid 0, which trace_processor
 * counts in its perf_cpu_lost_records stat (the UI's data-loss notice).
 * pfrec's loss events carry no CPU, so they are counted under CPU 0.
 */
static int pf_sample_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	(void)t;
	struct outbuf *o = &c->out;
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	use_shared(c->fmt);
	size_t pk = packet_begin(c, ev->ts, SEQ_NEEDS_INCREMENTAL_STATE);
	size_t ps = pb_begin(o, TP_PERF_SAMPLE);
	pb_uint(o, PS_CPU, 0);
	pb_uint(o, PS_KERNEL_RECORDS_LOST, ev->payload);
	pb_end(o, ps);
	pb_end(o, pk);
	return 0;
}

/*
 * A switch as the kernel's sched_switch tracepoint would have it, with
 * pid 0 (the idle task) standing for whatever else ran on the CPU: the
 * program's threads get slices on the CPU tracks and their thread_state
 * (Running, then Runnable when preempted or Sleeping when blocked).
 */
static int pf_sched(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct outbuf *o = &c->out;
	size_t len = strlen(t->name);
	int rc = outbuf_reserve(o, PACKET_MAX + 3 * len);
	if (rc)
		return rc;
	int out = ev->type == PROFEV_EV_SWITCH_OUT;
	size_t pk = pb_begin(o, TRACE_PACKET);
	size_t fb = pb_begin(o, TP_FTRACE_EVENTS);
	pb_uint(o, FB_CPU, (uint32_t)ev->payload);
	size_t fe = pb_begin(o, FB_EVENT);
	pb_uint(o, FE_TIMESTAMP, ev->ts);
	pb_uint(o, FE_PID, out ? t->tid : 0);
	size_t ss = pb_begin(o, FE_SCHED_SWITCH);
	if (out)
		c->st.replaced_bytes += pb_string_utf8(o, SS_PREV_COMM, t->name, len);
	pb_int(o, SS_PREV_PID, out ? (int32_t)t->tid : 0);
	pb_int(o, SS_PREV_PRIO, PRIO_NORMAL);
	pb_int(o, SS_PREV_STATE, !out || (ev->payload & PROFEV_SWITCH_PREEMPTED) ? TASK_RUNNING
										: TASK_INTERRUPTIBLE);
	if (!out)
		c->st.replaced_bytes += pb_string_utf8(o, SS_NEXT_COMM, t->name, len);
	pb_int(o, SS_NEXT_PID, out ? 0 : (int32_t)t->tid);
	pb_int(o, SS_NEXT_PRIO, PRIO_NORMAL);
	pb_end(o, ss);
	pb_end(o, fe);
	pb_end(o, fb);
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
	.memory = pf_memory,
	.arg = pf_arg,
	.async = pf_async,
	.lock_wait = pf_lock_wait,
	.image = pf_image,
	.sample = pf_sample,
	.sched = pf_sched,
	.sample_lost = pf_sample_lost,
};
