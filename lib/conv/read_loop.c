/*
 * The converters' read loop (profev_conv.h): one pass over the reader that
 * keeps every thread's open zones and drives a target's ops table
 * (conv/conv_internal.h). Window, filter, split and unclosed zones are handled
 * here once, so each target only formats records.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conv/conv_internal.h"
#include "conv/zpack.h"
#include "trace/trace_internal.h"
#include "common/utf8.h"

#define OUT_BUFFER (1u << 20)
/* Inlined into the read loop: a call per event and per zone, with their
 * saved registers, was a tenth of a conversion. */
#define HOT __attribute__((always_inline))
#define PROGRESS_EVERY (1u << 20)
/* Warnings of one kind reported one by one before the summary. */
#define WARN_DETAILED 5
/* Bytes set aside per open zone when deciding to split, for the records
 * that close it at the cut (in Chrome JSON a B and an E event, each with
 * the zone's names and args). */
#define CLOSE_COST 384
#define PART_TRAILER 64

static const struct conv_ops *const targets[] = {
	[PROFEV_CONV_PERFETTO] = &conv_perfetto_ops,
	[PROFEV_CONV_CHROME] = &conv_chrome_ops,
	[PROFEV_CONV_FOLDED] = &conv_folded_ops,
	[PROFEV_CONV_PNG] = &conv_png_ops,
};
static const char *const exts[] = {
	[PROFEV_CONV_PERFETTO] = ".pftrace",
	[PROFEV_CONV_CHROME] = ".json",
	[PROFEV_CONV_FOLDED] = ".folded",
	[PROFEV_CONV_PNG] = "",
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

int profev_conv_format_from_name(const char *name)
{
	for (unsigned i = 1; i < NTARGETS; i++)
		if (name && strcmp(name, targets[i]->name) == 0)
			return (int)i;
	return 0;
}

const char *profev_conv_format_name(int format)
{
	return format > 0 && (unsigned)format < NTARGETS ? targets[format]->name : "unknown";
}

const char *profev_conv_format_ext(int format)
{
	return format > 0 && (unsigned)format < NTARGETS ? exts[format] : "";
}

void profev_conv_opts_init(struct profev_conv_opts *opts, int format)
{
	memset(opts, 0, sizeof(*opts));
	opts->format = format;
	opts->to_ns = UINT64_MAX;
}

/* ------------------------------------------------------------------ */

/* A memory block still allocated; addr 0 marks an empty slot. */
struct block {
	uint64_t addr, size;
	uint32_t pool;
};

struct pool {
	uint32_t name;
	uint64_t live;
};

/* A lock, for the holder of a wait: its latest holds as the events read
 * so far tell, up to LOCK_HOLDS of them (a waiter's events may reach the
 * file that many holds after its holder's). The history grows with the
 * lock's use, so a trace of many locks each taken once keeps little. */
#define LOCK_HOLDS 64
struct lock_hold {
	uint64_t from, to; /* to = UINT64_MAX: still held */
	uint32_t tid;
};
struct conv_lock {
	uint64_t addr;     /* 0 = empty slot */
	struct lock_hold *hold; /* the newest at (n - 1) & (cap - 1) */
	uint32_t n, cap;   /* cap grows only before the history wraps */
};

/*
 * A lock wait whose holder the events read so far do not settle: threads'
 * events reach the file in batches, so the holder's acquisition or release
 * may come after the waiter's acquisition. The candidate is the other
 * thread's hold that began last at or before the wait: when its release is
 * read, it either covers the wait's start (the holder, final: holds of one
 * lock do not overlap) or ended before it (no holder, unless a later hold
 * that began before the wait is still to come).
 */
#define HELD_WAITS 64
struct held_wait {
	struct conv_thread *t;
	struct conv_wait w;  /* w.holder: the candidate's thread, 0 = none yet */
	uint64_t from, to;   /* the candidate hold; to = UINT64_MAX: not released yet */
};

struct loop {
	struct conv c;
	const struct profev_conv_sink *sink;
	struct conv_zpack *zpack;   /* PROFEV_CONV_COMPRESS: between c.out and sink */
	uint64_t from, to;          /* absolute window */
	int windowed;               /* from/to given: times need the base */
	int based;                  /* base is known */
	int in_part;                /* a part is open */
	uint64_t part_events;       /* events written to the current part */
	uint64_t open_zones;        /* over all threads, for the split estimate */
	uint64_t last_ts;           /* latest timestamp in the trace so far */
	uint64_t filter_tid;        /* opts->thread as a TID, 0 if a name */
	struct conv_thread **threads; /* in creation order */
	unsigned nthreads, cap;
	uint32_t *slots;            /* hash of key -> index + 1 */
	unsigned nslots;
	struct conv_thread *last;   /* lookup cache: events come in runs per thread */
	uint64_t gen;               /* counts the reader's runs of events: thread
	                               names can only change between them */
	uint32_t nstr;              /* strings the reader knows in this run */
	const struct profev_event *text_src; /* the reader's copy of an event
	                               on_event() sees corrected, for its text */
	uint64_t warned[PROFEV_CONV_W_SUMMARY];
	struct block *blocks;       /* live memory blocks by address */
	uint64_t bmask, nblocks;
	struct conv_lock *locks;    /* lock states by address */
	uint64_t lmask, nlocks;
	struct held_wait *waits;    /* lock waits held back, oldest first */
	uint32_t nwaits, capwaits;
	struct pool *pools;         /* live bytes per pool, few: searched in order */
	unsigned npools, pcap;
	uint32_t nstacks;           /* callstacks the reader knew at last look */
	int snap;                   /* restate the pools' live bytes: at snap_ts,
	                               or at the next event's ts if 0 */
	uint64_t snap_ts;
	int pending;                /* before the next event: open a part or
	                               restate memory (one test per event) */
};

static int sink_write(void *ctx, const void *data, size_t len)
{
	const struct profev_conv_sink *s = ctx;
	return s->write(s->ctx, data, len) < 0 ? PROFEV_E_IO : 0;
}

/* Output bytes so far: those the sink got when compressing (what is still
 * buffered is not counted then), else those written. */
static uint64_t bytes_out(const struct loop *l)
{
	return l->zpack ? conv_zpack_bytes(l->zpack) : outbuf_size(&l->c.out);
}

static void warn(struct loop *l, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn(struct loop *l, int kind, const char *fmt, ...)
{
	if (++l->warned[kind] > WARN_DETAILED || !l->c.opts->warn)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->c.opts->warn(l->c.opts->cb_ctx, kind, msg);
}

/* "1.234567890s" after the trace start, for messages. */
static const char *when(const struct loop *l, uint64_t ts, char buf[40])
{
	int64_t d = (int64_t)(ts - l->c.base);
	const char *sign = d < 0 ? "-" : "";
	uint64_t a = d < 0 ? (uint64_t)-d : (uint64_t)d;
	snprintf(buf, 40, "%s%" PRIu64 ".%09" PRIu64 "s", sign, a / 1000000000u, a % 1000000000u);
	return buf;
}

const char *conv_track_name(const struct conv_thread *t, char buf[32])
{
	if (t->name[0])
		return t->name;
	snprintf(buf, 32, "thread %" PRIu32, t->tid);
	return buf;
}

size_t conv_frame_title(char *buf, uint64_t frame)
{
	char digits[20];
	size_t n = 0;
	do {
		digits[sizeof(digits) - ++n] = (char)('0' + frame % 10);
		frame /= 10;
	} while (frame);
	memcpy(buf, "Frame ", 6);
	memcpy(buf + 6, digits + sizeof(digits) - n, n);
	return 6 + n;
}

size_t conv_message_title(const char *text, size_t len, size_t max)
{
	const char *nl = memchr(text, '\n', len);
	if (nl)
		len = (size_t)(nl - text);
	return utf8_cut(text, len, max);
}

/* ------------------------------------------------------------------ */
/* Tracks                                                              */

static uint32_t hash_key(uint64_t k)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32);
}

