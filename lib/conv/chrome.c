/*
 * Chrome target: Trace Event Format JSON, as chrome://tracing, Perfetto UI
 * and speedscope read it. A zone is one X (complete) event, about half the
 * bytes of a B/E pair, unless an X event would not nest exactly (see
 * "Exact nesting"); PROFEV_CONV_CHROME_BE writes the pairs always. Timestamps are microseconds from the trace's start
 * with the nanoseconds kept as decimals. Frame sets appear as threads of
 * their own, with TIDs above any Linux TID.
 *
 * In each event "ph", "ts", "dur", "pid" and "tid" come before any string:
 * some trace_processor versions find "ts" by scanning an event's keys in
 * order with a string reader that gives up on \u escapes. Metadata events
 * carry "ts":0 for the same reader.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/conv_internal.h"
#include "trace/trace_internal.h"
#include "common/json_write.h"

#define EVENT_MAX 256           /* an event's fixed text, strings apart */
#define FRAMES_TID 1000000000u  /* Linux TIDs stay below 2^22 */
#define TITLE_MAX 96
#define ARENA_SLACK 32          /* readable bytes kept past the arena's end */

/* A string's quoted JSON form, kept in the arena: names repeat on every
 * event, so each is escaped and checked for UTF-8 once. */
struct jname {
	uint32_t off, len; /* len 0: not made yet */
};

/* A zone's ,"name":N,"cat":K in the arena, made from its name and the
 * first category it came with: most of an X event, in one copy. */
struct zfrag {
	uint32_t off, len; /* len 0: not made yet */
	uint32_t cat;      /* the category it holds */
};
#define FRAG_COPY 64       /* fragments this short are copied as 64 bytes */

/*
 * Exact nesting. A viewer ends an X event at ts + dur, and one that adds
 * them as doubles (speedscope does, after subtracting the thread's first
 * ts) may end it an ulp before or after another time that is the same ns:
 * a child that ends with its parent (two scope exits in the same ns), a
 * zone that ends where the next begins. A zone whose end is the time of
 * another zone's begin or end on its thread is therefore written as a B
 * and an E event, whose times are the same text as the other's and so the
 * same double. The two forms cannot mix among zones that begin together:
 * at one ts trace_processor takes X events (longest first) before B
 * events, speedscope B events before X ones. So a zone that begins with
 * its parent is a member of its parent's chain, and a chain (its head, the
 * outermost, and the members under it) takes one form, decided when the
 * head has ended and the thread's next zone boundary shows whether that end
 * coincides: until then the ended zones wait on the thread's deferred
 * stack, innermost first. B events are written outermost first and E
 * events innermost first, the order in which equal times must be read.
 */
struct zrec {
	struct conv_zone z;
	uint64_t end;
	int edge;
	int force;  /* its chain must be B and E events */
	char *args; /* its ,"args":{...} (malloc'ed), NULL: none but the edge's */
};

struct chthr {
	struct conv_thread *t;
	struct zrec *d;       /* the deferred stack */
	uint32_t n, cap;
	uint32_t awaiting;    /* 1 + base of the ended chain awaiting the next boundary; 0: none */
	uint32_t just;        /* 1 + index of the zone that ended last, until the next boundary; 0: none */
	uint64_t last_end;    /* 1 + ts of the thread's last zone end; 0: none in the part */
};

struct chrome {
	int first;  /* no event written in this part yet */
	struct conv_shots shots;  /* frame images to JPEG */
	struct conv_idset stacks; /* callstacks the part's events refer to */
	struct jname *names; /* by string id */
	uint32_t nnames;
	char *arena;
	size_t alen, acap;
	struct json_us_cache ts; /* the digits of the last "ts" */
	struct zfrag *frags; /* by zone name id */
	uint32_t nfrags;
	struct chthr *thr;   /* by track's creation order */
	uint32_t nthr;
	char *args;          /* a zone's ,"args":{...} being made */
	size_t args_cap;
	uint64_t *flows;     /* flow ids started, 0 = empty slot */
	uint64_t fmask, nflows;
};

/* An outbuf over the arena's free room, of at least need bytes. */
static int arena_room(struct chrome *ch, size_t need, struct outbuf *tmp)
{
	need += ARENA_SLACK;
	if (ch->alen + need > ch->acap) {
		size_t cap = ch->acap ? ch->acap : 4096;
		while (cap < ch->alen + need)
			cap *= 2;
		char *a = realloc(ch->arena, cap);
		if (!a || cap > UINT32_MAX)
			return PROFEV_E_NOMEM;
		ch->arena = a;
		ch->acap = cap;
	}
	memset(tmp, 0, sizeof(*tmp));
	tmp->base = tmp->p = (uint8_t *)ch->arena + ch->alen;
	tmp->end = (uint8_t *)ch->arena + ch->acap;
	return 0;
}

static int jname_make(struct conv *c, uint32_t id)
{
	struct chrome *ch = c->fmt;
	if (array_grow((void **)&ch->names, &ch->nnames, sizeof(*ch->names), (uint64_t)id + 1))
		return PROFEV_E_NOMEM;
	const char *s = profev_reader_string(c->r, id);
	size_t len = strlen(s);
	struct outbuf tmp;
	int rc = arena_room(ch, JSON_STRING_MAX(len), &tmp);
	if (rc)
		return rc;
	c->st.replaced_bytes += json_string(&tmp, s, len);
	ch->names[id].off = (uint32_t)ch->alen;
	ch->names[id].len = (uint32_t)(tmp.p - tmp.base);
	ch->alen += ch->names[id].len;
	return 0;
}

/* The quoted JSON string of string id. @return 0 or PROFEV_E_NOMEM. */
static inline int jname(struct conv *c, uint32_t id, struct jname *out)
{
	struct chrome *ch = c->fmt;
	if (__builtin_expect(id >= ch->nnames || !ch->names[id].len, 0)) {
		int rc = jname_make(c, id);
		if (rc)
			return rc;
	}
	*out = ch->names[id];
	return 0;
}

