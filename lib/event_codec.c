/* The EVENTS chunk body (formats/trace.md, "Events chunk").
 *
 * Events are split into columns so zstd sees long runs of alike bytes, and
 * most fields are predicted from what came before on the same thread, so
 * that the common case stores nothing at all:
 *   - threads come in runs (a recorder receives per-thread batches);
 *   - an event's type, name and time delta are predicted from what followed
 *     the thread's previous event (its type and name) the last time it was
 *     seen: game loops repeat the same sequence of zones every frame, so
 *     mostly only the jitter of the durations is left to store;
 *   - a category is predicted from the last category seen with that name;
 *   - frame numbers, callstack ids and flags are mostly unchanged or zero.
 * Predicted-or-zero columns are sparse: (gap, value) pairs for the entries
 * that are not zero. Encoder and decoder run the same predictors, reset at
 * every chunk, so each chunk decodes on its own. */
#include <stdlib.h>
#include "internal.h"

enum {
	COL_TYPE,    /* sparse: 0 if predicted, else type + 1 */
	COL_RUNS,    /* (thread index, run length) pairs */
	COL_TS,      /* dense: zigzag (delta per thread - predicted delta) */
	COL_NAME,    /* sparse: 0 if predicted, else name + 1 */
	COL_CAT,     /* sparse: 0 if predicted, else category + 1 (category types) */
	COL_VALUE,   /* dense: payload of other types, not doubles */
	COL_DOUBLE,  /* dense: 8 bytes little-endian per DOUBLE payload */
	COL_FRAME,   /* sparse: zigzag frame delta per thread */
	COL_ADDR,    /* dense: zigzag address delta per thread, memory events */
	COL_STACK,   /* sparse: callstack id */
	COL_FLAGS,   /* sparse: flags */
	COL_TEXT,    /* length-prefixed message texts */
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
	uint8_t type;
};

struct predictors {
	struct follow next[PRED_SIZE];
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

struct sparse_out {
	uint8_t *p;
	uint64_t last; /* index after the previous non-zero entry */
};

static inline void sparse_put(struct sparse_out *s, uint64_t index, uint64_t value)
{
	if (value) {
		s->p = put_varint(s->p, index - s->last);
		s->p = put_varint(s->p, value);
		s->last = index + 1;
	}
}

struct thread_map {
	struct thread_state *states;
	uint32_t *slots; /* index + 1, 0 = empty */
	uint32_t mask, count, cap;
};

static int map_init(struct thread_map *m)
{
	m->mask = 63;
	m->cap = 32;
	m->slots = calloc(m->mask + 1, sizeof(*m->slots));
	m->states = malloc(m->cap * sizeof(*m->states));
	return m->slots && m->states ? 0 : -1;
}

static uint32_t *map_slot(const struct thread_map *m, uint32_t tid)
{
	uint32_t s = (tid * 2654435761u) & m->mask;
	while (m->slots[s] && m->states[m->slots[s] - 1].tid != tid)
		s = (s + 1) & m->mask;
	return &m->slots[s];
}

/* Index of tid in the chunk's thread table, adding it; -1 on no memory. */
static int64_t map_index(struct thread_map *m, uint32_t tid, uint64_t base_ts)
{
	uint32_t *s = map_slot(m, tid);
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
	if (m->count * 2 > m->mask) {
		uint32_t mask = m->mask * 2 + 1;
		uint32_t *slots = calloc((size_t)mask + 1, sizeof(*slots));
		if (!slots)
			return -1;
		free(m->slots);
		m->slots = slots;
		m->mask = mask;
		for (uint32_t i = 0; i < m->count; i++)
			*map_slot(m, m->states[i].tid) = i + 1;
	}
	return m->count - 1;
}

int events_encode(struct buf *out, const struct profev_event *ev, uint32_t n,
		  const struct event_text *texts, const uint8_t *text_arena,
		  struct buf cols[EVENT_COLUMNS])
{
	/* Worst case bytes per event and column, so the loop needs no checks. */
	static const size_t worst[EVENT_COLUMNS] = { 12, 10, 10, 15, 20, 10, 8, 20, 10, 15, 12, 0 };
	uint64_t base_ts = n ? ev[0].ts : 0;
	struct thread_map map = { 0 };
	struct predictors *pred = calloc(1, sizeof(*pred));
	int rc = PROFEV_E_NOMEM;

