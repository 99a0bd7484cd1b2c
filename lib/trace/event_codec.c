/* The EVENTS chunk body (formats/trace.md, "Events chunk body").
 *
 * Events are split into columns so zstd sees long runs of alike bytes, and
 * most fields are predicted from what came before on the same thread, so
 * that the common case stores only a small time residual:
 *   - threads come in runs (a recorder receives per-thread batches);
 *   - an event's type, name and time delta are predicted from what followed
 *     the thread's previous event (its type and name) the last time it was
 *     seen: game loops repeat the same sequence of zones every frame, so
 *     mostly only the jitter of the durations is left to store;
 *   - a category is predicted from the last category seen with that name;
 *   - flags are predicted like the type; the frame number stays; callstack
 *     ids are zero.
 * An event that differs from its predictions in any of these is an
 * exception: one sparse column says which events are exceptions and which
 * fields differ, and their values follow in one dense column. The decoder's
 * common path is thus one comparison, a varint and the record's store.
 * Encoder and decoder run the same predictors, reset at every chunk, so each
 * chunk decodes on its own. */
#include <stdlib.h>
#include "trace/trace_internal.h"

enum {
	COL_EXCEPT,  /* (gap, field mask) pairs: the events that break a prediction */
	COL_RUNS,    /* (thread index, run length) pairs */
	COL_TS,      /* zigzag (delta per thread - predicted delta), every event */
	COL_FIELDS,  /* the exceptions' values, in mask bit order */
	COL_VALUE,   /* payload of types without a category, not doubles */
	COL_DOUBLE,  /* 8 bytes little-endian per DOUBLE payload */
	COL_ADDR,    /* zigzag address delta per thread, memory events */
	COL_TEXT,    /* length-prefixed message texts */
};

/* Exception mask bits. */
enum {
	X_TYPE = 1,      /* type != predicted: varint type */
	X_NAME = 2,      /* name != predicted: varint name */
	X_CATEGORY = 4,  /* category != predicted: varint payload */
	X_FRAME = 8,     /* frame changed: zigzag delta */
	X_STACK = 16,    /* stack id: varint */
	X_FLAGS = 32,    /* flags != predicted: varint flags */
	X_ALL = 63,
};

#define PRED_BITS 12
#define PRED_SIZE (1u << PRED_SIZE_SHIFT)
#define PRED_SIZE_SHIFT PRED_BITS
#define PRED_MASK (PRED_SIZE - 1)

struct thread_state {
	uint32_t tid;
	uint32_t key;    /* hash of the previous event's type and name */
	uint64_t ts, frame, addr;
};

/* What followed a given (type, name) last time on some thread. */
struct follow {
	uint64_t delta;   /* time from it to the next event */
	uint32_t name;
	uint32_t key;     /* next_key(type, name), kept for the usual case */
	uint8_t type;
	uint8_t flags;
	uint8_t kind;     /* K_* of type */
};

/* What a type's event carries besides the time, kept with the prediction. */
enum {
	K_CATEGORY = 1,  /* has_category() */
	K_MEMORY = 2,    /* is_memory(): an address instead of a frame */
	K_TEXT = 4,      /* a MESSAGE: a text */
	K_THREAD_NAME = 8, /* counted, so a reader need not look for them */
};

/* The follow table as the encoder keeps it: type, name and flags in one
 * word, so that the usual case is one comparison. Same slots as struct
 * follow, so it predicts exactly what the decoder predicts. */
struct sig_follow {
	uint64_t delta;
	uint64_t sig;
	uint32_t key;     /* next_key() of the type and name in sig */
};

static inline uint64_t event_sig(uint32_t name, unsigned type, unsigned flags)
{
	return (uint64_t)name | (uint64_t)type << 32 | (uint64_t)flags << 40;
}

struct predictors {
	union {
		struct follow next[PRED_SIZE];          /* the decoder's */
		struct sig_follow sig_next[PRED_SIZE];  /* the encoder's */
	};
	uint64_t category[PRED_SIZE];
};

static inline int has_category(uint8_t type)
{
	return type == PROFEV_EV_ZONE_BEGIN || type == PROFEV_EV_ZONE_END || type == PROFEV_EV_INSTANT ||
	       type == PROFEV_EV_MESSAGE;
}

static inline int is_memory(uint8_t type)
{
	return type == PROFEV_EV_MEM_ALLOC || type == PROFEV_EV_MEM_FREE;
}