static inline void put_jname(struct conv *c, const struct jname *j)
{
	struct chrome *ch = c->fmt;
	/* Short names (most) are copied as a fixed 32 bytes: the arena keeps
	 * ARENA_SLACK bytes past its end and events reserve EVENT_MAX. */
	if (__builtin_expect(j->len <= ARENA_SLACK, 1)) {
		memcpy(c->out.p, ch->arena + j->off, ARENA_SLACK);
		c->out.p += j->len;
	} else {
		outbuf_put(&c->out, ch->arena + j->off, j->len);
	}
}

static int ch_init(struct conv *c)
{
	struct chrome *ch = calloc(1, sizeof(struct chrome));
	if (!ch)
		return PROFEV_E_NOMEM;
	ch->ts.hi = UINT64_MAX;
	c->fmt = ch;
	return 0;
}

static void ch_fini(struct conv *c)
{
	struct chrome *ch = c->fmt;
	if (!ch)
		return;
	free(ch->names);
	free(ch->frags);
	free(ch->arena);
	for (uint32_t i = 0; i < ch->nthr; i++) {
		for (uint32_t k = 0; k < ch->thr[i].n; k++)
			free(ch->thr[i].d[k].args);
		free(ch->thr[i].d);
	}
	free(ch->thr);
	free(ch->args);
	free(ch->flows);
	conv_idset_free(&ch->stacks);
	conv_shots_free(&ch->shots);
	free(ch);
}

static uint32_t tid_of(const struct conv_thread *t)
{
	return t->kind == CONV_FRAMES ? FRAMES_TID + t->seq : t->tid;
}

/* Reserve room and open an event record of phase ph. */
static int event_begin(struct conv *c, size_t strings, char ph)
{
	struct chrome *ch = c->fmt;
	int rc = outbuf_reserve(&c->out, EVENT_MAX + strings);
	if (rc)
		return rc;
	/* ",\n{\"ph\":\"X\"" as one fixed copy of constant bytes, the phase
	 * patched in; the first event drops the comma. (A head made on the
	 * stack and copied out would stall on store forwarding.) */
	uint8_t *p = c->out.p;
	memcpy(p, ",\n{\"ph\":\"X\"", 11);
	p[9] = (uint8_t)ph;
	c->out.p = p + 11;
	if (__builtin_expect(ch->first, 0)) {
		memmove(p, p + 1, 10);
		c->out.p = p + 10;
		ch->first = 0;
	}
	return 0;
}

/* Keys are literals, so their copies have a fixed size. */
#define field_str(c, key, s, n) do { outbuf_lit(&(c)->out, key); \
	(c)->st.replaced_bytes += json_string(&(c)->out, (s), (n)); } while (0)
#define field_ts(c, key, ts) do { outbuf_lit(&(c)->out, key); put_ts((c), (ts)); } while (0)

static void put_ts(struct conv *c, uint64_t ts)
{
	struct chrome *ch = c->fmt;
	if (__builtin_expect(ts < c->base, 0)) {
		outbuf_byte(&c->out, '-');
		json_us(&c->out, c->base - ts);
	} else {
		json_us_cached(&c->out, &ch->ts, ts - c->base);
	}
}

static void field_ids(struct conv *c, uint32_t pid, uint32_t tid)
{
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, pid);
	outbuf_lit(&c->out, ",\"tid\":");
	json_u64(&c->out, tid);
}

/* ,"pid":P,"tid":T of a track, made once into the arena: t->aux holds its
 * offset << 8 | length. It is at most 34 bytes and copied as a fixed
 * IDS_MAX: arena_room() made that much room for it and events reserve
 * EVENT_MAX. (A copy of variable size compiles to rep movs, slow for a few
 * bytes.) */
#define IDS_MAX 48
static __attribute__((noinline)) int ids_make(struct conv *c, struct conv_thread *t)
{
	struct chrome *ch = c->fmt;
	struct outbuf tmp;
	int rc = arena_room(ch, IDS_MAX, &tmp);
	if (rc)
		return rc;
	outbuf_lit(&tmp, ",\"pid\":");
	json_u64(&tmp, t->pid);
	outbuf_lit(&tmp, ",\"tid\":");
	json_u64(&tmp, tid_of(t));
	size_t len = (size_t)(tmp.p - tmp.base);
	t->aux = (uint64_t)ch->alen << 8 | len;
	ch->alen += len;
	return 0;
}

static inline int put_ids(struct conv *c, struct conv_thread *t)
{
	struct chrome *ch = c->fmt;
	int rc;
	if (__builtin_expect(!t->aux, 0) && (rc = ids_make(c, t)))
		return rc;
	memcpy(c->out.p, ch->arena + (t->aux >> 8), IDS_MAX);
	c->out.p += t->aux & 0xff;
	return 0;
}

static void event_end(struct conv *c)
{
	outbuf_byte(&c->out, '}');
}

static int metadata(struct conv *c, const char *what, uint32_t pid, uint32_t tid, const char *name,
		    const char *prefix)
{
	size_t n = strlen(name), pn = strlen(prefix);
	int rc = event_begin(c, JSON_STRING_MAX(n + pn), 'M');
	if (rc)
		return rc;
	outbuf_lit(&c->out, ",\"ts\":0");
	field_ids(c, pid, tid);
	outbuf_lit(&c->out, ",\"name\":\"");
	outbuf_put(&c->out, what, strlen(what));
	outbuf_byte(&c->out, '"');
	outbuf_lit(&c->out, ",\"args\":{\"name\":\"");
	outbuf_put(&c->out, prefix, pn); /* plain ASCII */
	c->st.replaced_bytes += json_chars(&c->out, name, n);
	outbuf_byte(&c->out, '"');
	outbuf_byte(&c->out, '}');
	event_end(c);
	return 0;
}

