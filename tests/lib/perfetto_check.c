/* A checker of Perfetto protobuf outputs (see perfetto_check.h). */
#include <stdio.h>
#include <string.h>
#include "perfetto_check.h"

struct pbr {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t rd_varint(struct pbr *r)
{
	uint64_t v = 0;
	for (int s = 0; s < 64; s += 7) {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

/* Next field: its number, wire type and value (varint) or sub-reader. */
static int rd_field(struct pbr *r, uint32_t *field, uint64_t *v, struct pbr *sub)
{
	if (r->p >= r->end || r->bad)
		return 0;
	uint64_t tag = rd_varint(r);
	*field = (uint32_t)(tag >> 3);
	switch (tag & 7) {
	case 0: *v = rd_varint(r); break;
	case 1:
		if (r->end - r->p < 8)
			return r->bad = 1, 0;
		memcpy(v, r->p, 8);
		r->p += 8;
		break;
	case 2: {
		uint64_t n = rd_varint(r);
		if ((uint64_t)(r->end - r->p) < n)
			return r->bad = 1, 0;
		sub->p = r->p;
		sub->end = r->p + n;
		sub->bad = 0;
		r->p += n;
		*v = n;
		break;
	}
	default: return r->bad = 1, 0;
	}
	return !r->bad;
}


static int track_index(struct perfetto_seen *s, uint64_t uuid)
{
	for (unsigned i = 0; i < s->ntracks; i++)
		if (s->tracks[i] == uuid)
			return (int)i;
	return -1;
}

#define PERFETTO_FAIL(s, ...) do { (s)->errors++; fprintf(stderr, "perfetto: " __VA_ARGS__); \
	fputc('\n', stderr); } while (0)

static void interned(struct perfetto_seen *s, struct pbr *id)
{
	uint32_t f, f2;
	uint64_t v, v2;
	struct pbr e, x;
	/* Everything a packet defines is defined for the whole packet: pass 0
	 * defines, pass 1 checks what entries refer to. */
	struct pbr all = *id;
	for (int pass = 0; pass < 2; pass++)
	for (*id = all; rd_field(id, &f, &v, &e);) {
		if (f >= 20 || (f > 2 && f < 5) || (f > 7 && f < 16))
			continue;
		uint64_t iid = 0, refs[3][16];
		unsigned nref[3] = { 0, 0, 0 };
		uint64_t pc = 0, map = 0, fn = 0, frames[16];
		unsigned nframes = 0;
		while (rd_field(&e, &f2, &v2, &x)) {
			if (f2 == 1)
				iid = v2;
			/* what the entry refers to: its table and the iid */
			unsigned want = f == 19 && f2 == 2 ? 16 : f == 19 && f2 == 7 ? 17 : f == 6 && f2 == 2 ? 5 :
					f == 6 && f2 == 3 ? 19 : f == 6 && f2 == 5 ? 18 : f == 7 && f2 == 2 ? 6 : 0;
			if (want && v2 && (v2 >= MAXIDS || !s->prof_def[want][v2])) {
				/* defined later in the same packet is fine: check again below */
				unsigned k = want == 6 ? 0 : want == 19 ? 1 : 2;
				if (nref[k] < 16)
					refs[k][nref[k]++] = v2 << 8 | want;
			}
			if (f == 6 && f2 == 4)
				pc = v2;
			if (f == 6 && f2 == 3)
				map = v2;
			if (f == 6 && f2 == 2)
				fn = v2;
			if (f == 7 && f2 == 2 && nframes < 16)
				frames[nframes++] = v2;
		}
		if (!iid || iid >= MAXIDS) {
			if (!pass)
				PERFETTO_FAIL(s, "bad iid %llu in field %u", (unsigned long long)iid, f);
			continue;
		}
		if (!pass) {
			if (f == 1 || f == 2)
				(f == 1 ? s->cat_def : s->name_def)[s->cur][iid] = 1;
			else if (s->cur != 1)
				PERFETTO_FAIL(s, "field %u of InternedData on sequence %u, not 1", f, s->cur);
			else if (s->prof_def[f][iid])
				PERFETTO_FAIL(s, "iid %llu of field %u defined twice in one part", (unsigned long long)iid, f);
			else
				s->prof_def[f][iid] = 1;
			continue;
		}
		if (f == 7 && iid < 64) {
			memcpy(s->stack_frames[iid], frames, nframes * sizeof(*frames));
			s->stack_n[iid] = nframes;
		}
		for (unsigned k = 0; k < 3; k++)
			for (unsigned i = 0; i < nref[k]; i++) {
				uint64_t ref = refs[k][i] >> 8;
				unsigned table = (unsigned)(refs[k][i] & 0xff);
				if (ref >= MAXIDS || !s->prof_def[table][ref])
					PERFETTO_FAIL(s, "field %u entry %llu refers to undefined iid %llu of field %u", f,
						(unsigned long long)iid, (unsigned long long)ref, table);
			}
		if (f == 6) {
			s->frame_pc[iid] = pc;
			s->frame_map[iid] = map;
			s->frame_fn[iid] = fn;
		}
	}
}

static void track_event(struct perfetto_seen *s, struct pbr *te)
{
	uint32_t f, f2;
	uint64_t v, v2, type = 0, uuid = 0, name_iid = 0, cat_iid = 0, stack = 0, bytes = 0, ivalue = 0;
	struct pbr sub, x;
	int has_name = 0, has_double = 0, has_int = 0, has_bytes = 0, interned = 0;
	uuid = s->seq_track[s->cur];
	while (rd_field(te, &f, &v, &sub)) {
		switch (f) {
		case 9: type = v; break;
		case 11: uuid = v; break;
		case 10: name_iid = v; break;
		case 3: cat_iid = v; break;
		case 23: has_name = 1; break;
		case 44: has_double = 1; break;
		case 30: has_int = 1; ivalue = v; break;
		case 56: stack = v; break;
		case 34: interned = 1; break; /* source_location_iid */
		case 4:
			for (int is_bytes = 0; rd_field(&sub, &f2, &v2, &x);) {
				interned |= f2 == 1; /* name_iid */
				if (f2 == 10 && v2 == 5 && !memcmp(x.p, "bytes", 5))
					is_bytes = 1;
				if (f2 == 3 && is_bytes)
					bytes = v2, has_bytes = 1;
				if (f2 == 10 && v2 == 8 && !memcmp(x.p, "unclosed", 8))
					s->unclosed++;
				if (f2 == 10 && v2 == 3 && !memcmp(x.p, "cut", 3))
					s->cut++;
			}
			break;
		}
	}
	if ((interned || name_iid || cat_iid || stack) && !(s->flags & 2))
		PERFETTO_FAIL(s, "packet %u refers to interned data without SEQ_NEEDS_INCREMENTAL_STATE", s->packets);
	int ti = track_index(s, uuid);
	if (ti < 0) {
		PERFETTO_FAIL(s, "event on undescribed track %llu", (unsigned long long)uuid);
		return;
	}
	if (name_iid && (name_iid >= MAXIDS || !s->name_def[s->cur][name_iid]))
		PERFETTO_FAIL(s, "name iid %llu used before its definition", (unsigned long long)name_iid);
	if (cat_iid && (cat_iid >= MAXIDS || !s->cat_def[s->cur][cat_iid]))
		PERFETTO_FAIL(s, "category iid %llu used before its definition", (unsigned long long)cat_iid);
	if (stack) {
		s->stack_refs++;
		if (stack >= MAXIDS || !s->prof_def[7][stack])
			PERFETTO_FAIL(s, "callstack iid %llu used before its definition", (unsigned long long)stack);
	}
	if (uuid == 5ull << 32) {
		s->allocs++;
		s->alloc_bytes += bytes;
		if (!has_bytes)
			PERFETTO_FAIL(s, "allocation without its size");
	}
	if (uuid >> 32 == 4) {
		size_t used = strlen(s->memlog);
		snprintf(s->memlog + used, sizeof(s->memlog) - used, "%s=%llu,",
			 uuid & 0xffffffff ? "pool" : "default", (unsigned long long)ivalue);
		s->memory++;
		if (!has_int)
			PERFETTO_FAIL(s, "memory counter without an integer value");
	}
	switch (type) {
	case 1: s->begins++; s->depth[ti]++; break;
	case 2:
		s->ends++;
		if (--s->depth[ti] < 0)
			PERFETTO_FAIL(s, "slice end without begin on track %llu", (unsigned long long)uuid);
		break;
	case 3:
		s->instants++;
		if (!name_iid && !has_name)
			PERFETTO_FAIL(s, "instant without a name");
		break;
	case 4:
		s->counters++;
		if (!has_double && !has_int)
			PERFETTO_FAIL(s, "counter without a value");
		break;
	default: PERFETTO_FAIL(s, "event type %llu", (unsigned long long)type);
	}
}

static void descriptor(struct perfetto_seen *s, struct pbr *td)
{
	uint32_t f, f2;
	uint64_t v, v2, uuid = 0;
	struct pbr sub, x;
	while (rd_field(td, &f, &v, &sub)) {
		if (f == 1)
			uuid = v;
		if (f == 4)
			while (rd_field(&sub, &f2, &v2, &x))
				if (f2 == 5) {
					size_t used = strlen(s->thread_names);
					snprintf(s->thread_names + used, sizeof(s->thread_names) - used,
						 "%.*s,", (int)v2, (const char *)x.p);
				}
	}
	s->descriptors++;
	if (track_index(s, uuid) < 0 && s->ntracks < MAXTRACKS) {
		s->depth[s->ntracks] = 0;
		s->tracks[s->ntracks++] = uuid;
	}
}

void perfetto_check(const char *buf, size_t len, struct perfetto_seen *s)
{
	struct pbr r = { (const uint8_t *)buf, (const uint8_t *)buf + len, 0 }, pk, sub;
	uint32_t f;
	uint64_t v;
	memset(s, 0, sizeof(*s));
	while (rd_field(&r, &f, &v, &pk)) {
		if (f != 1) {
			PERFETTO_FAIL(s, "Trace field %u", f);
			continue;
		}
		uint64_t seq = 0, flags = 0, track = 0;
		int has_ts = 0, has_defaults = 0;
		struct pbr te = { 0 }, td = { 0 }, id = { 0 }, d, ted;
		uint32_t f2, f3;
		uint64_t v2, v3;
		while (rd_field(&pk, &f, &v, &sub)) {
			switch (f) {
			case 8: has_ts = 1; break;
			case 58: s->clock_back += v == 6; break;
			case 10: seq = v; break;
			case 13: flags = v; break;
			case 11: te = sub; break;
			case 60: td = sub; break;
			case 12: id = sub; break;
			case 59: /* TracePacketDefaults: track_event_defaults.track_uuid */
				has_defaults = 1;
				while (rd_field(&sub, &f2, &v2, &d))
					while (f2 == 11 && rd_field(&d, &f3, &v3, &ted))
						if (f3 == 11)
							track = v3;
				break;
			}
		}
		if (pk.bad)
			PERFETTO_FAIL(s, "malformed packet %u", s->packets);
		if (!seq || seq >= MAXSEQS) {
			PERFETTO_FAIL(s, "packet %u on sequence %llu", s->packets, (unsigned long long)seq);
			s->packets++;
			continue;
		}
		s->cur = (unsigned)seq;
		/* The first packet clears the state, no later one does; after
		 * TracePacketDefaults every packet needs the state. */
		if ((flags & 1) != !s->seq_begun[seq] || flags > 3)
			PERFETTO_FAIL(s, "packet %u on sequence %llu has flags %llu", s->packets, (unsigned long long)seq,
				(unsigned long long)flags);
		if (s->seq_defaults[seq] && !(flags & 2))
			PERFETTO_FAIL(s, "packet %u on sequence %llu lacks SEQ_NEEDS_INCREMENTAL_STATE after its defaults",
				s->packets, (unsigned long long)seq);
		s->flags = flags;
		if (has_defaults && s->seq_begun[seq])
			PERFETTO_FAIL(s, "packet %u sets defaults after its sequence began", s->packets);
		s->nseqs += !s->seq_begun[seq];
		s->seq_begun[seq] = 1;
		if (has_defaults) {
			s->seq_track[seq] = track;
			s->seq_defaults[seq] = 1;
		}
		if (!has_ts && (te.p || td.p || id.p))
			PERFETTO_FAIL(s, "packet %u without timestamp", s->packets);
		if (id.p)
			interned(s, &id);
		if (td.p)
			descriptor(s, &td);
		if (te.p)
			track_event(s, &te);
		s->packets++;
	}
	if (r.bad)
		PERFETTO_FAIL(s, "malformed trace");
	for (unsigned i = 0; i < s->ntracks; i++)
		if (s->depth[i])
			PERFETTO_FAIL(s, "track %llu ends with %d open slices",
				(unsigned long long)s->tracks[i], s->depth[i]);
}