	for (uint32_t i = 0; i < n; i++)
		if (ev[i].ts < base_ts)
			base_ts = ev[i].ts;
	if (!pred || map_init(&map))
		goto out;
	for (int c = 0; c < EVENT_COLUMNS; c++) {
		buf_reset(&cols[c]);
		if (buf_reserve(&cols[c], worst[c] * n + 16))
			goto out;
	}

	uint8_t *runs_p = cols[COL_RUNS].data, *ts_p = cols[COL_TS].data;
	struct sparse_out type_s = { cols[COL_TYPE].data, 0 };
	uint8_t *value_p = cols[COL_VALUE].data, *double_p = cols[COL_DOUBLE].data;
	uint8_t *addr_p = cols[COL_ADDR].data;
	struct sparse_out name_s = { cols[COL_NAME].data, 0 }, cat_s = { cols[COL_CAT].data, 0 };
	struct sparse_out frame_s = { cols[COL_FRAME].data, 0 }, stack_s = { cols[COL_STACK].data, 0 };
	struct sparse_out flags_s = { cols[COL_FLAGS].data, 0 };
	uint32_t run_index = UINT32_MAX, run_len = 0, ntext = 0;
	uint32_t last_tid = 0;
	struct thread_state *st = NULL;

	for (uint32_t i = 0; i < n; i++) {
		const struct profev_event *e = &ev[i];
		if (!st || e->tid != last_tid) {
			int64_t found = map_index(&map, e->tid, base_ts);
			if (found < 0)
				goto out;
			uint32_t ti = (uint32_t)found;
			st = &map.states[ti];
			last_tid = e->tid;
			if (ti != run_index) {
				if (run_len) {
					runs_p = put_varint(runs_p, run_index);
					runs_p = put_varint(runs_p, run_len);
				}
				run_index = ti;
				run_len = 0;
			}
		}
		run_len++;
		uint8_t type = e->type;
		struct follow *f = &pred->next[follow_slot(st->key)];
		uint64_t delta = e->ts - st->ts;
		sparse_put(&type_s, i, f->type == type ? 0 : (uint64_t)type + 1);
		sparse_put(&name_s, i, f->name == e->name ? 0 : (uint64_t)e->name + 1);
		ts_p = put_varint(ts_p, zigzag((int64_t)(delta - f->delta)));
		*f = (struct follow){ delta, e->name, type };
		st->ts = e->ts;
		st->key = next_key(type, e->name);

		if (e->flags & PROFEV_EVF_DOUBLE) {
			put_le64(double_p, e->payload);
			double_p += 8;
		} else if (has_category(type)) {
			uint64_t *pc = &pred->category[cat_slot(e->name)];
			sparse_put(&cat_s, i, *pc == e->payload ? 0 : e->payload + 1);
			*pc = e->payload;
		} else {
			value_p = put_varint(value_p, e->payload);
		}
		if (is_memory(type)) {
			addr_p = put_varint(addr_p, zigzag((int64_t)(e->addr - st->addr)));
			st->addr = e->addr;
		} else {
			sparse_put(&frame_s, i, zigzag((int64_t)(e->frame - st->frame)));
			st->frame = e->frame;
		}
		sparse_put(&stack_s, i, e->stack);
		sparse_put(&flags_s, i, e->flags);
		ntext += type == PROFEV_EV_MESSAGE;
	}
	if (run_len) {
		runs_p = put_varint(runs_p, run_index);
		runs_p = put_varint(runs_p, run_len);
	}
	cols[COL_TYPE].len = (size_t)(type_s.p - cols[COL_TYPE].data);
	cols[COL_RUNS].len = (size_t)(runs_p - cols[COL_RUNS].data);
	cols[COL_TS].len = (size_t)(ts_p - cols[COL_TS].data);
	cols[COL_NAME].len = (size_t)(name_s.p - cols[COL_NAME].data);
	cols[COL_CAT].len = (size_t)(cat_s.p - cols[COL_CAT].data);
	cols[COL_VALUE].len = (size_t)(value_p - cols[COL_VALUE].data);
	cols[COL_DOUBLE].len = (size_t)(double_p - cols[COL_DOUBLE].data);
	cols[COL_FRAME].len = (size_t)(frame_s.p - cols[COL_FRAME].data);
	cols[COL_ADDR].len = (size_t)(addr_p - cols[COL_ADDR].data);
	cols[COL_STACK].len = (size_t)(stack_s.p - cols[COL_STACK].data);
	cols[COL_FLAGS].len = (size_t)(flags_s.p - cols[COL_FLAGS].data);
	for (uint32_t i = 0; i < ntext; i++)
		if (buf_bytes(&cols[COL_TEXT], text_arena + texts[i].offset, texts[i].len))
			goto out;