static int ch_part_begin(struct conv *c)
{
	struct chrome *ch = c->fmt;
	int rc = outbuf_reserve(&c->out, 64);
	if (rc)
		return rc;
	outbuf_lit(&c->out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	ch->first = 1;
	conv_idset_clear(&ch->stacks);
	if (c->program)
		return metadata(c, "process_name", c->pid, 0, basename_of(c->program), "");
	return 0;
}

/*
 * Callstacks. Each one the part uses becomes a chain of stackFrames
 * entries "S.0" (its outermost function) to "S.K" (its innermost, the
 * event's "sf"), S its callstack id: an address symbolized with inlined
 * functions gives one entry per function. Chains are not shared between
 * callstacks, so an entry's parents are exactly its callstack.
 */

/* Functions of a frame: its inline chain, or 1. */
static unsigned frame_functions(const struct conv *c, const struct profev_frame *f,
				const struct profev_symframe **sym)
{
	unsigned n = 0;
	*sym = f->flags & PROFEV_FRAMEF_NOMODULE ? NULL : conv_symbol(c, f->module, f->offset, &n);
	if (!*sym)
		n = 0;
	return n ? n : 1;
}

/* The event's ,"sf":"S.K" for callstack id; nothing for none. Needs 40 bytes. */
static int put_sf(struct conv *c, uint32_t id)
{
	struct chrome *ch = c->fmt;
	unsigned n, k = 0;
	const struct profev_frame *f = conv_stack(c, id, &n);
	if (!f)
		return 0;
	int rc = conv_idset_add(&ch->stacks, id);
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < n; i++) {
		const struct profev_symframe *sym;
		k += frame_functions(c, &f[i], &sym);
	}
	char buf[40];
	int len = snprintf(buf, sizeof(buf), ",\"sf\":\"%" PRIu32 ".%u\"", id, k - 1);
	outbuf_put(&c->out, buf, (size_t)len);
	return 0;
}

static int stack_frames(struct conv *c, uint32_t id)
{
	unsigned n, k = 0;
	const struct profev_frame *f = conv_stack(c, id, &n);
	for (unsigned i = n; i-- > 0;) {
		const struct profev_symframe *sym;
		unsigned nf = frame_functions(c, &f[i], &sym);
		const struct profev_module *m =
			f[i].flags & PROFEV_FRAMEF_NOMODULE ? NULL : profev_reader_module(c->r, f[i].module);
		const char *mod = m ? basename_of(m->path) : "";
		for (unsigned j = nf; j-- > 0; k++) {
			const char *fn = sym && sym[j].function ? sym[j].function : NULL;
			size_t room = 128 + JSON_STRING_MAX(strlen(mod)) * 2 + (fn ? JSON_STRING_MAX(strlen(fn)) : 0);
			int rc = outbuf_reserve(&c->out, room);
			if (rc)
				return rc;
			char buf[64];
			int len = snprintf(buf, sizeof(buf), "%s\n\"%" PRIu32 ".%u\":{\"name\":", k ? "," : "", id, k);
			outbuf_put(&c->out, buf, (size_t)len);
			if (fn) {
				c->st.replaced_bytes += json_string(&c->out, fn, strlen(fn));
			} else {
				/* unsymbolized: where it is, as module+0xoffset */
				outbuf_byte(&c->out, '"');
				c->st.replaced_bytes += json_chars(&c->out, mod, strlen(mod));
				len = snprintf(buf, sizeof(buf), "%s0x%" PRIx64 "\"", m ? "+" : "", f[i].offset);
				outbuf_put(&c->out, buf, (size_t)len);
			}
			if (m) {
				outbuf_lit(&c->out, ",\"category\":");
				c->st.replaced_bytes += json_string(&c->out, mod, strlen(mod));
			}
			if (k) {
				len = snprintf(buf, sizeof(buf), ",\"parent\":\"%" PRIu32 ".%u\"", id, k - 1);
				outbuf_put(&c->out, buf, (size_t)len);
			}
			outbuf_byte(&c->out, '}');
		}
	}
	return 0;
}

static int thr_flush(struct conv *c, struct chthr *h);

static int ch_part_end(struct conv *c)
{
	struct chrome *ch = c->fmt;
	int rc;
	for (uint32_t i = 0; i < ch->nthr; i++)
		if ((rc = thr_flush(c, &ch->thr[i])))
			return rc;
	if ((rc = outbuf_reserve(&c->out, 32)))
		return rc;
	outbuf_lit(&c->out, "\n]");
	int first = 1;
	for (size_t i = 0; i < ch->stacks.nw; i++) {
		for (uint64_t w = ch->stacks.w[i]; w; w &= w - 1) {
			if ((rc = outbuf_reserve(&c->out, 32)))
				return rc;
			if (first)
				outbuf_lit(&c->out, ",\"stackFrames\":{");
			else
				outbuf_byte(&c->out, ',');
			first = 0;
			if ((rc = stack_frames(c, (uint32_t)(i * 64 + (unsigned)__builtin_ctzll(w)))))
				return rc;
		}
	}
	if ((rc = outbuf_reserve(&c->out, 8)))
		return rc;
	if (!first)
		outbuf_lit(&c->out, "\n}");
	outbuf_lit(&c->out, "}\n");
	return 0;
}

static int ch_thread(struct conv *c, struct conv_thread *t)
{
	if (t->kind == CONV_FRAMES)
		return metadata(c, "thread_name", t->pid, tid_of(t), t->name, t->name[0] ? "Frames: " : "Frames");
	if (!t->name[0])
		return 0;
	return metadata(c, "thread_name", t->pid, t->tid, t->name, "");
}

/* Room for a zone's name and category, made ready in *n and *k. */
static int zone_room(struct conv *c, const struct conv_thread *t, const struct conv_zone *z,
		     struct jname *n, struct jname *k, size_t *room)
{
	int rc;
	*room = 48;
	if (t->kind == CONV_FRAMES)
		return 0;
	if ((rc = jname(c, z->name, n)))
		return rc;
	if (z->cat && (rc = jname(c, z->cat, k)))
		return rc;
	*room = n->len + (z->cat ? k->len : 0) + (z->stack ? 40 : 0);
	return 0;
}