static inline uint8_t kind_of(uint8_t type)
{
	return (uint8_t)((has_category(type) ? K_CATEGORY : 0) | (is_memory(type) ? K_MEMORY : 0) |
			 (type == PROFEV_EV_MESSAGE ? K_TEXT : 0) |
			 (type == PROFEV_EV_THREAD_NAME ? K_THREAD_NAME : 0));
}

static inline uint32_t follow_slot(uint32_t key)
{
	return (key * 2654435761u) >> (32 - PRED_BITS);
}

static inline uint32_t next_key(uint8_t type, uint32_t name)
{
	return (name * 0x9E3779B1u) ^ ((uint32_t)type << 24) ^ type;
}

static inline uint32_t cat_slot(uint32_t name)
{
	return (name * 2654435761u) >> (32 - PRED_BITS);
}

/* ---- encoding ---- */

/* The chunk's thread table: states in order of first appearance. */
struct thread_map {
	struct thread_state *states;
	struct tid_index index;
	uint32_t count, cap;
};

static int map_init(struct thread_map *m)
{
	m->cap = 32;
	m->states = malloc(m->cap * sizeof(*m->states));
	return m->states && !tid_index_init(&m->index) ? 0 : -1;
}

/* Index of tid in the chunk's thread table, adding it; -1 on no memory. */
static int64_t map_index(struct thread_map *m, uint32_t tid, uint64_t base_ts)
{
	uint32_t *s = tid_index_slot(&m->index, m->states, sizeof(*m->states), tid);
	if (*s)
		return *s - 1;
	if (m->count == m->cap) {
		struct thread_state *st = realloc(m->states, 2 * m->cap * sizeof(*st));
		if (!st)
			return -1;
		m->states = st;
		m->cap *= 2;
	}
	m->states[m->count] = (struct thread_state){ tid, 0, base_ts, 0, 0 };
	*s = ++m->count;
	if (tid_index_added(&m->index, m->states, sizeof(*m->states), m->count))
		return -1;
	return m->count - 1;
}

/* Worst case bytes per event and column, reserved for a whole chunk up
 * front, so adding an event needs no capacity checks. */
static const size_t worst[EVENT_COLUMNS] = { 11, 10, 10, 45, 10, 8, 10, 0 };

/* Events are coded into the columns as they arrive, so the writer keeps no
 * 40-byte records and reads nothing twice. */
/* What coding an event changes: the columns' write positions, the current
 * thread's state (in a run), the predictors, the event count and where the
 * last exception was. A batch copies it into a local so that the compiler
 * keeps it in registers instead of reloading it after each column store. */
struct coder {
	uint8_t *p[EVENT_COLUMNS];
	struct thread_state cur;
	struct predictors *pred;
	uint32_t i, last_except;
};

struct event_encoder {
	struct coder c;
	struct buf cols[EVENT_COLUMNS];
	struct thread_map map;
	struct thread_state *st;       /* where c.cur belongs, NULL before the first */
	uint64_t base_ts;
	uint32_t capacity;
	uint32_t run_index, run_len, last_tid;
};

static void encoder_reset(struct event_encoder *e)
{
	for (int c = 0; c < EVENT_COLUMNS; c++) {
		buf_reset(&e->cols[c]);
		e->c.p[c] = e->cols[c].data;
	}
	tid_index_clear(&e->map.index);
	e->map.count = 0;
	memset(e->c.pred, 0, sizeof(*e->c.pred));
	e->st = NULL;
	e->c.i = e->run_len = e->c.last_except = e->last_tid = 0;
	e->run_index = UINT32_MAX;
}

struct event_encoder *encoder_new(uint32_t capacity)
{
	struct event_encoder *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->capacity = capacity;
	e->c.pred = malloc(sizeof(*e->c.pred));
	int bad = !e->c.pred || map_init(&e->map);
	for (int c = 0; c < EVENT_COLUMNS && !bad; c++)
		bad = buf_reserve(&e->cols[c], worst[c] * (size_t)capacity + 16) != 0;
	if (bad) {
		encoder_free(e);
		return NULL;
	}
	encoder_reset(e);
	return e;
}

void encoder_free(struct event_encoder *e)
{
	if (!e)
		return;
	for (int c = 0; c < EVENT_COLUMNS; c++)
		buf_free(&e->cols[c]);
	tid_index_free(&e->map.index);
	free(e->map.states);
	free(e->c.pred);
	free(e);
}