	buf_reset(out);
	if (buf_varint(out, n) || buf_varint(out, map.count))
		goto out;
	for (uint32_t t = 0; t < map.count; t++)
		if (buf_varint(out, map.states[t].tid))
			goto out;
	if (buf_varint(out, base_ts))
		goto out;
	for (int c = 0; c < EVENT_COLUMNS; c++)
		if (buf_bytes(out, cols[c].data, cols[c].len))
			goto out;
	rc = 0;
out:
	free(pred);
	free(map.slots);
	free(map.states);
	return rc;
}

/* ---- decoding ---- */

struct sparse_in {
	struct cursor c;
	uint64_t next;  /* index of the next non-zero entry, UINT64_MAX if none */
	uint64_t value;
};

static void sparse_advance(struct sparse_in *s, uint64_t from)
{
	if (s->c.p >= s->c.end) {
		s->next = UINT64_MAX;
		return;
	}
	uint64_t gap = cur_varint(&s->c);
	s->value = cur_varint(&s->c);
	s->next = from + gap;
	if (s->next < from || s->value == 0)
		s->c.bad = 1, s->next = UINT64_MAX; /* overflowing gap, or a stored zero */
}

static inline uint64_t sparse_get(struct sparse_in *s, uint64_t i)
{
	if (likely(s->next != i))
		return 0;
	uint64_t v = s->value;
	sparse_advance(s, i + 1);
	return v;
}

static int sparse_done(const struct sparse_in *s)
{
	return !s->c.bad && s->next == UINT64_MAX;
}

int events_decode(const uint8_t *body, size_t len, uint32_t n, struct profev_event *out,
		  struct event_text *texts, uint32_t *ntexts, const char **why)
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
	if (c.bad || nthreads > n || (n && !nthreads)) {
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
	if (c.bad) {
		*why = "column table runs past the end of the body";
		goto out;
	}
	struct sparse_in type_s = { col[COL_TYPE], 0, 0 };
	struct sparse_in name_s = { col[COL_NAME], 0, 0 }, cat_s = { col[COL_CAT], 0, 0 };
	struct sparse_in frame_s = { col[COL_FRAME], 0, 0 }, stack_s = { col[COL_STACK], 0, 0 };
	struct sparse_in flags_s = { col[COL_FLAGS], 0, 0 };
	sparse_advance(&type_s, 0);
	sparse_advance(&name_s, 0);
	sparse_advance(&cat_s, 0);
	sparse_advance(&frame_s, 0);
	sparse_advance(&stack_s, 0);
	sparse_advance(&flags_s, 0);
	struct cursor *runs = &col[COL_RUNS], *tsc = &col[COL_TS], *values = &col[COL_VALUE];
	struct cursor *doubles = &col[COL_DOUBLE], *addrs = &col[COL_ADDR], *text = &col[COL_TEXT];
	uint32_t ntext = 0;
	uint64_t run_left = 0;
	struct thread_state *st = NULL;
	for (uint32_t i = 0; i < n; i++) {
		struct profev_event *e = &out[i];
		if (unlikely(run_left == 0)) {
			uint64_t ti = cur_varint(runs);
			run_left = cur_varint(runs);
			if (runs->bad || ti >= nthreads || run_left == 0 || run_left > n - i) {
				*why = "thread runs do not cover the events";
				goto out;
			}
			st = &states[ti];
		}
		run_left--;
		struct follow *f = &pred->next[follow_slot(st->key)];
		uint64_t type = sparse_get(&type_s, i), name = sparse_get(&name_s, i);
		if (type) {
			if (unlikely(type - 1 > 0xff)) {
				*why = "event type out of range";
				goto out;
			}
			f->type = (uint8_t)(type - 1);
		}
		if (name) {
			if (unlikely(name - 1 > UINT32_MAX)) {
				*why = "name id out of range";
				goto out;
			}
			f->name = (uint32_t)(name - 1);
		}
		f->delta += (uint64_t)unzigzag(cur_varint(tsc));
		st->ts += f->delta;
		e->ts = st->ts;
		e->type = f->type;
		e->name = f->name;
		e->reserved = 0;
		e->tid = st->tid;
		st->key = next_key(e->type, e->name);

		uint64_t flags = sparse_get(&flags_s, i);
		uint64_t stack = sparse_get(&stack_s, i);
		if (unlikely(flags > 0xff || stack > UINT32_MAX)) {
			*why = "flags or callstack id out of range";
			goto out;
		}
		e->flags = (uint8_t)flags;
		e->stack = (uint32_t)stack;
		if (e->flags & PROFEV_EVF_DOUBLE) {
			const uint8_t *d = cur_take(doubles, 8);
			e->payload = d ? get_le64(d) : 0;
		} else if (has_category(e->type)) {
			uint64_t *pc = &pred->category[cat_slot(e->name)];
			uint64_t cat = sparse_get(&cat_s, i);
			if (cat)
				*pc = cat - 1;
			e->payload = *pc;
		} else {
			e->payload = cur_varint(values);
		}
		if (is_memory(e->type)) {
			st->addr += (uint64_t)unzigzag(cur_varint(addrs));
			e->addr = st->addr;
		} else {
			st->frame += (uint64_t)unzigzag(sparse_get(&frame_s, i));
			e->frame = st->frame;
		}
		if (e->type == PROFEV_EV_MESSAGE) {
			uint64_t tlen = cur_varint(text);
			const uint8_t *t = cur_take(text, tlen);
			if (!t) {
				*why = "message text runs past its column";
				goto out;
			}
			texts[ntext++] = (struct event_text){ (uint32_t)(t - body), (uint32_t)tlen };
		}
	}
	static const int dense[] = { COL_RUNS, COL_TS, COL_VALUE, COL_DOUBLE, COL_ADDR, COL_TEXT };
	for (size_t k = 0; k < sizeof(dense) / sizeof(dense[0]); k++) {
		const struct cursor *d = &col[dense[k]];
		if (d->bad || d->p != d->end) {
			*why = d->bad ? "column runs past its end" : "column has bytes left over";
			goto out;
		}
	}
	if (!sparse_done(&type_s) || !sparse_done(&name_s) || !sparse_done(&cat_s) || !sparse_done(&frame_s) ||
	    !sparse_done(&stack_s) || !sparse_done(&flags_s)) {
		*why = "sparse column is malformed or has entries left over";
		goto out;
	}
	*ntexts = ntext;
	rc = 0;
out:
	free(states);
	free(pred);
	return rc;
}
