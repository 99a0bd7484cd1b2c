/*
 * The Perfetto target's packets: its sequences (each track's, started once
 * per part, and sequence 1), the strings interned on each, the general
 * TrackEvent packet and its debug annotations and arguments.
 */
#include <stdlib.h>
#include "conv/perfetto_packets.h"
#include "common/common.h"

void perfetto_seq_init(struct perfetto_seq *s, uint32_t id)
{
	uint8_t b[16], *q = b;
	*q++ = TP_SEQUENCE_ID << 3 | PB_WT_VARINT;
	q = pb_put_varint(q, id);
	*q++ = TP_TRACK_EVENT << 3 | PB_WT_LEN;
	*q++ = 0;
	s->id = id;
	u64_map_init(&s->names, sizeof(uint64_t));
	u64_map_init(&s->cats, sizeof(uint64_t));
	u64_map_init(&s->srclocs, sizeof(uint64_t));
	u64_map_init(&s->arg_names, sizeof(uint64_t));
	s->head = (uint64_t)(q - b) << 56;
	for (unsigned i = 0; i < (unsigned)(q - b); i++)
		s->head |= (uint64_t)b[i] << (8 * i);
}

/*
 * Start sequence s of track t in this part: one packet, without a
 * timestamp, that clears its state, makes t's track its default and
 * CLOCK_SEQ its clock, and starts that clock at the trace's base with a
 * ClockSnapshot (BOOTTIME being the trace clock).
 */
static int seq_start(struct conv *c, const struct conv_thread *t, struct perfetto_seq *s)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	u64_map_clear(&s->names);
	u64_map_clear(&s->cats);
	u64_map_clear(&s->srclocs);
	u64_map_clear(&s->arg_names);
	s->part = p->part;
	s->track = perfetto_track_uuid(t);
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
	s->needs = 2ull << 56 | SEQ_NEEDS_INCREMENTAL_STATE << 8 | TP_SEQUENCE_FLAGS << 3 | PB_WT_VARINT;
	s->last = c->base;
	return 0;
}

/* Write on t's sequence from here on, starting it if this part has not. */
int perfetto_seq_use(struct conv *c, struct conv_thread *t)
{
	struct perfetto *p = c->fmt;
	struct perfetto_seq *s = t->seq < p->nseqs ? p->seqs[t->seq] : NULL;
	if (__builtin_expect(!s, 0)) {
		if (t->seq > UINT32_MAX - SEQ_FIRST ||
		    array_grow((void **)&p->seqs, &p->nseqs, sizeof(*p->seqs), (uint64_t)t->seq + 1) ||
		    !(s = calloc(1, sizeof(*s))))
			return PROFEV_E_NOMEM;
		perfetto_seq_init(s, SEQ_FIRST + t->seq);
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

/* A string the packet being written defines in its sequence's set. */
static void undo_push(struct perfetto *p, struct u64_map *set, uint32_t id)
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
	struct perfetto *p = c->fmt;
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, id);
	if (!l || interned_add(&p->cur->srclocs, id) != 1)
		return l != NULL && u64_map_find(&p->cur->srclocs, id);
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
static int intern_one(struct conv *c, struct u64_map *set, uint32_t id, int *is_new, size_t *need)
{
	*is_new = 0;
	if (!id)
		return 0;
	int r = interned_add(set, id);
	if (r <= 0)
		return r;
	undo_push(c->fmt, set, id);
	*is_new = 1;
	*need += 3 * strlen(profev_reader_string(c->r, id)) + 2 * PB_FIELD_MAX;
	return 0;
}

/* Define in this packet the name and category strings it uses for the first
 * time on its sequence in the part. Reserves the room the whole packet needs. */
int perfetto_intern(struct conv *c, uint32_t name, uint32_t cat, size_t extra, int *newn, int *newc)
{
	struct perfetto *p = c->fmt;
	size_t need = PACKET_MAX + extra;
	*newn = *newc = 0;
	int rc = intern_one(c, &p->cur->names, name, newn, &need);
	if (!rc)
		rc = intern_one(c, &p->cur->cats, cat, newc, &need);
	if (!rc && *newn)
		need += srcloc_room(c, name);
	return rc ? rc : outbuf_reserve(&c->out, need);
}


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

/* Names, categories and (when perfetto_stack_prepare() made one ready, on sequence
 * 1) a callstack new to the part, in the packet's one InternedData. */
void perfetto_write_interned(struct conv *c, uint32_t name, uint32_t cat, int newn, int newc)
{
	struct outbuf *o = &c->out;
	struct perfetto *p = c->fmt;
	if (!newn && !newc && !p->stack && !(p->nkey_args && perfetto_arg_names_new(c, p->key_args, p->nkey_args)))
		return;
	size_t id = pb_begin(o, TP_INTERNED_DATA);
	if (p->nkey_args)
		perfetto_arg_names_write(c, p->key_args, p->nkey_args);
	if (newc)
		interned_string_write(c, ID_EVENT_CATEGORIES, cat);
	if (newn) {
		interned_string_write(c, ID_EVENT_NAMES, name);
		srcloc_write(c, name);
	}
	if (p->stack)
		perfetto_stack_write(c);
	pb_end(o, id);
}



void perfetto_annotation_bool(struct outbuf *o, const char *name)
{
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, name, strlen(name));
	pb_uint(o, DA_BOOL_VALUE, 1);
	pb_end(o, a);
}