uint32_t encoder_count(const struct event_encoder *e)
{
	return e->c.i;
}

size_t encoder_text_bytes(const struct event_encoder *e)
{
	return e->cols[COL_TEXT].len;
}

static inline void coder_load(struct coder *c, const struct event_encoder *enc)
{
	*c = enc->c;
}

static inline void coder_store(const struct coder *c, struct event_encoder *enc)
{
	enc->run_len += c->i - enc->c.i;
	enc->c = *c;
}

/* Code one event of the current thread (its text, if any, is stored).
 * The fields are read into locals first: stores into the byte columns may
 * alias anything, and would make the compiler read them again. */
static inline __attribute__((always_inline)) void code_event(struct coder *c, const struct profev_event *e)
{
	const uint64_t ts = e->ts, payload = e->payload, frame = e->frame;
	const uint32_t name = e->name, stack = e->stack;
	const unsigned type = e->type, flags = e->flags;
	const uint64_t sig = event_sig(name, type, flags);
	struct thread_state *cur = &c->cur;
	uint32_t i = c->i++;
	struct sig_follow *f = &c->pred->sig_next[follow_slot(cur->key)];
	const uint64_t predicted = f->sig, delta = ts - cur->ts;
	c->p[COL_TS] = put_varint(c->p[COL_TS], zigzag((int64_t)(delta - f->delta)));
	f->delta = delta;
	f->sig = sig;
	cur->ts = ts;
	cur->key = f->key = next_key((uint8_t)type, name);

	unsigned mask = 0;
	if (unlikely(predicted != sig)) {
		uint64_t d = predicted ^ sig;
		mask = ((uint32_t)d ? X_NAME : 0) | ((d >> 32) & 0xff ? X_TYPE : 0) | (d >> 40 ? X_FLAGS : 0);
	}
	if (flags & PROFEV_EVF_DOUBLE) {
		put_le64(c->p[COL_DOUBLE], payload);
		c->p[COL_DOUBLE] += 8;
	} else if (likely(has_category((uint8_t)type))) {
		uint64_t *category = &c->pred->category[cat_slot(name)];
		if (unlikely(*category != payload)) {
			mask |= X_CATEGORY;
			*category = payload;
		}
	} else {
		c->p[COL_VALUE] = put_varint(c->p[COL_VALUE], payload);
	}
	uint64_t frame_delta = 0;
	if (unlikely(is_memory((uint8_t)type))) {
		c->p[COL_ADDR] = put_varint(c->p[COL_ADDR], zigzag((int64_t)(frame - cur->addr)));
		cur->addr = frame;
	} else if (unlikely(frame != cur->frame)) {
		frame_delta = zigzag((int64_t)(frame - cur->frame));
		cur->frame = frame;
		mask |= X_FRAME;
	}
	if (unlikely(stack))
		mask |= X_STACK;
	if (unlikely(mask)) {
		uint8_t *x = c->p[COL_EXCEPT], *v = c->p[COL_FIELDS];
		x = put_varint(x, i - c->last_except);
		*x++ = (uint8_t)mask;
		c->last_except = i + 1;
		if (mask & X_TYPE)
			v = put_varint(v, type);
		if (mask & X_NAME)
			v = put_varint(v, name);
		if (mask & X_CATEGORY)
			v = put_varint(v, payload);
		if (mask & X_FRAME)
			v = put_varint(v, frame_delta);
		if (mask & X_STACK)
			v = put_varint(v, stack);
		if (mask & X_FLAGS)
			v = put_varint(v, flags);
		c->p[COL_EXCEPT] = x;
		c->p[COL_FIELDS] = v;
	}
}

static __attribute__((noinline)) void code_event_apart(struct coder *c, const struct profev_event *e)
{
	code_event(c, e);
}