/* Name and category of a zone, or the frame's title. */
static void zone_names(struct conv *c, const struct conv_thread *t, const struct conv_zone *z,
		       const struct jname *n, const struct jname *k)
{
	if (t->kind == CONV_FRAMES) {
		char title[CONV_FRAME_TITLE];
		size_t len = conv_frame_title(title, z->frame);
		outbuf_lit(&c->out, ",\"name\":\"");
		outbuf_put(&c->out, title, len); /* plain ASCII */
		outbuf_byte(&c->out, '"');
		return;
	}
	outbuf_lit(&c->out, ",\"name\":");
	put_jname(c, n);
	if (z->cat) {
		outbuf_lit(&c->out, ",\"cat\":");
		put_jname(c, k);
	}
}

/* The args that mark a zone pfconv ended (a cut, a thread that never
 * closed it), or "". */
static const char *edge_args(int edge)
{
	return edge == CONV_EDGE_UNCLOSED ? ",\"args\":{\"unclosed\":true}"
	       : edge == CONV_EDGE_CUT    ? ",\"args\":{\"cut\":true}"
					  : "";
}

#define CONTINUED_ARGS ",\"args\":{\"continued\":true}"

static struct chthr *thr_of(struct conv *c, struct conv_thread *t)
{
	struct chrome *ch = c->fmt;
	if (__builtin_expect(t->seq >= ch->nthr, 0) &&
	    array_grow((void **)&ch->thr, &ch->nthr, sizeof(*ch->thr), (uint64_t)t->seq + 1))
		return NULL;
	struct chthr *h = &ch->thr[t->seq];
	h->t = t;
	return h;
}

/*
 * z->aux in Chrome output: AUX_B_WRITTEN, its B event is written and its
 * end is an E; AUX_MEMBER, it began with its parent and takes the form of
 * its chain (below); else it heads a chain, and holds the size of its
 * thread's deferred stack when it began, << AUX_BASE_SHIFT.
 */
#define AUX_B_WRITTEN 1u
#define AUX_MEMBER 2u
#define AUX_BASE_SHIFT 2

/*
 * Zones as B and E events: on request, and always on frame tracks. Frame N
 * ends where frame N+1 begins, and a viewer that adds an X event's ts and
 * dur as doubles (speedscope does) may end it a hair after the next one
 * began, which breaks their nesting; an E event's ts is the same text as
 * the next B's.
 */
static int begin_end(const struct conv *c, const struct conv_thread *t)
{
	return (c->opts->flags & PROFEV_CONV_CHROME_BE) || t->kind == CONV_FRAMES;
}

/* A zone's B, E or (ending at end) X event at ts, with its names (viewers
 * pair an E with its B by them), its callstack and args. */
static int zone_event(struct conv *c, struct conv_thread *t, struct conv_zone *z, char ph,
		      uint64_t ts, uint64_t end, const char *args)
{
	struct jname n = { 0, 0 }, k = { 0, 0 }; /* unset on a frame track */
	size_t room, alen = strlen(args);
	int rc = zone_room(c, t, z, &n, &k, &room);
	if (rc || (rc = event_begin(c, room + alen, ph)))
		return rc;
	field_ts(c, ",\"ts\":", ts);
	if (ph == 'X') {
		outbuf_lit(&c->out, ",\"dur\":");
		json_us(&c->out, end - ts);
	}
	if ((rc = put_ids(c, t)))
		return rc;
	zone_names(c, t, z, &n, &k);
	if (ph != 'E' && t->kind == CONV_THREAD && z->stack && (rc = put_sf(c, (uint32_t)z->stack)))
		return rc;
	outbuf_put(&c->out, args, alen);
	event_end(c);
	return 0;
}

static int frag_make(struct conv *c, uint32_t name, uint32_t cat)
{
	struct chrome *ch = c->fmt;
	if (array_grow((void **)&ch->frags, &ch->nfrags, sizeof(*ch->frags), (uint64_t)name + 1))
		return PROFEV_E_NOMEM;
	struct jname n, k = { 0, 0 };
	int rc = jname(c, name, &n);
	if (!rc && cat)
		rc = jname(c, cat, &k);
	struct outbuf tmp;
	if (rc || (rc = arena_room(ch, 16 + n.len + k.len + FRAG_COPY, &tmp)))
		return rc;
	outbuf_lit(&tmp, ",\"name\":");
	outbuf_put(&tmp, ch->arena + n.off, n.len);
	if (cat) {
		outbuf_lit(&tmp, ",\"cat\":");
		outbuf_put(&tmp, ch->arena + k.off, k.len);
	}
	uint32_t len = (uint32_t)(tmp.p - tmp.base);
	ch->frags[name] = (struct zfrag){ (uint32_t)ch->alen, len, cat };
	ch->alen += len;
	return 0;
}

/*
 * The X event of a zone that began and ended in the output as it did in
 * the trace, without a callstack: most of them. Its text is a fixed head,
 * two numbers and two copies (the track's ids, the zone's names).
 * @return 1 if written, 0 if the general path must write it, <0 on error.
 */
static inline int zone_x_fast(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts)
{
	struct chrome *ch = c->fmt;
	if (__builtin_expect(z->name >= ch->nfrags || !ch->frags[z->name].len, 0)) {
		int rc = frag_make(c, z->name, z->cat);
		if (rc)
			return rc;
	}
	const struct zfrag *f = &ch->frags[z->name];
	if (__builtin_expect(f->cat != z->cat, 0))
		return 0;
	int rc = outbuf_reserve(&c->out, EVENT_MAX + f->len);
	if (rc)
		return rc;
	uint8_t *p = c->out.p;
	memcpy(p, ",\n{\"ph\":\"X\",\"ts\":", 17);
	c->out.p = p + 17;
	if (__builtin_expect(ch->first, 0)) {
		memmove(p, p + 1, 16);
		c->out.p = p + 16;
		ch->first = 0;
	}
	put_ts(c, z->shown);
	outbuf_lit(&c->out, ",\"dur\":");
	json_us(&c->out, ts - z->shown);
	if ((rc = put_ids(c, t)))
		return rc;
	if (__builtin_expect(f->len <= FRAG_COPY, 1)) {
		memcpy(c->out.p, ch->arena + f->off, FRAG_COPY);
		c->out.p += f->len;
	} else {
		outbuf_put(&c->out, ch->arena + f->off, f->len);
	}
	event_end(c);
	return 1;
}

