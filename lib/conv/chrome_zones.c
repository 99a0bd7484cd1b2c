/*
 * The Chrome target's zones: each an X event, or a B and an E event where
 * an X event would not nest exactly (the deferred stack decides), with its
 * arguments and the flow events bound to it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/chrome_events.h"
#include "trace/trace_internal.h"
#include "common/common.h"

/* Room for a zone's name and category, made ready in *n and *k. */
static int zone_room(struct conv *c, const struct conv_thread *t, const struct conv_zone *z,
		     struct json_name *n, struct json_name *k, size_t *room)
{
	int rc;
	*room = 48;
	if (t->kind == CONV_FRAMES)
		return 0;
	if ((rc = json_name_of(c, z->name, n)))
		return rc;
	if (z->cat && (rc = json_name_of(c, z->cat, k)))
		return rc;
	*room = n->len + (z->cat ? k->len : 0) + (z->stack ? 40 : 0);
	return 0;
}

/* Name and category of a zone, or the frame's title. */
static void zone_names(struct conv *c, const struct conv_thread *t, const struct conv_zone *z,
		       const struct json_name *n, const struct json_name *k)
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
	put_json_name(c, n);
	if (z->cat) {
		outbuf_lit(&c->out, ",\"cat\":");
		put_json_name(c, k);
	}
}

/* The args that mark a zone pfconv ended (a cut, a thread that never
 * closed it), or "". */
static const char *edge_args(int edge)
{
	return edge == CONV_EDGE_UNCLOSED ? ",\"args\":{\"unclosed\":true}"
	       : edge == CONV_EDGE_CUT    ? ",\"args\":{\"cut\":true}"
	       : edge == CONV_EDGE_AFTER  ? ",\"args\":{\"open_after_window\":true}"
					  : "";
}

/* The args of a zone's B event at a cut: reopened at a window's start or
 * a split's part (continued), or begun before the trace's window. */
static const char *begin_args(int edge)
{
	return edge == CONV_EDGE_CUT      ? ",\"args\":{\"continued\":true}"
	       : edge == CONV_EDGE_BEFORE ? ",\"args\":{\"begun_before_window\":true}"
					  : "";
}

static struct chrome_thread *chrome_thread_of(struct conv *c, struct conv_thread *t)
{
	struct chrome *ch = c->fmt;
	if (__builtin_expect(t->seq >= ch->nthreads, 0) &&
	    array_grow((void **)&ch->threads, &ch->nthreads, sizeof(*ch->threads), (uint64_t)t->seq + 1))
		return NULL;
	struct chrome_thread *h = &ch->threads[t->seq];
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
	struct json_name n = { 0, 0 }, k = { 0, 0 }; /* unset on a frame track */
	size_t room, alen = strlen(args);
	int rc = zone_room(c, t, z, &n, &k, &room);
	if (rc || (rc = chrome_event_begin(c, room + alen, ph)))
		return rc;
	field_ts(c, ",\"ts\":", ts);
	if (ph == 'X') {
		outbuf_lit(&c->out, ",\"dur\":");
		json_us(&c->out, end - ts);
	}
	if ((rc = chrome_put_ids(c, t)))
		return rc;
	zone_names(c, t, z, &n, &k);
	if (ph != 'E' && t->kind == CONV_THREAD && z->stack && (rc = chrome_put_sf(c, (uint32_t)z->stack)))
		return rc;
	outbuf_put(&c->out, args, alen);
	chrome_event_end(c);
	return 0;
}