/* Make tid the current thread, ending the previous run. 0 or NOMEM. */
static int switch_thread(struct event_encoder *enc, uint32_t tid)
{
	if (enc->st)
		*enc->st = enc->c.cur; /* before map_index, which may move the states */
	int64_t found = map_index(&enc->map, tid, enc->base_ts);
	if (found < 0)
		return PROFEV_E_NOMEM;
	uint32_t ti = (uint32_t)found;
	enc->st = &enc->map.states[ti];
	enc->c.cur = *enc->st;
	enc->last_tid = tid;
	if (ti != enc->run_index) {
		if (enc->run_len) {
			enc->c.p[COL_RUNS] = put_varint(enc->c.p[COL_RUNS], enc->run_index);
			enc->c.p[COL_RUNS] = put_varint(enc->c.p[COL_RUNS], enc->run_len);
		}
		enc->run_index = ti;
		enc->run_len = 0;
	}
	return 0;
}

static inline int enter(struct event_encoder *enc, const struct profev_event *e)
{
	if (unlikely(!enc->c.i))
		enc->base_ts = e->ts;
	if (unlikely(!enc->st || e->tid != enc->last_tid))
		return switch_thread(enc, e->tid);
	return 0;
}

int encoder_add(struct event_encoder *enc, const struct profev_event *e, const char *text, size_t len)
{
	if (unlikely(enc->c.i == enc->capacity))
		return PROFEV_E_STATE;
	if (enter(enc, e))
		return PROFEV_E_NOMEM;
	if (unlikely(e->type == PROFEV_EV_MESSAGE) && buf_bytes(&enc->cols[COL_TEXT], text, len))
		return PROFEV_E_NOMEM;
	/* One event: in place, copying the state would cost more than it saves */
	code_event(&enc->c, e);
	enc->run_len++;
	return enc->c.i == enc->capacity;
}

int64_t encoder_add_run(struct event_encoder *enc, const struct profev_event *ev, uint32_t n)
{
	if (n > enc->capacity - enc->c.i)
		n = enc->capacity - enc->c.i;
	if (!n)
		return 0;
	if (enter(enc, ev))
		return PROFEV_E_NOMEM;
	struct coder c;
	coder_load(&c, enc);
	const uint32_t tid = ev[0].tid;
	uint32_t k = 0;
	for (; k < n; k++) {
		const struct profev_event *e = &ev[k];
		if (unlikely(e->tid != tid || e->type == PROFEV_EV_MESSAGE || e->type == PROFEV_EV_LOST))
			break;
		code_event(&c, e);
	}
	coder_store(&c, enc);
	return k;
}

/*
 * The usual case of a plain event costs a comparison of its type and name
 * with the prediction, one of its category, and the time residual: the
 * rest of the coder's state stays in registers. Anything else goes the
 * whole way (code_event_apart), which keeps the same predictors.
 */
int64_t encoder_add_plain(struct event_encoder *enc, uint32_t tid, uint64_t frame,
			  const struct plain_event *ev, uint32_t n)
{
	if (n > enc->capacity - enc->c.i)
		n = enc->capacity - enc->c.i;
	if (!n)
		return 0;
	struct profev_event first = { .ts = ev[0].ts, .tid = tid };
	if (enter(enc, &first))
		return PROFEV_E_NOMEM;
	struct coder c;
	coder_load(&c, enc);
	struct predictors *pred = c.pred;
	uint8_t *ts_col = c.p[COL_TS];
	uint64_t ts = c.cur.ts;
	uint32_t key = c.cur.key, i = c.i;
	for (uint32_t k = 0; k < n; k++) {
		const struct plain_event *e = &ev[k];
		struct sig_follow *f = &pred->sig_next[follow_slot(key)];
		const uint64_t sig = event_sig(e->name, e->type, 0);
		if (likely(f->sig == sig && pred->category[cat_slot(e->name)] == e->category &&
			   frame == c.cur.frame)) {
			uint64_t delta = e->ts - ts;
			ts_col = put_varint(ts_col, zigzag((int64_t)(delta - f->delta)));
			f->delta = delta;
			ts = e->ts;
			key = f->key;
			i++;
			continue;
		}
		struct profev_event whole = {
			.ts = e->ts, .frame = frame, .payload = e->category, .tid = tid,
			.name = e->name, .type = (uint8_t)e->type,
		};
		c.p[COL_TS] = ts_col;
		c.cur.ts = ts;
		c.cur.key = key;
		c.i = i;
		code_event_apart(&c, &whole);
		ts_col = c.p[COL_TS];
		ts = c.cur.ts;
		key = c.cur.key;
		i = c.i;
	}
	c.p[COL_TS] = ts_col;
	c.cur.ts = ts;
	c.cur.key = key;
	c.i = i;
	coder_store(&c, enc);
	return n;
}

