/* The EVENTS chunk body: events split into columns, each value delta-coded
 * against the previous event of the same thread, as LEB128 varints, so that
 * zstd sees long runs of small, repetitive bytes (formats/trace.md). */
#include <stdlib.h>
#include "internal.h"

enum { COL_TYPE, COL_FLAGS, COL_THREAD, COL_TS, COL_NAME, COL_FRAME, COL_PAYLOAD, COL_STACK, COL_TEXT };

struct thread_state {
	uint32_t tid;
	uint64_t ts, frame, addr;
};

static int is_memory(uint8_t type)
{
	return type == PROFEV_EV_MEM_ALLOC || type == PROFEV_EV_MEM_FREE;
}

/* Small per-chunk map tid -> thread index, with a one-entry cache because
 * consecutive events mostly come from the same thread. */
struct thread_map {
	struct thread_state *states;
	uint32_t *slots; /* index + 1, 0 = empty */
	uint32_t mask, count;
};

static uint32_t map_slot(uint32_t tid, uint32_t mask)
{
	return (tid * 2654435761u) & mask;
}

int events_encode(struct buf *out, const struct profev_event *ev, uint32_t n,
		  const struct event_text *texts, const uint8_t *text_arena,
		  struct buf cols[EVENT_COLUMNS])
{
	static const size_t worst[EVENT_COLUMNS] = { 1, 1, 5, 10, 5, 10, 10, 5, 0 };
	uint64_t base_ts = n ? ev[0].ts : 0;
	struct thread_map map = { 0 };
	int rc = PROFEV_E_NOMEM;

	for (uint32_t i = 0; i < n; i++)
		if (ev[i].ts < base_ts)
			base_ts = ev[i].ts;
	uint32_t cap = 16;
	while (cap < n * 2u && cap < (1u << 24))
		cap *= 2;
	map.mask = cap - 1;
	map.slots = calloc(cap, sizeof(*map.slots));
	map.states = malloc((n ? n : 1) * sizeof(*map.states));
	if (!map.slots || !map.states)
		goto out;
	for (int c = 0; c < EVENT_COLUMNS; c++) {
		buf_reset(&cols[c]);
		if (buf_reserve(&cols[c], worst[c] * n + 16))
			goto out;
	}

	uint8_t *p[EVENT_COLUMNS];
	for (int c = 0; c < EVENT_COLUMNS; c++)
		p[c] = cols[c].data;
	uint32_t last_tid = 0, last_index = UINT32_MAX, ntext = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct profev_event *e = &ev[i];
		uint32_t ti;
		if (e->tid == last_tid && last_index != UINT32_MAX) {
			ti = last_index;
		} else {
			uint32_t s = map_slot(e->tid, map.mask);
			while (map.slots[s] && map.states[map.slots[s] - 1].tid != e->tid)
				s = (s + 1) & map.mask;
			if (!map.slots[s]) {
				map.states[map.count] = (struct thread_state){ e->tid, base_ts, 0, 0 };
				map.slots[s] = ++map.count;
			}
			ti = map.slots[s] - 1;
			last_tid = e->tid;
			last_index = ti;
		}
		struct thread_state *st = &map.states[ti];
		*p[COL_TYPE]++ = e->type;
		*p[COL_FLAGS]++ = e->flags;
		p[COL_THREAD] = put_varint(p[COL_THREAD], ti);
		p[COL_TS] = put_varint(p[COL_TS], zigzag((int64_t)(e->ts - st->ts)));
		st->ts = e->ts;
		p[COL_NAME] = put_varint(p[COL_NAME], e->name);
		uint64_t *prev = is_memory(e->type) ? &st->addr : &st->frame;
		p[COL_FRAME] = put_varint(p[COL_FRAME], zigzag((int64_t)(e->frame - *prev)));
		*prev = e->frame;
		if (e->flags & PROFEV_EVF_DOUBLE) {
			put_le64(p[COL_PAYLOAD], e->payload);
			p[COL_PAYLOAD] += 8;
		} else {
			p[COL_PAYLOAD] = put_varint(p[COL_PAYLOAD], e->payload);
		}
		p[COL_STACK] = put_varint(p[COL_STACK], e->stack);
		ntext += e->type == PROFEV_EV_MESSAGE;
	}
	for (int c = 0; c < COL_TEXT; c++)
		cols[c].len = (size_t)(p[c] - cols[c].data);
	/* Message texts are variable-sized; append them with bounds checks. */
	buf_reset(&cols[COL_TEXT]);
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
	free(map.slots);
	free(map.states);
	return rc;
}