void perfetto_annotation_uint(struct outbuf *o, const char *name, uint64_t v)
{
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, name, strlen(name));
	pb_uint(o, DA_UINT_VALUE, v);
	pb_end(o, a);
}

/* Needs room for PB_FIELD_MAX * 3 + strlen(name) + 3 * len. */
void perfetto_annotation_string(struct conv *c, const char *name, const char *s, size_t len)
{
	struct outbuf *o = &c->out;
	size_t a = pb_begin(o, TE_DEBUG_ANNOTATIONS);
	pb_bytes(o, DA_NAME, name, strlen(name));
	c->st.replaced_bytes += pb_string_utf8(o, DA_STRING_VALUE, s, len);
	pb_end(o, a);
}


/* ---- rich events ---- */

static inline int is_arg(uint8_t type)
{
	return type == PROFEV_EV_ARG || type == PROFEV_EV_POINT_ARG;
}

/* Room for the interned names and values of n arguments. */
size_t perfetto_args_room(struct conv *c, const struct profev_event *a, uint32_t n)
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
void perfetto_arg_names_write(struct conv *c, const struct profev_event *a, uint32_t n)
{
	struct perfetto *p = c->fmt;
	for (uint32_t i = 0; i < n; i++) {
		if (!is_arg(a[i].type) || !a[i].name || interned_add(&p->cur->arg_names, a[i].name) != 1)
			continue;
		undo_push(p, &p->cur->arg_names, a[i].name);
		interned_string_write(c, ID_DEBUG_ANNOTATION_NAMES, a[i].name);
	}
}

int perfetto_arg_names_new(struct conv *c, const struct profev_event *a, uint32_t n)
{
	struct perfetto *p = c->fmt;
	for (uint32_t i = 0; i < n; i++)
		if (is_arg(a[i].type) && a[i].name && !u64_map_find(&p->cur->arg_names, a[i].name))
			return 1;
	return 0;
}

/* The arguments as debug annotations with interned names, the flow marks
 * as flow ids (a FLOW_IN ends its flow). */
void perfetto_args_write(struct conv *c, const struct profev_event *a, uint32_t n)
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


int perfetto_te_open(struct conv *c, struct te_marks *m, uint64_t ts, unsigned type, uint64_t track,
		   uint32_t name, uint32_t cat, size_t extra)
{
	struct outbuf *o = &c->out;
	int newn, newc, rc = perfetto_intern(c, name, cat, extra, &newn, &newc);
	if (rc)
		return rc;
	m->pk = perfetto_packet_begin(c, ts, SEQ_NEEDS_INCREMENTAL_STATE);
	perfetto_write_interned(c, name, cat, newn, newc);
	m->te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, type);
	perfetto_track_write(c, track);
	if (name)
		pb_uint(o, TE_NAME_IID, name);
	if (cat)
		pb_uint(o, TE_CATEGORY_IIDS, cat);
	if (name && u64_map_find(&((struct perfetto *)c->fmt)->cur->srclocs, name))
		pb_uint(o, TE_SOURCE_LOCATION_IID, name);
	return 0;
}