/* A zone of a chain in the X form. */
static int x_event(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t end)
{
	if (__builtin_expect(!z->stack, 1)) {
		int rc = zone_x_fast(c, t, z, end);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	return zone_event(c, t, z, 'X', z->shown, end, "");
}

/* A deferred zone's args (its own and its edge's). */
static const char *zrec_args(const struct zrec *r)
{
	return r->args ? r->args : edge_args(r->edge);
}

/* Write the chain d[0..n), innermost first, its head last. */
static int chain_write(struct conv *c, struct conv_thread *t, struct zrec *d, unsigned n)
{
	int rc = 0, force = 0;
	for (unsigned i = 0; i < n; i++)
		force |= d[i].force;
	if (__builtin_expect(!force, 1)) {
		for (unsigned i = 0; i < n && !rc; i++)
			rc = d[i].args ? zone_event(c, t, &d[i].z, 'X', d[i].z.shown, d[i].end, d[i].args)
				       : x_event(c, t, &d[i].z, d[i].end);
	} else {
		/* Zones that pfconv ended (a cut, a thread that never closed
		 * them) carry the same args on B and E, so viewers pair them
		 * exactly. */
		for (unsigned i = n; i-- > 0 && !rc;)
			rc = zone_event(c, t, &d[i].z, 'B', d[i].z.shown, 0, zrec_args(&d[i]));
		for (unsigned i = 0; i < n && !rc; i++)
			rc = zone_event(c, t, &d[i].z, 'E', d[i].end, 0, zrec_args(&d[i]));
	}
	for (unsigned i = 0; i < n; i++) {
		free(d[i].args);
		d[i].args = NULL;
	}
	return rc;
}

/* A zone begins or ends on h's thread at ts: the zone that ended last
 * coincides with it if ts is its end, and the chain awaiting this boundary
 * is written. */
static inline int boundary(struct conv *c, struct chthr *h, uint64_t ts)
{
	if (h->just) {
		if (h->d[h->just - 1].end == ts)
			h->d[h->just - 1].force = 1;
		h->just = 0;
	}
	if (!h->awaiting)
		return 0;
	uint32_t base = h->awaiting - 1;
	h->awaiting = 0;
	int rc = chain_write(c, h->t, h->d + base, h->n - base);
	h->n = base;
	return rc;
}

/* Write what h's thread still defers: at the end of a part. */
static int thr_flush(struct conv *c, struct chthr *h)
{
	int rc = 0;
	if (h->awaiting)
		rc = boundary(c, h, UINT64_MAX);
	/* Members whose head did not end (never the case: the read loop ends
	 * every zone in the part): one B/E chain. */
	if (!rc && h->n) {
		for (uint32_t i = 0; i < h->n; i++)
			h->d[i].force = 1;
		rc = chain_write(c, h->t, h->d, h->n);
	}
	h->n = h->just = h->awaiting = 0;
	h->last_end = 0;
	return rc;
}

static int ch_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	z->aux = 0;
	if (begin_end(c, t)) {
		z->aux = AUX_B_WRITTEN;
		return zone_event(c, t, z, 'B', z->shown, 0, edge == CONV_EDGE_CUT ? CONTINUED_ARGS : "");
	}
	struct chthr *h = thr_of(c, t);
	if (!h)
		return PROFEV_E_NOMEM;
	int rc = boundary(c, h, z->shown);
	if (rc)
		return rc;
	const struct conv_zone *p = edge == CONV_EDGE_NORMAL && t->depth > 1 && z == &t->stack[t->depth - 1]
				    ? z - 1 : NULL;
	/* Zones that begin at a cut (at the window's start, or reopened in
	 * the next part of a split) all begin at the same time: their B
	 * events, written now, keep the outer one first, and so do those of
	 * zones that begin with a parent whose B is written. */
	if (edge == CONV_EDGE_CUT || (p && p->shown == z->shown && (p->aux & AUX_B_WRITTEN))) {
		z->aux = AUX_B_WRITTEN;
		return zone_event(c, t, z, 'B', z->shown, 0, edge == CONV_EDGE_CUT ? CONTINUED_ARGS : "");
	}
	z->aux = p && p->shown == z->shown ? AUX_MEMBER : (uint64_t)h->n << AUX_BASE_SHIFT;
	return 0;
}

static int zone_end_rich(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge, char **args);
static int zone_end_form(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge, char *args);

static int ch_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
		       int edge)
{
	char *args = NULL;
	uint32_t nargs;
	conv_zone_args(t, z, &nargs);
	if (__builtin_expect(nargs != 0, 0)) {
		int rc = zone_end_rich(c, t, z, ts, edge, &args);
		if (rc || !args)
			return rc;
	}
	int rc = zone_end_form(c, t, z, ts, edge, args);
	if (args)
		free(args);
	return rc;
}

/* args: the zone's own (malloc'ed, taken if deferred), or NULL. */
static int zone_end_form(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge, char *args)
{
	if (begin_end(c, t))
		return zone_event(c, t, z, 'E', ts, 0, args ? args : edge_args(edge));
	struct chthr *h = thr_of(c, t);
	if (!h)
		return PROFEV_E_NOMEM;
	int rc = boundary(c, h, ts);
	if (rc)
		return rc;
	int coincides = h->last_end == ts + 1; /* a child ended with it */
	h->last_end = ts + 1;
	if (z->aux & AUX_B_WRITTEN)
		return zone_event(c, t, z, 'E', ts, 0, args ? args : edge_args(edge));
	if (__builtin_expect(h->n == h->cap, 0) &&
	    array_grow((void **)&h->d, &h->cap, sizeof(*h->d), (uint64_t)h->n + 1))
		return PROFEV_E_NOMEM;
	struct zrec *r = &h->d[h->n++];
	r->z = *z;
	r->end = ts;
	r->edge = edge;
	r->force = coincides || edge != CONV_EDGE_NORMAL;
	r->args = NULL;
	if (args && !(r->args = strdup(args)))
		return PROFEV_E_NOMEM;
	h->just = h->n;
	if (!(z->aux & AUX_MEMBER))
		h->awaiting = (uint32_t)(z->aux >> AUX_BASE_SHIFT) + 1;
	return 0;
}