static int fragment_make(struct conv *c, uint32_t name, uint32_t cat)
{
	struct chrome *ch = c->fmt;
	if (array_grow((void **)&ch->fragments, &ch->nfragments, sizeof(*ch->fragments), (uint64_t)name + 1))
		return PROFEV_E_NOMEM;
	struct json_name n, k = { 0, 0 };
	int rc = json_name_of(c, name, &n);
	if (!rc && cat)
		rc = json_name_of(c, cat, &k);
	struct outbuf tmp;
	if (rc || (rc = name_arena_room(ch, 16 + n.len + k.len + FRAG_COPY, &tmp)))
		return rc;
	outbuf_lit(&tmp, ",\"name\":");
	outbuf_put(&tmp, ch->arena + n.off, n.len);
	if (cat) {
		outbuf_lit(&tmp, ",\"cat\":");
		outbuf_put(&tmp, ch->arena + k.off, k.len);
	}
	uint32_t len = (uint32_t)(tmp.p - tmp.base);
	ch->fragments[name] = (struct zone_fragment){ (uint32_t)ch->arena_len, len, cat };
	ch->arena_len += len;
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
	if (__builtin_expect(z->name >= ch->nfragments || !ch->fragments[z->name].len, 0)) {
		int rc = fragment_make(c, z->name, z->cat);
		if (rc)
			return rc;
	}
	const struct zone_fragment *f = &ch->fragments[z->name];
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
	chrome_put_ts(c, z->shown);
	outbuf_lit(&c->out, ",\"dur\":");
	json_us(&c->out, ts - z->shown);
	if ((rc = chrome_put_ids(c, t)))
		return rc;
	if (__builtin_expect(f->len <= FRAG_COPY, 1)) {
		memcpy(c->out.p, ch->arena + f->off, FRAG_COPY);
		c->out.p += f->len;
	} else {
		outbuf_put(&c->out, ch->arena + f->off, f->len);
	}
	chrome_event_end(c);
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
static const char *deferred_args(const struct deferred_zone *r)
{
	return r->args ? r->args : edge_args(r->edge);
}

/* Write the chain d[0..n), innermost first, its head last. */
static int chain_write(struct conv *c, struct conv_thread *t, struct deferred_zone *d, unsigned n)
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
			rc = zone_event(c, t, &d[i].z, 'B', d[i].z.shown, 0, deferred_args(&d[i]));
		for (unsigned i = 0; i < n && !rc; i++)
			rc = zone_event(c, t, &d[i].z, 'E', d[i].end, 0, deferred_args(&d[i]));
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
static inline int boundary(struct conv *c, struct chrome_thread *h, uint64_t ts)
{
	if (h->just) {
		if (h->deferred[h->just - 1].end == ts)
			h->deferred[h->just - 1].force = 1;
		h->just = 0;
	}
	if (!h->awaiting)
		return 0;
	uint32_t base = h->awaiting - 1;
	h->awaiting = 0;
	int rc = chain_write(c, h->t, h->deferred + base, h->n - base);
	h->n = base;
	return rc;
}

/* Write what h's thread still defers: at the end of a part. */
int chrome_thread_flush(struct conv *c, struct chrome_thread *h)
{
	int rc = 0;
	if (h->awaiting)
		rc = boundary(c, h, UINT64_MAX);
	/* Members whose head did not end (never the case: the read loop ends
	 * every zone in the part): one B/E chain. */
	if (!rc && h->n) {
		for (uint32_t i = 0; i < h->n; i++)
			h->deferred[i].force = 1;
		rc = chain_write(c, h->t, h->deferred, h->n);
	}
	h->n = h->just = h->awaiting = 0;
	h->last_end = 0;
	return rc;
}

int chrome_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	z->aux = 0;
	if (begin_end(c, t)) {
		z->aux = AUX_B_WRITTEN;
		z->begun_name = z->name;
		return zone_event(c, t, z, 'B', z->shown, 0, begin_args(edge));
	}
	struct chrome_thread *h = chrome_thread_of(c, t);
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
	if (edge == CONV_EDGE_CUT || edge == CONV_EDGE_BEFORE ||
	    (p && p->shown == z->shown && (p->aux & AUX_B_WRITTEN))) {
		z->aux = AUX_B_WRITTEN;
		z->begun_name = z->name;
		return zone_event(c, t, z, 'B', z->shown, 0, begin_args(edge));
	}
	z->aux = p && p->shown == z->shown ? AUX_MEMBER : (uint64_t)h->n << AUX_BASE_SHIFT;
	return 0;
}

static int zone_end_rich(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge, char **args);
static int zone_end_form(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge, char *args);

int chrome_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
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

/* The E event of a zone whose B event was written at its begin: under the
 * B's name, which viewers pair it by, also when the zone was named later
 * (the B/E form keeps a zone's first name). */
static int begun_end_event(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			   const char *args)
{
	if (__builtin_expect(z->name == z->begun_name, 1))
		return zone_event(c, t, z, 'E', ts, 0, args);
	struct conv_zone begun = *z;
	begun.name = z->begun_name;
	return zone_event(c, t, &begun, 'E', ts, 0, args);
}

/* args: the zone's own (malloc'ed, taken if deferred), or NULL. */
static int zone_end_form(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
			 int edge, char *args)
{
	if (begin_end(c, t))
		return begun_end_event(c, t, z, ts, args ? args : edge_args(edge));
	struct chrome_thread *h = chrome_thread_of(c, t);
	if (!h)
		return PROFEV_E_NOMEM;
	int rc = boundary(c, h, ts);
	if (rc)
		return rc;
	int coincides = h->last_end == ts + 1; /* a child ended with it */
	h->last_end = ts + 1;
	if (z->aux & AUX_B_WRITTEN)
		return begun_end_event(c, t, z, ts, args ? args : edge_args(edge));
	if (__builtin_expect(h->n == h->cap, 0) &&
	    array_grow((void **)&h->deferred, &h->cap, sizeof(*h->deferred), (uint64_t)h->n + 1))
		return PROFEV_E_NOMEM;
	struct deferred_zone *r = &h->deferred[h->n++];
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

/* ,"args":{...} of a zone's arguments and the marker of its edge, in
 * ch->args; its length, 0 on no memory. */
static size_t args_make(struct conv *c, const struct profev_event *a, uint32_t n, int edge)
{
	struct chrome *ch = c->fmt;
	size_t need = 64;
	for (uint32_t i = 0; i < n; i++)
		if (a[i].type == PROFEV_EV_ARG)
			need += chrome_arg_room(c, &a[i]) + 2;
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
		chrome_arg_value(c, &tmp, &a[i]);
	}
	if (edge != CONV_EDGE_NORMAL) {
		if (!first)
			outbuf_byte(&tmp, ',');
		first = 0;
		if (edge == CONV_EDGE_UNCLOSED)
			outbuf_lit(&tmp, "\"unclosed\":true");
		else if (edge == CONV_EDGE_AFTER)
			outbuf_lit(&tmp, "\"open_after_window\":true");
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
	int added;
	/* the map's key 0 is its empty slot: flow id 0 is kept as ~0 */
	if (!u64_map_insert(&ch->flows, id ? id : ~0ull, &added))
		return PROFEV_E_NOMEM;
	return added;
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
	int rc = chrome_event_begin(c, 0, ph);
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", at);
	if ((rc = chrome_put_ids(c, t)))
		return rc;
	outbuf_lit(&c->out, ",\"name\":\"flow\",\"cat\":\"flow\",\"bp\":\"e\"");
	char id[24];
	field_str(c, ",\"id\":", id, (size_t)snprintf(id, sizeof id, "0x%" PRIx64, f->payload));
	chrome_event_end(c);
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