int encoder_finish(struct event_encoder *enc, struct buf *out)
{
	int rc = PROFEV_E_NOMEM;
	if (enc->run_len) {
		enc->c.p[COL_RUNS] = put_varint(enc->c.p[COL_RUNS], enc->run_index);
		enc->c.p[COL_RUNS] = put_varint(enc->c.p[COL_RUNS], enc->run_len);
	}
	for (int c = 0; c < COL_TEXT; c++)
		enc->cols[c].len = (size_t)(enc->c.p[c] - enc->cols[c].data);
	buf_reset(out);
	if (buf_varint(out, enc->c.i) || buf_varint(out, enc->map.count))
		goto out;
	for (uint32_t t = 0; t < enc->map.count; t++)
		if (buf_varint(out, enc->map.states[t].tid))
			goto out;
	if (buf_varint(out, enc->base_ts))
		goto out;
	for (int c = 0; c < EVENT_COLUMNS; c++)
		if (buf_bytes(out, enc->cols[c].data, enc->cols[c].len))
			goto out;
	rc = 0;
out:
	encoder_reset(enc);
	return rc;
}

/* ---- decoding ---- */

/* Index of the next exception after reading its gap: UINT64_MAX if none. */
static uint64_t next_exception(struct cursor *c, uint64_t from)
{
	if (c->p >= c->end)
		return UINT64_MAX;
	uint64_t at = from + cur_varint(c);
	return at < from ? (c->bad = 1, UINT64_MAX) : at;
}

int events_decode(const uint8_t *body, size_t len, uint32_t n, struct profev_event *out,
		  struct event_text *texts, uint32_t *ntexts, uint32_t *nthread_names, const char **why)
{
	struct cursor c = { body, body + len, 0 };
	struct cursor col[EVENT_COLUMNS];
	struct thread_state *states = NULL;
	struct predictors *pred = NULL;
	int rc = PROFEV_E_CORRUPT;