static int instant_head(struct conv *c, struct conv_thread *t, size_t room, const char *name,
			size_t nlen, uint32_t cat)
{
	const char *cs = profev_reader_string(c->r, cat);
	size_t cl = strlen(cs);
	int rc = event_begin(c, room + JSON_STRING_MAX(nlen) + JSON_STRING_MAX(cl), 'i');
	if (rc)
		return rc;
	outbuf_lit(&c->out, ",\"s\":\"t\"");
	field_ts(c, ",\"ts\":", c->now);
	if ((rc = put_ids(c, t)))
		return rc;
	field_str(c, ",\"name\":", name, nlen);
	if (cl)
		field_str(c, ",\"cat\":", cs, cl);
	return 0;
}

static size_t arg_room(struct conv *c, const struct profev_event *a);
static void arg_value(struct conv *c, struct outbuf *o, const struct profev_event *a);

/* Room for the arguments of t's instant or message being written. */
static size_t point_args_room(struct conv *c, const struct conv_thread *t)
{
	uint32_t n;
	const struct profev_event *a = conv_point_args(t, &n);
	size_t room = 16;
	for (uint32_t i = 0; i < n; i++)
		room += arg_room(c, &a[i]) + 2;
	return room;
}

/* Its arguments as members of the "args" object, each after a comma
 * unless first; whether it wrote any. */
static int point_args_write(struct conv *c, const struct conv_thread *t, int first)
{
	uint32_t n;
	const struct profev_event *a = conv_point_args(t, &n);
	for (uint32_t i = 0; i < n; i++) {
		const char *key = profev_reader_string(c->r, a[i].name);
		if (!first)
			outbuf_byte(&c->out, ',');
		first = 0;
		c->st.replaced_bytes += json_string(&c->out, key, strlen(key));
		outbuf_byte(&c->out, ':');
		arg_value(c, &c->out, &a[i]);
	}
	return n != 0;
}

static int ch_instant(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	const char *name = profev_reader_string(c->r, ev->name);
	int rc = instant_head(c, t, point_args_room(c, t), name, strlen(name), (uint32_t)ev->payload);
	if (rc)
		return rc;
	if (t->npoint) {
		outbuf_lit(&c->out, ",\"args\":{");
		point_args_write(c, t, 1);
		outbuf_byte(&c->out, '}');
	}
	event_end(c);
	return 0;
}

static int ch_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const char *text, size_t len)
{
	size_t title = conv_message_title(text, len, TITLE_MAX);
	int rc = instant_head(c, t, JSON_STRING_MAX(len) + point_args_room(c, t), text, title,
			      (uint32_t)ev->payload);
	if (rc)
		return rc;
	field_str(c, ",\"args\":{\"text\":", text, len);
	point_args_write(c, t, 0);
	outbuf_byte(&c->out, '}');
	event_end(c);
	return 0;
}

static int ch_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	int rc = instant_head(c, t, 0, "lost events", 11, 0);
	if (rc)
		return rc;
	outbuf_lit(&c->out, ",\"args\":{\"count\":");
	json_u64(&c->out, ev->payload);
	outbuf_byte(&c->out, '}');
	event_end(c);
	return 0;
}

static int ch_counter(struct conv *c, const struct profev_event *ev)
{
	struct jname n;
	int rc = jname(c, ev->name, &n);
	if (rc || (rc = event_begin(c, n.len, 'C')))
		return rc;
	field_ts(c, ",\"ts\":", c->now);
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, c->pid);
	outbuf_lit(&c->out, ",\"name\":");
	put_jname(c, &n);
	outbuf_lit(&c->out, ",\"args\":{\"value\":");
	json_double(&c->out, profev_event_double(ev));
	outbuf_byte(&c->out, '}');
	event_end(c);
	return 0;
}

/* A pool's live bytes: a counter "memory: POOL" of the process; and each
 * allocation an instant of the process (no tid: a thread with nothing
 * else would appear only for it) named by its pool, with its size and
 * callstack, as the Perfetto output has them on its "allocations" track. */
static int ch_memory(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		     const struct conv_mem *m)
{
	const char *pool = m->pool ? profev_reader_string(c->r, m->pool) : "default";
	size_t len = strlen(pool);
	int rc = event_begin(c, JSON_STRING_MAX(len), 'C');
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", c->now);
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, c->pid);
	outbuf_lit(&c->out, ",\"name\":\"memory: ");
	c->st.replaced_bytes += json_chars(&c->out, pool, len);
	outbuf_lit(&c->out, "\",\"args\":{\"bytes\":");
	json_u64(&c->out, m->live);
	outbuf_byte(&c->out, '}');
	event_end(c);
	if (!t || ev->type != PROFEV_EV_MEM_ALLOC)
		return 0;
	if ((rc = event_begin(c, JSON_STRING_MAX(len) + 64, 'i')))
		return rc;
	outbuf_lit(&c->out, ",\"s\":\"p\"");
	field_ts(c, ",\"ts\":", c->now);
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, c->pid);
	field_str(c, ",\"name\":", pool, len);
	if ((rc = put_sf(c, ev->stack)))
		return rc;
	outbuf_lit(&c->out, ",\"args\":{\"bytes\":");
	json_u64(&c->out, m->size);
	outbuf_byte(&c->out, '}');
	event_end(c);
	return 0;
}

/* ---- rich events ---- */

/* Room for a JSON value of argument a, its key apart. */
static size_t arg_room(struct conv *c, const struct profev_event *a)
{
	size_t room = JSON_STRING_MAX(strlen(profev_reader_string(c->r, a->name))) + 2 * JSON_NUMBER_MAX;
	if (profev_event_arg_kind(a) == PROFEV_AK_STR)
		room += JSON_STRING_MAX(strlen(profev_reader_string(c->r, (uint32_t)a->payload)));
	return room;
}