int events_decode(const uint8_t *body, size_t len, uint32_t n, struct profev_event *out,
		  struct event_text *texts, uint32_t *ntexts, const char **why)
{
	struct cursor c = { body, body + len, 0 };
	struct cursor col[EVENT_COLUMNS];
	struct thread_state *states = NULL;
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
	if (!states) {
		*why = "out of memory";
		return PROFEV_E_NOMEM;
	}
	for (uint64_t t = 0; t < nthreads; t++) {
		uint64_t tid = cur_varint(&c);
		if (tid > UINT32_MAX)
			c.bad = 1;
		states[t] = (struct thread_state){ (uint32_t)tid, 0, 0, 0 };
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
	if ((size_t)(col[COL_TYPE].end - col[COL_TYPE].p) != n ||
	    (size_t)(col[COL_FLAGS].end - col[COL_FLAGS].p) != n) {
		*why = "type or flag column has the wrong length";
		goto out;
	}
	const uint8_t *types = col[COL_TYPE].p, *flags = col[COL_FLAGS].p;
	uint32_t ntext = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct profev_event *e = &out[i];
		uint64_t ti = cur_varint(&col[COL_THREAD]);
		if (unlikely(ti >= nthreads)) {
			*why = "thread index out of range";
			goto out;
		}
		struct thread_state *st = &states[ti];
		e->type = types[i];
		e->flags = flags[i];
		e->reserved = 0;
		e->tid = st->tid;
		st->ts += (uint64_t)unzigzag(cur_varint(&col[COL_TS]));
		e->ts = st->ts;
		uint64_t name = cur_varint(&col[COL_NAME]);
		e->name = (uint32_t)name;
		uint64_t *prev = is_memory(e->type) ? &st->addr : &st->frame;
		*prev += (uint64_t)unzigzag(cur_varint(&col[COL_FRAME]));
		e->frame = *prev;
		if (e->flags & PROFEV_EVF_DOUBLE) {
			const uint8_t *d = cur_take(&col[COL_PAYLOAD], 8);
			e->payload = d ? get_le64(d) : 0;
		} else {
			e->payload = cur_varint(&col[COL_PAYLOAD]);
		}
		uint64_t stack = cur_varint(&col[COL_STACK]);
		e->stack = (uint32_t)stack;
		if (unlikely(name > UINT32_MAX || stack > UINT32_MAX)) {
			*why = "id out of range";
			goto out;
		}
		if (e->type == PROFEV_EV_MESSAGE) {
			uint64_t tlen = cur_varint(&col[COL_TEXT]);
			const uint8_t *t = cur_take(&col[COL_TEXT], tlen);
			if (!t) {
				*why = "message text runs past its column";
				goto out;
			}
			texts[ntext++] = (struct event_text){ (uint32_t)(t - body), (uint32_t)tlen };
		}
	}
	for (int k = COL_THREAD; k < EVENT_COLUMNS; k++) {
		if (col[k].bad || col[k].p != col[k].end) {
			*why = col[k].bad ? "column runs past its end" : "column has bytes left over";
			goto out;
		}
	}
	*ntexts = ntext;
	rc = 0;
out:
	free(states);
	return rc;
}