	*ntexts = 0;
	if (cur_varint(&c) != n) {
		*why = "event count differs from the chunk header";
		return rc;
	}
	uint64_t nthreads = cur_varint(&c);
	/* A thread is at least its tid's byte: the count sizes the states. */
	if (c.bad || nthreads > n || (n && !nthreads) || nthreads > (uint64_t)(c.end - c.p)) {
		*why = "bad thread count";
		return rc;
	}
	states = malloc((nthreads ? nthreads : 1) * sizeof(*states));
	pred = calloc(1, sizeof(*pred));
	if (!states || !pred) {
		free(states);
		free(pred);
		*why = "out of memory";
		return PROFEV_E_NOMEM;
	}
	for (uint64_t t = 0; t < nthreads; t++) {
		uint64_t tid = cur_varint(&c);
		if (tid > UINT32_MAX)
			c.bad = 1;
		states[t] = (struct thread_state){ (uint32_t)tid, 0, 0, 0, 0 };
	}
	uint64_t base_ts = cur_varint(&c);
	for (uint64_t t = 0; t < nthreads; t++)
		states[t].ts = base_ts;
	for (int k = 0; k < EVENT_COLUMNS; k++) {
		uint64_t clen = cur_varint(&c);
		const uint8_t *start = cur_take(&c, clen);
		col[k] = (struct cursor){ start, start ? start + clen : NULL, c.bad };
	}
	if (c.bad || c.p != c.end) {
		*why = c.bad ? "column table runs past the end of the body" : "bytes after the last column";
		goto out;
	}
	/* The columns are read through local cursors and each event is built in
	 * a local and stored once: stores through the output (which holds byte
	 * fields) would otherwise make the compiler reload every cursor. */
	struct cursor except = col[COL_EXCEPT], runs = col[COL_RUNS], tsc = col[COL_TS];
	struct cursor fields = col[COL_FIELDS], values = col[COL_VALUE];
	struct cursor doubles = col[COL_DOUBLE], addrs = col[COL_ADDR], text = col[COL_TEXT];
	uint64_t except_at = next_exception(&except, 0);
	uint32_t ntext = 0, thread_names = 0;
	uint64_t run_left = 0;
	/* The current thread's state lives in a local for the length of its run. */
	struct thread_state *st = NULL, cur = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		struct profev_event e;
		if (unlikely(run_left == 0)) {
			uint64_t ti = cur_varint(&runs);
			run_left = cur_varint(&runs);
			if (runs.bad || ti >= nthreads || run_left == 0 || run_left > n - i) {
				*why = "thread runs do not cover the events";
				goto out;
			}
			if (st)
				*st = cur;
			st = &states[ti];
			cur = *st;
		}
		run_left--;
		struct follow *f = &pred->next[follow_slot(cur.key)];
		unsigned mask = 0;
		uint64_t category = 0, stack = 0, flags = f->flags;
		if (unlikely(i == except_at)) {
			mask = cur_u8(&except);
			if (!mask || mask > X_ALL) {
				*why = "bad exception mask";
				goto out;
			}
			uint64_t type = mask & X_TYPE ? cur_varint(&fields) : f->type;
			uint64_t name = mask & X_NAME ? cur_varint(&fields) : f->name;
			category = mask & X_CATEGORY ? cur_varint(&fields) : 0;
			uint64_t frame_delta = mask & X_FRAME ? cur_varint(&fields) : 0;
			stack = mask & X_STACK ? cur_varint(&fields) : 0;
			flags = mask & X_FLAGS ? cur_varint(&fields) : flags;
			if (type > 0xff || name > UINT32_MAX || stack > UINT32_MAX || flags > 0xff) {
				*why = "field value out of range";
				goto out;
			}
			f->type = (uint8_t)type;
			f->name = (uint32_t)name;
			f->flags = (uint8_t)flags;
			f->key = next_key(f->type, f->name);
			f->kind = kind_of(f->type);
			if (mask & X_FRAME) {
				if (f->kind & K_MEMORY) {
					*why = "frame change on a memory event";
					goto out;
				}
				cur.frame += (uint64_t)unzigzag(frame_delta);
			}
			if ((mask & X_CATEGORY) && (!(f->kind & K_CATEGORY) || (flags & PROFEV_EVF_DOUBLE))) {
				*why = "category on a type without one";
				goto out;
			}
			except_at = next_exception(&except, i + 1);
		}
		f->delta += (uint64_t)unzigzag(cur_varint(&tsc));
		cur.ts += f->delta;
		const unsigned kind = f->kind;
		e.ts = cur.ts;
		e.type = f->type;
		e.name = f->name;
		e.flags = (uint8_t)flags;
		e.stack = (uint32_t)stack;
		e.reserved = 0;
		e.tid = cur.tid;
		cur.key = f->key;
		if (unlikely(flags & PROFEV_EVF_DOUBLE)) {
			const uint8_t *d = cur_take(&doubles, 8);
			e.payload = d ? get_le64(d) : 0;
		} else if (likely(kind & K_CATEGORY)) {
			uint64_t *pc = &pred->category[cat_slot(e.name)];
			if (mask & X_CATEGORY)
				*pc = category;
			e.payload = *pc;
		} else {
			e.payload = cur_varint(&values);
		}
		if (unlikely(kind & K_MEMORY)) {
			cur.addr += (uint64_t)unzigzag(cur_varint(&addrs));
			e.addr = cur.addr;
		} else {
			e.frame = cur.frame;
		}
		if (unlikely(kind & K_THREAD_NAME)) {
			thread_names++;
		} else if (unlikely(kind & K_TEXT)) {
			uint64_t tlen = cur_varint(&text);
			const uint8_t *t = cur_take(&text, tlen);
			if (!t) {
				*why = "message text runs past its column";
				goto out;
			}
			texts[ntext++] = (struct event_text){ (uint32_t)(t - body), (uint32_t)tlen };
		}
		out[i] = e;
	}
	col[COL_EXCEPT] = except, col[COL_RUNS] = runs, col[COL_TS] = tsc, col[COL_FIELDS] = fields;
	col[COL_VALUE] = values, col[COL_DOUBLE] = doubles, col[COL_ADDR] = addrs, col[COL_TEXT] = text;
	for (int k = 0; k < EVENT_COLUMNS; k++) {
		const struct cursor *d = &col[k];
		if (d->bad || d->p != d->end) {
			*why = d->bad ? "column runs past its end" : "column has bytes left over";
			goto out;
		}
	}
	if (except_at != UINT64_MAX) {
		*why = "exception past the last event";
		goto out;
	}
	*ntexts = ntext;
	*nthread_names = thread_names;
	rc = 0;
out:
	free(states);
	free(pred);
	return rc;
}