static void arg_value(struct conv *c, struct outbuf *o, const struct profev_event *a)
{
	char hex[24];
	/* Integers beyond 2^53 are strings: JSON readers take numbers as
	 * doubles (trace_processor turns UINT64_MAX into -1). */
	const uint64_t exact = 1ull << 53;
	unsigned kind = profev_event_arg_kind(a);
	int neg = kind == PROFEV_AK_INT && (int64_t)a->payload < 0;
	uint64_t mag = neg ? (uint64_t)0 - a->payload : a->payload;
	if ((kind == PROFEV_AK_INT || kind == PROFEV_AK_UINT) && mag > exact) {
		outbuf_byte(o, '"');
		if (neg)
			outbuf_byte(o, '-');
		json_u64(o, mag);
		outbuf_byte(o, '"');
		return;
	}
	switch (kind) {
	case PROFEV_AK_INT:
		if (neg)
			outbuf_byte(o, '-');
		json_u64(o, mag);
		break;
	case PROFEV_AK_DOUBLE: json_double(o, profev_event_double(a)); break;
	case PROFEV_AK_BOOL:
		if (a->payload)
			outbuf_lit(o, "true");
		else
			outbuf_lit(o, "false");
		break;
	case PROFEV_AK_PTR:
		json_string(o, hex, (size_t)snprintf(hex, sizeof hex, "0x%" PRIx64, a->payload));
		break;
	case PROFEV_AK_STR: {
		const char *v = profev_reader_string(c->r, (uint32_t)a->payload);
		c->st.replaced_bytes += json_string(o, v, strlen(v));
		break;
	}
	default: json_u64(o, a->payload); break;
	}
}

/* ,"args":{...} of a zone's arguments and the marker of its edge, in
 * ch->args; its length, 0 on no memory. */
static size_t args_make(struct conv *c, const struct profev_event *a, uint32_t n, int edge)
{
	struct chrome *ch = c->fmt;
	size_t need = 64;
	for (uint32_t i = 0; i < n; i++)
		if (a[i].type == PROFEV_EV_ARG)
			need += arg_room(c, &a[i]) + 2;
	if (need > ch->args_cap) {
		char *b = realloc(ch->args, need);
		if (!b)
			return 0;
		ch->args = b;
		ch->args_cap = need;
	}
	struct outbuf tmp = { (uint8_t *)ch->args, (uint8_t *)ch->args, (uint8_t *)ch->args + need,
			      NULL, NULL, 0, 0 };
	int first = 1;
	outbuf_lit(&tmp, ",\"args\":{");
	for (uint32_t i = 0; i < n; i++) {
		if (a[i].type != PROFEV_EV_ARG)
			continue;
		const char *key = profev_reader_string(c->r, a[i].name);
		if (!first)
			outbuf_byte(&tmp, ',');
		first = 0;
		c->st.replaced_bytes += json_string(&tmp, key, strlen(key));
		outbuf_byte(&tmp, ':');
		arg_value(c, &tmp, &a[i]);
	}
	if (edge != CONV_EDGE_NORMAL) {
		if (!first)
			outbuf_byte(&tmp, ',');
		first = 0;
		if (edge == CONV_EDGE_UNCLOSED)
			outbuf_lit(&tmp, "\"unclosed\":true");
		else
			outbuf_lit(&tmp, "\"cut\":true");
	}
	outbuf_lit(&tmp, "}");
	if (first)
		return 1; /* none: "" */
	outbuf_byte(&tmp, 0);
	return (size_t)(tmp.p - tmp.base);
}

/* Adds flow id to those started: 1 if new, 0 if there, <0 on no memory. */
static int flow_started(struct chrome *ch, uint64_t id)
{
	if (!ch->flows || (ch->nflows + 1) * 2 > ch->fmask) {
		uint64_t *old = ch->flows, n = old ? ch->fmask + 1 : 0, mask = n ? 2 * n - 1 : 63;
		if (!(ch->flows = calloc(mask + 1, sizeof(*ch->flows)))) {
			ch->flows = old;
			return PROFEV_E_NOMEM;
		}
		ch->fmask = mask;
		for (uint64_t i = 0; i < n; i++) {
			if (!old[i])
				continue;
			uint64_t k = (old[i] * 0x9e3779b97f4a7c15ull >> 20) & mask;
			while (ch->flows[k])
				k = (k + 1) & mask;
			ch->flows[k] = old[i];
		}
		free(old);
	}
	uint64_t key = id ? id : ~0ull, k = (key * 0x9e3779b97f4a7c15ull >> 20) & ch->fmask;
	while (ch->flows[k] && ch->flows[k] != key)
		k = (k + 1) & ch->fmask;
	if (ch->flows[k])
		return 0;
	ch->flows[k] = key;
	ch->nflows++;
	return 1;
}

/*
 * A flow event bound to the zone (ph s, t or f, "bp":"e"), a nanosecond
 * after the zone began: inside it and not yet in any of its children.
 */
static int flow_event(struct conv *c, struct conv_thread *t, const struct profev_event *f, uint64_t at)
{
	char ph = 'f';
	if (f->type == PROFEV_EV_FLOW_OUT) {
		int fresh = flow_started(c->fmt, f->payload);
		if (fresh < 0)
			return fresh;
		ph = fresh ? 's' : 't';
	}
	int rc = event_begin(c, 0, ph);
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", at);
	if ((rc = put_ids(c, t)))
		return rc;
	outbuf_lit(&c->out, ",\"name\":\"flow\",\"cat\":\"flow\",\"bp\":\"e\"");
	char id[24];
	field_str(c, ",\"id\":", id, (size_t)snprintf(id, sizeof id, "0x%" PRIx64, f->payload));
	event_end(c);
	return 0;
}

/* A zone with arguments or flow marks: the flow events bound to it now,
 * and its ,"args":{...} in *args (malloc'ed; NULL when it has none), for
 * the zone's own event, which may be deferred. */