static int rehash(struct loop *l)
{
	unsigned n = l->nslots ? l->nslots * 2 : 64;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return PROFEV_E_NOMEM;
	for (unsigned i = 0; i < l->nthreads; i++) {
		uint32_t h = hash_key(l->threads[i]->key) & (n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(l->slots);
	l->slots = s;
	l->nslots = n;
	return 0;
}

static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static int name_matches(const struct loop *l, const struct conv_thread *t)
{
	const char *f = l->c.opts->thread;
	if (!f || t->kind != CONV_THREAD)
		return 1;
	if (l->filter_tid)
		return t->tid == l->filter_tid;
	return strcmp(t->name, f) == 0;
}

static struct conv_thread *find_track(struct loop *l, uint64_t key)
{
	if (l->last && l->last->key == key)
		return l->last;
	if (!l->nslots)
		return NULL;
	uint32_t h = hash_key(key) & (l->nslots - 1);
	while (l->slots[h]) {
		struct conv_thread *t = l->threads[l->slots[h] - 1];
		if (t->key == key)
			return l->last = t;
		h = (h + 1) & (l->nslots - 1);
	}
	return NULL;
}

static struct conv_thread *new_track(struct loop *l, uint64_t key, int kind, uint32_t tid,
				     const char *name)
{
	if (l->nthreads * 2 >= l->nslots && rehash(l))
		return NULL;
	if (l->nthreads == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 16;
		void *p = realloc(l->threads, cap * sizeof(*l->threads));
		if (!p)
			return NULL;
		l->threads = p;
		l->cap = cap;
	}
	struct conv_thread *t = calloc(1, sizeof(*t));
	if (!t || !(t->name = dupstr(name))) {
		free(t);
		return NULL;
	}
	t->key = key;
	t->kind = kind;
	t->tid = tid;
	t->seq = l->nthreads;
	t->pid = l->c.pid;
	if (kind == CONV_THREAD) {
		uint32_t pid = profev_reader_thread_pid(l->c.r, tid);
		if (pid)
			t->pid = pid;
	}
	t->selected = name_matches(l, t);
	uint32_t h = hash_key(key) & (l->nslots - 1);
	while (l->slots[h])
		h = (h + 1) & (l->nslots - 1);
	l->slots[h] = l->nthreads + 1;
	l->threads[l->nthreads++] = t;
	return l->last = t;
}

static void free_tracks(struct loop *l)
{
	for (unsigned i = 0; i < l->nthreads; i++) {
		free(l->threads[i]->name);
		free(l->threads[i]->stack);
		free(l->threads[i]->args);
		free(l->threads[i]->point);
		free(l->threads[i]);
	}
	free(l->threads);
	free(l->slots);
	free(l->blocks);
	for (uint64_t i = 0; l->locks && i <= l->lmask; i++)
		free(l->locks[i].hold);
	free(l->locks);
	free(l->waits);
	free(l->pools);
}

static int emitting(const struct conv_thread *t)
{
	return t->selected && t->phase == 1;
}

static int announce(struct loop *l, struct conv_thread *t)
{
	if (t->announced)
		return 0;
	t->announced = 1;
	return l->c.ops->thread(&l->c, t);
}

int conv_idset_grow(struct conv_idset *s, uint32_t id)
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

/* ------------------------------------------------------------------ */
/* Memory: live blocks and bytes per pool                              */

static struct block *block_slot(const struct loop *l, uint64_t addr)
{
	uint64_t i = (addr * 0x9e3779b97f4a7c15ull >> 32) & l->bmask;
	while (l->blocks[i].addr && l->blocks[i].addr != addr)
		i = (i + 1) & l->bmask;
	return &l->blocks[i];
}

static int blocks_rehash(struct loop *l, uint64_t mask)
{
	struct block *old = l->blocks;
	uint64_t n = old ? l->bmask + 1 : 0;
	struct block *b = calloc(mask + 1, sizeof(*b));
	if (!b)
		return PROFEV_E_NOMEM;
	l->blocks = b;
	l->bmask = mask;
	for (uint64_t i = 0; i < n; i++)
		if (old[i].addr)
			*block_slot(l, old[i].addr) = old[i];
	free(old);
	return 0;
}

/* Empty b's slot, moving back the entries its probe run passed over. */
static void block_remove(struct loop *l, struct block *b)
{
	uint64_t i = (uint64_t)(b - l->blocks);
	b->addr = 0;
	l->nblocks--;
	for (i = (i + 1) & l->bmask; l->blocks[i].addr; i = (i + 1) & l->bmask) {
		struct block moved = l->blocks[i];
		l->blocks[i].addr = 0;
		*block_slot(l, moved.addr) = moved;
	}
}

static struct pool *pool_of(struct loop *l, uint32_t name)
{
	for (unsigned i = 0; i < l->npools; i++)
		if (l->pools[i].name == name)
			return &l->pools[i];
	if (l->npools == l->pcap) {
		unsigned cap = l->pcap ? l->pcap * 2 : 8;
		void *p = realloc(l->pools, cap * sizeof(*l->pools));
		if (!p)
			return NULL;
		l->pools = p;
		l->pcap = cap;
	}
	struct pool *p = &l->pools[l->npools++];
	p->name = name;
	p->live = 0;
	return p;
}

/* ------------------------------------------------------------------ */
/* Parts                                                               */

static int part_open(struct loop *l)
{
	struct conv *c = &l->c;
	const struct profev_conv_sink *s = l->sink;
	if (s->open && s->open(s->ctx, c->st.parts) < 0)
		return PROFEV_E_IO;
	c->st.parts++;
	/* A part after a split is a trace of its own: its memory counters
	 * start from what is live, not from nothing. */
	if (c->st.parts > 1 && l->npools) {
		l->snap = 1;
		l->snap_ts = 0;
	}
	c->part_start = outbuf_size(&c->out);
	l->in_part = 1;
	l->part_events = 0;
	for (unsigned i = 0; i < l->nthreads; i++)
		l->threads[i]->announced = 0;
	l->pending = l->snap;
	int rc = c->ops->part_begin(c);
	return rc ? rc : conv_out_rc(c);
}

static int part_close(struct loop *l)
{
	struct conv *c = &l->c;
	const struct profev_conv_sink *s = l->sink;
	l->in_part = 0;
	l->pending = 1;
	int rc = c->ops->part_end(c);
	if (!rc)
		rc = outbuf_flush(&c->out);
	if (!rc && l->zpack)
		rc = conv_zpack_finish(l->zpack);
	if (rc)
		return rc == PROFEV_E_NOMEM ? rc : PROFEV_E_IO;
	if (s->close && s->close(s->ctx, c->st.parts - 1) < 0)
		return PROFEV_E_IO;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Zones                                                               */

static inline int zone_emit_begin(struct loop *l, struct conv_thread *t, struct conv_zone *z,
			   uint64_t at, int edge)
{
	int rc = announce(l, t);
	if (rc)
		return rc;
	z->shown = at;
	z->child = 0;
	l->part_events++;
	return l->c.ops->zone_begin(&l->c, t, z, edge);
}

/* Write the end of t's top zone at ts; it stays on the stack. */
static inline int zone_emit_end(struct loop *l, struct conv_thread *t, uint64_t ts, int edge)
{
	struct conv_zone *z = &t->stack[t->depth - 1];
	if (ts < z->shown)
		ts = z->shown;
	if (t->depth > 1)
		t->stack[t->depth - 2].child += ts - z->shown;
	if (t->kind == CONV_THREAD)
		l->c.st.zones++;
	l->part_events++;
	return l->c.ops->zone_end(&l->c, t, z, ts, edge);
}

/* Open in the output every zone on t's stack, outermost first, at ts. */
static int open_all(struct loop *l, struct conv_thread *t, uint64_t ts)
{
	int rc = 0;
	for (unsigned i = 0; i < t->depth && !rc; i++)
		rc = zone_emit_begin(l, t, &t->stack[i], ts, CONV_EDGE_CUT);
	return rc;
}

/* Close in the output every zone on t's stack, innermost first, at ts;
 * they stay open in the trace. */
static int close_all(struct loop *l, struct conv_thread *t, uint64_t ts, int edge)
{
	int rc = 0;
	unsigned depth = t->depth;
	for (; t->depth && !rc; t->depth--)
		rc = zone_emit_end(l, t, ts, edge);
	t->depth = depth;
	return rc;
}

/* Move t through the window for an event at ts: zones open when the
 * window starts appear at its start, those open when it ends end there. */
static __attribute__((noinline)) int advance_slow(struct loop *l, struct conv_thread *t, uint64_t ts)
{
	int rc = 0;
	if (t->phase == 0 && ts >= l->from) {
		t->phase = 1;
		if (t->selected)
			rc = open_all(l, t, l->from > t->last_ts ? l->from : t->last_ts);
	}
	if (!rc && t->phase == 1 && ts > l->to) {
		if (t->selected)
			rc = close_all(l, t, l->to, CONV_EDGE_CUT);
		t->phase = 2;
	}
	return rc;
}

/* Inlined in the read loop, which calls it for every event: inside the
 * window, nothing to do. */
static inline __attribute__((always_inline)) int advance(struct loop *l, struct conv_thread *t, uint64_t ts)
{
	if (__builtin_expect(t->phase == 1 && ts <= l->to, 1))
		return 0;
	return advance_slow(l, t, ts);
}

/* aux: on a frames track the frame number, on a thread the callstack id
 * (six arguments stay in registers). */
static inline HOT int push(struct loop *l, struct conv_thread *t, uint64_t ts, uint32_t name, uint32_t cat,
		uint64_t aux)
{
	if (t->depth == PROFEV_CONV_MAX_DEPTH) {
		char tb[32], wb[40];
		t->dropped++;
		warn(l, PROFEV_CONV_W_TOO_DEEP, "%s (%" PRIu32 "): zone '%s' at %s nested deeper than %d: dropped",
		     conv_track_name(t, tb), t->tid, profev_reader_string(l->c.r, name), when(l, ts, wb),
		     PROFEV_CONV_MAX_DEPTH);
		return 0;
	}
	if (t->depth == t->cap) {
		unsigned cap = t->cap ? t->cap * 2 : 16;
		void *p = realloc(t->stack, cap * sizeof(*t->stack));
		if (!p)
			return PROFEV_E_NOMEM;
		t->stack = p;
		t->cap = cap;
	}
	struct conv_zone *z = &t->stack[t->depth++];
	memset(z, 0, sizeof(*z));
	z->begin = z->shown = ts;
	z->name = name;
	z->cat = cat;
	z->frame = aux; /* or z->stack: one field */
	z->args = t->nargs;
	l->open_zones++;
	if (!emitting(t))
		return 0;
	l->c.st.events_out++;
	return zone_emit_begin(l, t, z, ts, CONV_EDGE_NORMAL);
}

static inline HOT int pop(struct loop *l, struct conv_thread *t, uint64_t ts, int edge)
{
	int rc = 0;
	if (emitting(t)) {
		l->c.st.events_out++;
		rc = zone_emit_end(l, t, ts, edge);
	}
	t->depth--;
	t->nargs = t->stack[t->depth].args;
	l->open_zones--;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

static struct conv_thread *thread_slow(struct loop *l, const struct profev_event *ev);

/* The thread of an event: events come in runs per thread, so the last one
 * is checked inline first; its name was checked in this run of events. */
static inline struct conv_thread *thread_of(struct loop *l, const struct profev_event *ev)
{
	struct conv_thread *t = l->last;
	if (__builtin_expect(t && t->key == ev->tid && t->name_gen == l->gen, 1))
		return t;
	return thread_slow(l, ev);
}

static struct conv_thread *thread_slow(struct loop *l, const struct profev_event *ev)
{
	struct conv_thread *t = find_track(l, ev->tid);
	if (t && t->name_gen == l->gen)
		return t;
	const char *name = profev_reader_thread_name(l->c.r, ev->tid);
	if (!t) {
		if ((t = new_track(l, ev->tid, CONV_THREAD, ev->tid, name)))
			t->name_gen = l->gen;
		return t;
	}
	t->name_gen = l->gen;
	if (name != t->name_src) {
		t->name_src = name;
		if (strcmp(name, t->name) != 0) {
			char *n = dupstr(name);
			if (!n)
				return NULL;
			free(t->name);
			t->name = n;
			if (t->announced && l->c.ops->thread(&l->c, t))
				return NULL;
			if (!t->selected && name_matches(l, t)) {
				/* Selected from here on: what is open shows from now. */
				t->selected = 1;
				if (t->phase == 1 &&
				    open_all(l, t, ev->ts > t->last_ts ? ev->ts : t->last_ts))
					return NULL;
			}
		}
	}
	return t;
}

static struct conv_thread *frames_of(struct loop *l, uint32_t set)
{
	uint64_t key = 1ull << 32 | set;
	struct conv_thread *t = find_track(l, key);
	if (t)
		return t;
	return new_track(l, key, CONV_FRAMES, set, profev_reader_string(l->c.r, set));
}

/* Pass a memory event on when it falls in the window: its counter always,
 * its thread's part (the allocation and its callstack) when the thread is
 * kept. */
static int memory_emit(struct loop *l, struct conv_thread *t, const struct profev_event *ev,
		       const struct conv_mem *m, uint64_t ts)
{
	struct conv *c = &l->c;
	if (ts < l->from || ts > l->to)
		return 0;
	c->st.events_out++;
	l->part_events++;
	return c->ops->memory(c, emitting(t) ? t : NULL, ev, m);
}

static int on_memory(struct loop *l, struct conv_thread *t, const struct profev_event *ev, uint64_t ts)
{
	if (!l->blocks && blocks_rehash(l, 1023))
		return PROFEV_E_NOMEM;
	struct conv_mem m = { 0, 0, ev->name };
	struct pool *p;
	int rc;
	struct block *b = ev->addr ? block_slot(l, ev->addr) : NULL;
	if (ev->type == PROFEV_EV_MEM_FREE) {
		if (!b || !b->addr)
			return 0;
		struct block gone = *b;
		block_remove(l, b);
		if (!(p = pool_of(l, gone.pool)))
			return PROFEV_E_NOMEM;
		p->live -= gone.size;
		m = (struct conv_mem){ gone.size, p->live, gone.pool };
		return memory_emit(l, t, ev, &m, ts);
	}
	if (b && b->addr) {
		/* Allocated again without a free: the old block is gone. */
		struct block gone = *b;
		block_remove(l, b);
		if (!(p = pool_of(l, gone.pool)))
			return PROFEV_E_NOMEM;
		p->live -= gone.size;
		struct profev_event fr = *ev;
		fr.type = PROFEV_EV_MEM_FREE;
		fr.name = gone.pool;
		fr.payload = 0;
		fr.stack = 0;
		m = (struct conv_mem){ gone.size, p->live, gone.pool };
		if ((rc = memory_emit(l, t, &fr, &m, ts)))
			return rc;
		b = block_slot(l, ev->addr);
	}
	if (!(p = pool_of(l, ev->name)))
		return PROFEV_E_NOMEM;
	p->live += ev->payload;
	if (b) {
		*b = (struct block){ ev->addr, ev->payload, ev->name };
		if (++l->nblocks * 2 > l->bmask && blocks_rehash(l, l->bmask * 2 + 1))
			return PROFEV_E_NOMEM;
	}
	m = (struct conv_mem){ ev->payload, p->live, ev->name };
	return memory_emit(l, t, ev, &m, ts);
}

/* Write every pool's live bytes at ts, before the event that starts a
 * part or the window: counters there show what is allocated already. */
static int memory_snapshot(struct loop *l, uint64_t ts)
{
	struct conv *c = &l->c;
	uint64_t now = c->now;
	int rc = 0;
	l->snap = 0;
	c->now = ts;
	for (unsigned i = 0; i < l->npools && !rc; i++) {
		struct profev_event ev = { .ts = ts, .type = PROFEV_EV_MEM_FREE, .name = l->pools[i].name };
		struct conv_mem m = { 0, l->pools[i].live, l->pools[i].name };
		l->part_events++;
		rc = c->ops->memory(c, NULL, &ev, &m);
	}
	c->now = now;
	return rc;
}

/* What must come before the event at ts: the part it goes in, and the
 * pools' live bytes where a later part or the window starts. */
static int before_event(struct loop *l, uint64_t ts)
{
	int rc = 0;
	if (!l->in_part && (rc = part_open(l)))
		return rc;
	if (l->snap && ts > l->to)
		l->snap = 0;
	if (l->snap && ts >= l->from)
		rc = memory_snapshot(l, l->snap_ts ? l->snap_ts : ts);
	l->pending = !l->in_part || l->snap;
	return rc;
}

/* A callstack id the reader knows, else 0: targets index tables by it. */
static inline uint32_t known_stack(struct loop *l, uint32_t id)
{
	if (__builtin_expect(id > l->nstacks, 0) && (l->nstacks = profev_reader_stack_count(l->c.r)) < id)
		return 0;
	return id;
}

/* A memory event's thread moves through the window as for other events;
 * kept apart from on_event() so that traces without memory run its code
 * alone. */
static __attribute__((noinline)) int on_memory_event(struct loop *l, const struct profev_event *ev)
{
	struct conv_thread *t = thread_of(l, ev);
	if (!t)
		return l->c.out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
	uint64_t ts = ev->ts < t->last_ts ? t->last_ts : ev->ts;
	int rc = advance(l, t, ts);
	if (rc)
		return rc;
	t->last_ts = ts;
	l->c.now = ts;
	struct profev_event e = *ev;
	e.stack = known_stack(l, ev->stack);
	return on_memory(l, t, &e, ts);
}

static struct conv_lock *lock_slot(const struct loop *l, uint64_t addr)
{
	uint64_t i = (addr * 0x9E3779B97F4A7C15ull >> 20) & l->lmask;
	while (l->locks[i].addr && l->locks[i].addr != addr)
		i = (i + 1) & l->lmask;
	return &l->locks[i];
}

/* The lock at addr (not 0), added if new; NULL on no memory. */
static struct conv_lock *lock_of(struct loop *l, uint64_t addr)
{
	if (!l->locks || (l->nlocks + 1) * 2 > l->lmask) {
		struct conv_lock *old = l->locks;
		uint64_t n = old ? l->lmask + 1 : 0, mask = n ? 2 * n - 1 : 63;
		if (!(l->locks = calloc(mask + 1, sizeof(*l->locks)))) {
			l->locks = old;
			return NULL;
		}
		l->lmask = mask;
		for (uint64_t i = 0; i < n; i++)
			if (old[i].addr)
				*lock_slot(l, old[i].addr) = old[i];
		free(old);
	}
	struct conv_lock *k = lock_slot(l, addr);
	if (!k->addr) {
		memset(k, 0, sizeof(*k));
		k->addr = addr;
		l->nlocks++;
	}
	return k;
}

static int wait_emit(struct loop *l, struct conv_thread *t, const struct conv_wait *w)
{
	int rc = announce(l, t);
	if (rc)
		return rc;
	l->c.st.events_out++;
	l->part_events++;
	return l->c.ops->lock_wait(&l->c, t, w);
}

/* Held wait i written out (with its candidate as the holder if that hold
 * covers the wait's start) and taken off the list. */
static int wait_release(struct loop *l, unsigned i)
{
	struct held_wait hw = l->waits[i];
	memmove(l->waits + i, l->waits + i + 1, (l->nwaits - i - 1) * sizeof(*l->waits));
	l->nwaits--;
	if (hw.to <= hw.w.begin)
		hw.w.holder = 0;
	return wait_emit(l, hw.t, &hw.w);
}

/* Every held wait written out: at a split and at the end, where no later
 * event can tell more. */
static int waits_flush(struct loop *l)
{
	int rc = 0;
	while (l->nwaits && !rc)
		rc = wait_release(l, 0);
	return rc;
}

/* Lock addr's hold by thread tid from ts (acquired) or to ts (released),
 * for the held waits whose candidate it is or becomes. */
static int waits_update(struct loop *l, uint64_t addr, uint32_t tid, uint64_t ts, int released)
{
	for (unsigned i = 0; i < l->nwaits;) {
		struct held_wait *hw = &l->waits[i];
		if (hw->w.lock != addr || hw->t->tid == tid) {
			i++;
			continue;
		}
		if (!released && ts <= hw->w.begin && (ts >= hw->from || !hw->w.holder)) {
			hw->w.holder = tid;
			hw->from = ts;
			hw->to = UINT64_MAX;
		} else if (released && hw->w.holder == tid && hw->to == UINT64_MAX && ts >= hw->from) {
			hw->to = ts;
			if (ts > hw->w.begin) {
				int rc = wait_release(l, i);
				if (rc)
					return rc;
				continue;
			}
		}
		i++;
	}
	return 0;
}

/*
 * Lock events: a wait ends with the thread's acquisition, and the holder is
 * who held the lock when it began. Threads' events arrive in batches, so
 * the holder's acquisition or release may come later in the file: such a
 * wait is held back (struct held_wait) until they do, at most HELD_WAITS
 * of them (then the oldest goes out with what is known), and written out
 * of time order, which every target allows.
 */
static int on_lock(struct loop *l, struct conv_thread *t, const struct profev_event *ev, uint64_t ts)
{
	struct conv *c = &l->c;
	if (!ev->payload)
		return 0;
	struct conv_lock *k = lock_of(l, ev->payload);
	if (!k)
		return PROFEV_E_NOMEM;
	switch (ev->type) {
	case PROFEV_EV_LOCK_WAIT:
		t->wait_lock = ev->payload;
		t->wait_ts = ts;
		t->wait_name = ev->name;
		return 0;
	case PROFEV_EV_LOCK_ACQUIRED: {
		int rc = 0;
		if (t->wait_lock == ev->payload && emitting(t) && c->ops->lock_wait) {
			struct held_wait hw = { t, { t->wait_ts, ts, ev->payload, t->wait_name, 0 }, 0, 0 };
			/* the hold by another thread that began last at or before
			 * the wait's start */
			for (uint32_t i = 0; i < k->cap && i < k->n; i++) {
				uint32_t h = (k->n - 1 - i) & (k->cap - 1);
				if (k->hold[h].tid != t->tid && k->hold[h].from <= hw.w.begin &&
				    (!hw.w.holder || k->hold[h].from >= hw.from)) {
					hw.w.holder = k->hold[h].tid;
					hw.from = k->hold[h].from;
					hw.to = k->hold[h].to;
				}
			}
			if (hw.w.holder && hw.to != UINT64_MAX && hw.to > hw.w.begin) {
				rc = wait_emit(l, t, &hw.w);
			} else {
				if (l->nwaits == HELD_WAITS)
					rc = wait_release(l, 0);
				if (!rc && l->nwaits == l->capwaits &&
				    array_grow((void **)&l->waits, &l->capwaits, sizeof(*l->waits), l->nwaits + 1))
					rc = PROFEV_E_NOMEM;
				if (!rc)
					l->waits[l->nwaits++] = hw;
			}
		}
		t->wait_lock = 0;
		if (k->n == k->cap && k->cap < LOCK_HOLDS) {
			uint32_t cap = k->cap ? 2 * k->cap : 4;
			struct lock_hold *nh = realloc(k->hold, cap * sizeof(*nh));
			if (!nh)
				return PROFEV_E_NOMEM;
			k->hold = nh;
			k->cap = cap;
		}
		uint32_t h = k->n++ & (k->cap - 1);
		k->hold[h] = (struct lock_hold){ ts, UINT64_MAX, t->tid };
		return rc ? rc : waits_update(l, ev->payload, t->tid, ts, 0);
	}
	case PROFEV_EV_LOCK_RELEASED:
		for (uint32_t i = 0; i < k->cap && i < k->n; i++) {
			uint32_t h = (k->n - 1 - i) & (k->cap - 1);
			if (k->hold[h].tid == t->tid && k->hold[h].to == UINT64_MAX) {
				k->hold[h].to = ts;
				break;
			}
		}
		return waits_update(l, ev->payload, t->tid, ts, 1);
	}
	return 0;
}

/* Discontinuous frames of a set: a track of their own beside its marks'. */
static struct conv_thread *spans_of(struct loop *l, uint32_t set)
{
	uint64_t key = 2ull << 32 | set;
	struct conv_thread *t = find_track(l, key);
	if (t)
		return t;
	return new_track(l, key, CONV_FRAMES, set | 1u << 31, profev_reader_string(l->c.r, set));
}

/* The rich events (arguments, flows, async spans, locks, discontinuous
 * frames), apart from the hot path. */
static __attribute__((noinline)) int on_rich(struct loop *l, const struct profev_event *ev)
{
	struct conv *c = &l->c;
	uint64_t ts = ev->ts;
	int frames = ev->type == PROFEV_EV_FRAME_START || ev->type == PROFEV_EV_FRAME_END;
	struct conv_thread *t = frames ? spans_of(l, ev->name) : thread_of(l, ev);
	if (!t)
		return c->out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
	if (ts < t->last_ts)
		ts = t->last_ts;
	int rc = advance(l, t, ts);
	if (rc)
		return rc;
	t->last_ts = ts;
	c->now = ts;
	switch (ev->type) {
	case PROFEV_EV_FRAME_START:
		if (t->depth && (rc = pop(l, t, ts, CONV_EDGE_NORMAL)))
			return rc;
		return push(l, t, ts, ev->name, 0, t->spans++);
	case PROFEV_EV_FRAME_END:
		return t->depth ? pop(l, t, ts, CONV_EDGE_NORMAL) : 0;
	case PROFEV_EV_ARG:
	case PROFEV_EV_FLOW_OUT:
	case PROFEV_EV_FLOW_IN:
		if (!t->depth || t->dropped)
			return 0; /* no zone, or one nested too deep to be shown */
		if (array_grow((void **)&t->args, &t->args_cap, sizeof(*t->args), (uint64_t)t->nargs + 1))
			return PROFEV_E_NOMEM;
		t->args[t->nargs] = *ev;
		/* A string's id stays within the reader's tables, as names do. */
		if (profev_event_arg_kind(ev) == PROFEV_AK_STR && ev->type == PROFEV_EV_ARG &&
		    ev->payload > l->nstr)
			t->args[t->nargs].payload = 0;
		t->nargs++;
		if (!emitting(t) || !c->ops->arg)
			return 0;
		l->part_events++;
		return c->ops->arg(c, t, &t->stack[t->depth - 1], &t->args[t->nargs - 1]);
	case PROFEV_EV_ASYNC_BEGIN:
	case PROFEV_EV_ASYNC_END:
		if (!emitting(t) || !c->ops->async)
			return 0;
		if ((rc = announce(l, t)))
			return rc;
		c->st.events_out++;
		l->part_events++;
		return c->ops->async(c, t, ev);
	default:
		return on_lock(l, t, ev, ts);
	}
}

/* Samples and context switches come from the kernel in their own order,
 * behind or ahead of their thread's zones: each is passed on at its own
 * time when that falls in the window, and moves neither its thread's clock
 * nor its place in the window, which the zones keep. */
static __attribute__((noinline)) int on_kernel_event(struct loop *l, const struct profev_event *ev)
{
	struct conv *c = &l->c;
	int (*pass)(struct conv *, struct conv_thread *, const struct profev_event *) = c->ops->sched;
	if (ev->type == PROFEV_EV_SAMPLE)
		pass = c->ops->sample;
	else if (ev->type == PROFEV_EV_SAMPLE_LOST)
		pass = c->ops->sample_lost;
	if (!pass || ev->ts < l->from || ev->ts > l->to)
		return 0;
	struct conv_thread *t = thread_of(l, ev);
	if (!t)
		return c->out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
	if (!t->selected)
		return 0;
	int rc = announce(l, t);
	if (rc)
		return rc;
	c->now = ev->ts;
	c->st.events_out++;
	l->part_events++;
	struct profev_event e = *ev;
	e.stack = known_stack(l, ev->stack);
	return pass(c, t, &e);
}

/* An argument of its thread's next instant or message, which follows it:
 * kept until then (any other event of the thread forgets it). */
static __attribute__((noinline)) int on_point_arg(struct loop *l, const struct profev_event *ev)
{
	struct conv_thread *t = thread_of(l, ev);
	if (!t)
		return l->c.out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
	if (t->npoint >= CONV_POINT_ARGS_MAX)
		return 0; /* bounded against a hostile trace; no program gives so many */
	if (array_grow((void **)&t->point, &t->point_cap, sizeof(*t->point), (uint64_t)t->npoint + 1))
		return PROFEV_E_NOMEM;
	t->point[t->npoint] = *ev;
	if (profev_event_arg_kind(ev) == PROFEV_AK_STR && ev->payload > l->nstr)
		t->point[t->npoint].payload = 0;
	t->npoint++;
	return 0;
}

static inline int has_category(unsigned type)
{
	return type == PROFEV_EV_ZONE_BEGIN || type == PROFEV_EV_ZONE_END ||
	       type == PROFEV_EV_INSTANT || type == PROFEV_EV_MESSAGE;
}

/* A frame image in the window: its pixels are the reader's, held since
 * its chunk (profev_reader_image()). */
static __attribute__((noinline)) int on_image(struct loop *l, struct conv_thread *t,
					      const struct profev_event *ev)
{
	struct conv *c = &l->c;
	const struct profev_image *img =
		ev->payload <= UINT32_MAX ? profev_reader_image(c->r, (uint32_t)ev->payload) : NULL;
	if (!img) {
		c->st.lost_images++;
		return 0;
	}
	int rc = c->ops->image(c, t, ev, img);
	if (!rc)
		c->st.images++;
	return rc;
}

static inline HOT int on_event(struct loop *l, const struct profev_event *ev)
{
	struct conv *c = &l->c;
	struct conv_thread *t;
	int rc;
	uint64_t ts = ev->ts;
	char tb[32], wb[40];

	if (ts > l->last_ts)
		l->last_ts = ts;
	switch (ev->type) {
	case PROFEV_EV_COUNTER:
		if (ts < l->from || ts > l->to)
			return 0;
		c->now = ts;
		c->st.events_out++;
		l->part_events++;
		return c->ops->counter(c, ev);
	case PROFEV_EV_FRAME_MARK:
		if (!(t = frames_of(l, ev->name)))
			return PROFEV_E_NOMEM;
		break;
	case PROFEV_EV_ZONE_BEGIN:
	case PROFEV_EV_ZONE_END:
	case PROFEV_EV_INSTANT:
	case PROFEV_EV_MESSAGE:
	case PROFEV_EV_LOST:
	case PROFEV_EV_THREAD_NAME:
		if (!(t = thread_of(l, ev)))
			return c->out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
		break;
	case PROFEV_EV_MEM_ALLOC:
	case PROFEV_EV_MEM_FREE:
		return c->ops->memory ? on_memory_event(l, ev) : 0;
	case PROFEV_EV_SAMPLE:
	case PROFEV_EV_SWITCH_OUT:
	case PROFEV_EV_SWITCH_IN:
	case PROFEV_EV_SAMPLE_LOST:
		return on_kernel_event(l, ev);
	case PROFEV_EV_FRAME_IMAGE:
		if (!c->ops->image || (c->opts->flags & PROFEV_CONV_NO_IMAGES))
			return 0;
		if (!(t = thread_of(l, ev)))
			return c->out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
		break;
	case PROFEV_EV_POINT_ARG:
		return on_point_arg(l, ev);
	default:
		if (ev->type >= PROFEV_EV_ARG && ev->type <= PROFEV_EV_FRAME_END)
			return on_rich(l, ev);
		return 0; /* types newer than this reader */
	}

	/* A thread's clock never runs backwards in the output, so nesting holds
	 * even if a trace's timestamps do. */
	if (ts < t->last_ts)
		ts = t->last_ts;
	if ((rc = advance(l, t, ts)))
		return rc;
	t->last_ts = ts;
	c->now = ts;

	if (__builtin_expect(t->npoint != 0, 0) && ev->type != PROFEV_EV_INSTANT &&
	    ev->type != PROFEV_EV_MESSAGE)
		t->npoint = 0; /* no instant or message came for them */
	switch (ev->type) {
	case PROFEV_EV_ZONE_BEGIN:
		return push(l, t, ts, ev->name, (uint32_t)ev->payload, known_stack(l, ev->stack));
	case PROFEV_EV_ZONE_END:
		if (t->dropped) {
			t->dropped--;
			return 0;
		}
		if (!t->depth) {
			const char *name = profev_reader_string(c->r, ev->name);
			c->st.unmatched_ends++;
			warn(l, PROFEV_CONV_W_UNMATCHED_END, "%s (%" PRIu32 "): zone end%s%s%s at %s without a begin: dropped",
			     conv_track_name(t, tb), t->tid, name[0] ? " '" : "", name,
			     name[0] ? "'" : "", when(l, ts, wb));
			return 0;
		}
		if (ev->flags & PROFEV_EVF_UNCLOSED) {
			c->st.unclosed++;
			warn(l, PROFEV_CONV_W_UNCLOSED, "%s (%" PRIu32 "): zone '%s' never closed: closed at %s",
			     conv_track_name(t, tb), t->tid,
			     profev_reader_string(c->r, t->stack[t->depth - 1].name), when(l, ts, wb));
			return pop(l, t, ts, CONV_EDGE_UNCLOSED);
		}
		return pop(l, t, ts, CONV_EDGE_NORMAL);
	case PROFEV_EV_FRAME_MARK:
		if (t->depth && (rc = pop(l, t, ts, CONV_EDGE_NORMAL)))
			return rc;
		return push(l, t, ts, ev->name, 0, ev->frame);
	case PROFEV_EV_THREAD_NAME:
		return 0; /* thread_of() applied the name */
	}
	if (!emitting(t)) {
		t->npoint = 0;
		return 0;
	}
	if ((rc = announce(l, t)))
		return rc;
	c->st.events_out++;
	l->part_events++;
	switch (ev->type) {
	case PROFEV_EV_INSTANT:
		rc = c->ops->instant(c, t, ev);
		t->npoint = 0;
		return rc;
	case PROFEV_EV_MESSAGE: {
		size_t len;
		const char *text = profev_reader_event_text(c->r, l->text_src ? l->text_src : ev, &len);
		rc = c->ops->message(c, t, ev, text, len);
		t->npoint = 0;
		return rc;
	}
	case PROFEV_EV_FRAME_IMAGE:
		return on_image(l, t, ev);
	default:
		return c->ops->lost(c, t, ev);
	}
}

/* Start a new part when this one is about to pass the split size. */
static int maybe_split(struct loop *l)
{
	struct conv *c = &l->c;
	uint64_t size = outbuf_size(&c->out) - c->part_start;
	uint64_t need = size + l->open_zones * CLOSE_COST + PART_TRAILER;
	if (need < c->opts->split_size || !l->part_events)
		return 0;
	int rc = waits_flush(l);
	for (unsigned i = 0; i < l->nthreads && !rc; i++) {
		struct conv_thread *t = l->threads[i];
		if (emitting(t))
			rc = close_all(l, t, t->last_ts, CONV_EDGE_CUT);
	}
	if (rc || (rc = part_close(l)) || (rc = part_open(l)))
		return rc;
	for (unsigned i = 0; i < l->nthreads && !rc; i++) {
		struct conv_thread *t = l->threads[i];
		if (emitting(t))
			rc = open_all(l, t, t->last_ts);
	}
	l->part_events = 0;
	return rc;
}

/* End of input: close what is still open. */
static int finish(struct loop *l)
{
	struct conv *c = &l->c;
	int rc = waits_flush(l);
	char tb[32], wb[40];
	for (unsigned i = 0; i < l->nthreads && !rc; i++) {
		struct conv_thread *t = l->threads[i];
		while (t->depth && !rc) {
			if (t->kind == CONV_FRAMES) {
				/* The last frame runs to the end of the trace. */
				uint64_t end = l->last_ts < l->to ? l->last_ts : l->to;
				c->now = end;
				rc = pop(l, t, end, CONV_EDGE_NORMAL);
				continue;
			}
			if (emitting(t)) {
				c->st.unclosed++;
				warn(l, PROFEV_CONV_W_UNCLOSED, "%s (%" PRIu32 "): zone '%s' never closed: closed at %s",
				     conv_track_name(t, tb), t->tid,
				     profev_reader_string(c->r, t->stack[t->depth - 1].name),
				     when(l, t->last_ts, wb));
			}
			c->now = t->last_ts;
			rc = pop(l, t, t->last_ts, CONV_EDGE_UNCLOSED);
		}
	}
	if (!rc && c->ops->finish)
		rc = c->ops->finish(c);
	return rc;
}

static void summarize(struct loop *l)
{
	static const char *const what[] = {
		[PROFEV_CONV_W_UNMATCHED_END] = "zone ends without a begin",
		[PROFEV_CONV_W_UNCLOSED] = "zones never closed",
		[PROFEV_CONV_W_TOO_DEEP] = "zones nested too deep",
	};
	const struct profev_conv_opts *o = l->c.opts;
	for (int k = 1; k < PROFEV_CONV_W_SUMMARY; k++) {
		if (l->warned[k] <= WARN_DETAILED || !o->warn)
			continue;
		char msg[128];
		snprintf(msg, sizeof(msg), "%" PRIu64 " more %s", l->warned[k] - WARN_DETAILED, what[k]);
		o->warn(o->cb_ctx, PROFEV_CONV_W_SUMMARY, msg);
	}
}

static int check_opts(const struct profev_conv_opts *o, const struct profev_conv_sink *sink,
		      struct profev_error *err)
{
	if (!o || o->format <= 0 || (unsigned)o->format >= NTARGETS) {
		err_set(err, PROFEV_E_ARG, "unknown output format");
		return PROFEV_E_ARG;
	}
	if (!sink || !sink->write) {
		err_set(err, PROFEV_E_ARG, "no output");
		return PROFEV_E_ARG;
	}
	if (o->from_ns > o->to_ns) {
		err_set(err, PROFEV_E_ARG, "time window ends before it starts");
		return PROFEV_E_ARG;
	}
	if (o->format == PROFEV_CONV_PNG && (!o->image_dir || !*o->image_dir)) {
		err_set(err, PROFEV_E_ARG, "png output needs a directory");
		return PROFEV_E_ARG;
	}
	if ((o->flags & PROFEV_CONV_COMPRESS) && o->format != PROFEV_CONV_PERFETTO) {
		err_set(err, PROFEV_E_ARG, "only perfetto output can be compressed");
		return PROFEV_E_ARG;
	}
	if (o->split_size && !targets[o->format]->split_ok) {
		err_set(err, PROFEV_E_ARG, "%s output cannot be split", targets[o->format]->name);
		return PROFEV_E_ARG;
	}
	return 0;
}

/* The first event fixes the trace's start and process (metadata and thread
 * definitions precede the events that use them). */
static void set_base(struct loop *l, uint64_t first_ts, uint32_t first_tid)
{
	struct conv *c = &l->c;
	const struct profev_meta *m = profev_reader_meta(c->r);
	c->base = m && m->mono_start_ns && m->mono_start_ns <= first_ts ? m->mono_start_ns : first_ts;
	c->pid = m && m->pid ? m->pid : first_tid ? profev_reader_thread_pid(c->r, first_tid) : 0;
	if (!c->pid)
		c->pid = 1;
	c->program = m ? m->program : NULL;
	const struct profev_conv_opts *o = c->opts;
	l->from = c->base + o->from_ns;
	if (l->from < c->base)
		l->from = UINT64_MAX;
	l->to = o->to_ns == UINT64_MAX || c->base + o->to_ns < c->base ? UINT64_MAX
								    : c->base + o->to_ns;
	if (!o->from_ns)
		l->from = 0;
	l->based = 1;
	/* The same where the window starts. */
	if (o->from_ns && c->ops->memory) {
		l->snap = l->pending = 1;
		l->snap_ts = l->from;
	}
}

/* A corrupt trace's ids above the reader's tables are taken as none:
 * targets index tables by id, so a hostile one must not size them. */
static __attribute__((noinline)) int on_bad_ids(struct loop *l, const struct profev_event *src)
{
	struct profev_event ev = *src;
	if (ev.name > l->nstr)
		ev.name = 0;
	if (ev.payload > l->nstr && has_category(ev.type))
		ev.payload = 0;
	l->text_src = src;
	int rc = on_event(l, &ev);
	l->text_src = NULL;
	return rc;
}

/* Convert a run of events from the reader; ids in it resolve against the
 * same tables (l->nstr strings). An output error is sticky and makes the
 * next reservation fail, so it is checked after the run, and progress is
 * reported there when the run passed a multiple of PROGRESS_EVERY events. */
static int run_events(struct loop *l, const struct profev_event *ev, size_t n)
{
	struct conv *c = &l->c;
	const struct profev_conv_opts *opts = c->opts;
	uint64_t first = c->st.events_in;
	int split = opts->split_size != 0;
	int rc = 0;
	for (const struct profev_event *end = ev + n; ev < end; ev++) {
		c->st.events_in++;
		c->now = ev->ts;
		if (__builtin_expect(l->pending, 0) && (rc = before_event(l, ev->ts)))
			break;
		if (__builtin_expect(ev->name > l->nstr, 0) ||
		    __builtin_expect(ev->payload > l->nstr && has_category(ev->type), 0))
			rc = on_bad_ids(l, ev);
		else
			rc = on_event(l, ev);
		if (__builtin_expect(rc, 0) || (__builtin_expect(split, 0) && (rc = maybe_split(l))))
			break;
	}
	if (!rc && c->out.err)
		rc = PROFEV_E_IO;
	if (!rc && opts->progress && first / PROGRESS_EVERY != c->st.events_in / PROGRESS_EVERY) {
		c->st.bytes_in = profev_reader_offset(c->r);
		c->st.bytes_out = bytes_out(l);
		opts->progress(opts->cb_ctx, &c->st);
	}
	return rc;
}

int profev_conv_run(struct profev_reader *r, const struct profev_conv_opts *opts,
		    const struct profev_conv_sink *sink, struct profev_conv_stats *stats,
		    struct profev_error *err)
{
	struct profev_error dummy;
	if (!err)
		err = &dummy;
	err_clear(err);
	if (stats)
		memset(stats, 0, sizeof(*stats));
	int rc = check_opts(opts, sink, err);
	if (rc)
		return rc;

	struct loop *l = calloc(1, sizeof(*l));
	if (!l) {
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		return PROFEV_E_NOMEM;
	}
	struct conv *c = &l->c;
	c->ops = targets[opts->format];
	c->opts = opts;
	c->r = r;
	l->sink = sink;
	l->to = UINT64_MAX;
	l->pending = 1;
	if (opts->thread) {
		char *end;
		unsigned long long v = strtoull(opts->thread, &end, 10);
		if (*opts->thread >= '0' && *opts->thread <= '9' && !*end && v && v <= UINT32_MAX)
			l->filter_tid = v;
	}
	if (opts->flags & PROFEV_CONV_COMPRESS) {
		rc = conv_zpack_new(&l->zpack, sink_write, (void *)sink);
		if (!rc)
			rc = outbuf_init(&c->out, OUT_BUFFER, conv_zpack_write, l->zpack);
	} else {
		rc = outbuf_init(&c->out, OUT_BUFFER, sink_write, (void *)sink);
	}
	if (!rc && c->ops->init)
		rc = c->ops->init(c);

	int trace_rc = 0;
	const struct profev_event *evs = NULL;
	size_t nev = 0;
	while (!rc) {
		int n = profev_reader_next_events(r, &evs, &nev);
		if (n <= 0) {
			trace_rc = n;
			break;
		}
		l->gen++;
		l->nstr = profev_reader_string_count(r);
		if (!l->based)
			set_base(l, evs[0].ts, evs[0].tid);
		rc = run_events(l, evs, nev);
	}
	/* Whatever stopped the reading, finish the output: a cut trace still
	 * gives complete files of what was whole. */
	if (!rc && !l->based) {
		set_base(l, 0, 0);
		rc = part_open(l);
	}
	if (!rc)
		rc = finish(l);
	if (!rc && l->in_part)
		rc = part_close(l);
	if (!rc && c->out.err)
		rc = PROFEV_E_IO;
	summarize(l);

	c->st.bytes_in = profev_reader_offset(r);
	c->st.bytes_out = bytes_out(l);
	if (stats)
		*stats = c->st;
	if (rc == PROFEV_E_IO)
		err_set(err, rc, "unable to write the output");
	else if (rc == PROFEV_E_NOMEM)
		err_set(err, rc, "out of memory");
	else if (rc)
		err_set(err, rc, "conversion failed: %s", profev_strerror(rc));
	else if (trace_rc < 0) {
		*err = *profev_reader_error(r);
		rc = trace_rc;
	}
	if (c->ops->fini)
		c->ops->fini(c);
	outbuf_free(&c->out);
	conv_zpack_free(l->zpack);
	free_tracks(l);
	free(l);
	return rc;
}