static int zone_end_rich(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge, char **args)
{
	uint32_t n;
	const struct profev_event *a = conv_zone_args(t, z, &n);
	size_t len = args_make(c, a, n, edge);
	if (!len)
		return PROFEV_E_NOMEM;
	if (len > 1 && !(*args = strdup(((struct chrome *)c->fmt)->args)))
		return PROFEV_E_NOMEM;
	uint64_t at = z->shown + 1 < ts ? z->shown + 1 : z->shown;
	int rc = 0;
	for (uint32_t i = 0; i < n && !rc; i++)
		if (a[i].type == PROFEV_EV_FLOW_OUT || a[i].type == PROFEV_EV_FLOW_IN)
			rc = flow_event(c, t, &a[i], at);
	if (rc) {
		free(*args);
		*args = NULL;
	}
	if (!rc && !*args) /* flows alone: the zone's event as usual */
		rc = zone_end_form(c, t, z, ts, edge, NULL);
	return rc;
}

/* An async span's begin or end: a nestable async event (ph b or e) with
 * its id, its name and category. */
static int ch_async(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, ev->name);
	const char *name = profev_reader_string(c->r, ev->name);
	const char *cat = l && l->category ? profev_reader_string(c->r, l->category) : "async";
	size_t nl = strlen(name), cl = strlen(cat);
	int rc = event_begin(c, JSON_STRING_MAX(nl) + JSON_STRING_MAX(cl) + 32,
			     ev->type == PROFEV_EV_ASYNC_BEGIN ? 'b' : 'e');
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", c->now);
	if ((rc = put_ids(c, t)))
		return rc;
	field_str(c, ",\"name\":", name, nl);
	field_str(c, ",\"cat\":", cat, cl);
	char id[24];
	int k = snprintf(id, sizeof id, "0x%" PRIx64, ev->payload);
	field_str(c, ",\"id\":", id, (size_t)k);
	event_end(c);
	return 0;
}

/* A lock wait: an X event "wait: NAME" on the waiting thread, with the lock
 * and the thread that held it. */
static int ch_lock_wait(struct conv *c, struct conv_thread *t, const struct conv_wait *w)
{
	const char *name = profev_reader_string(c->r, w->name);
	const char *holder = w->holder ? profev_reader_thread_name(c->r, w->holder) : "";
	size_t nl = strlen(name), hl = strlen(holder);
	int rc = event_begin(c, JSON_STRING_MAX(nl + 6) + JSON_STRING_MAX(hl) + 64, 'X');
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", w->begin);
	outbuf_lit(&c->out, ",\"dur\":");
	json_us(&c->out, w->end - w->begin);
	if ((rc = put_ids(c, t)))
		return rc;
	outbuf_lit(&c->out, ",\"name\":\"wait: ");
	c->st.replaced_bytes += json_chars(&c->out, name, nl);
	outbuf_lit(&c->out, "\",\"cat\":\"lock\",\"args\":{\"lock\":");
	char hex[24];
	json_string(&c->out, hex, (size_t)snprintf(hex, sizeof hex, "0x%" PRIx64, w->lock));
	if (w->holder) {
		outbuf_lit(&c->out, ",\"holder_tid\":");
		json_u64(&c->out, w->holder);
		field_str(c, ",\"holder\":", holder, hl);
	}
	outbuf_byte(&c->out, '}');
	event_end(c);
	return 0;
}

/*
 * A frame image: a DevTools filmstrip screenshot, an object snapshot
 * (ph "O") named "Screenshot" in "disabled-by-default-devtools.screenshot"
 * whose args.snapshot is the JPEG in base64.
 */
static int ch_image(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		    const struct profev_image *img)
{
	struct conv_shots *s = &((struct chrome *)c->fmt)->shots;
	const uint8_t *jpg;
	size_t len;
	int rc = conv_shot_jpeg(s, img, &jpg, &len);
	if (rc)
		return rc == PROFEV_E_NOMEM ? rc : 0;
	static const char cat[] = "disabled-by-default-devtools.screenshot";
	if ((rc = event_begin(c, 4 * (len / 3 + 1) + sizeof cat + 64, 'O')))
		return rc;
	field_ts(c, ",\"ts\":", c->now);
	if ((rc = put_ids(c, t)))
		return rc;
	outbuf_lit(&c->out, ",\"name\":\"Screenshot\",\"cat\":\"disabled-by-default-devtools.screenshot\",\"id\":\"0x");
	char id[24];
	int n = snprintf(id, sizeof id, "%" PRIx64, ev->payload);
	outbuf_put(&c->out, id, (size_t)n);
	outbuf_lit(&c->out, "\",\"args\":{\"snapshot\":\"");
	conv_base64(&c->out, jpg, len);
	outbuf_lit(&c->out, "\"}");
	event_end(c);
	return 0;
}

/* A sample as a Trace Event Format sample event (phase P), its callstack
 * in stackFrames like any other: chrome://tracing lists them per thread. */
static int ch_sample(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	int rc = event_begin(c, 64, 'P');
	if (rc)
		return rc;
	outbuf_lit(&c->out, ",\"ts\":");
	if (ev->ts < c->base) {
		outbuf_byte(&c->out, '-');
		json_us(&c->out, c->base - ev->ts);
	} else {
		json_us(&c->out, ev->ts - c->base);
	}
	if ((rc = put_ids(c, t)))
		return rc;
	outbuf_lit(&c->out, ",\"name\":\"cpu-clock\",\"cat\":\"sample\"");
	if ((rc = put_sf(c, ev->stack)))
		return rc;
	outbuf_lit(&c->out, ",\"args\":{\"cpu\":");
	json_u64(&c->out, (uint32_t)ev->payload);
	outbuf_byte(&c->out, '}');
	event_end(c);
	return 0;
}

const struct conv_ops conv_chrome_ops = {
	.name = "chrome",
	.split_ok = 1,
	.init = ch_init,
	.fini = ch_fini,
	.part_begin = ch_part_begin,
	.part_end = ch_part_end,
	.sample = ch_sample,
	.thread = ch_thread,
	.zone_begin = ch_zone_begin,
	.zone_end = ch_zone_end,
	.instant = ch_instant,
	.message = ch_message,
	.lost = ch_lost,
	.counter = ch_counter,
	.memory = ch_memory,
	.async = ch_async,
	.lock_wait = ch_lock_wait,
	.image = ch_image,
};
