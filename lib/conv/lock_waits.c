/*
 * Lock events: a wait ends with the thread's acquisition, and the holder is
 * who held the lock when it began. Threads' events arrive in batches, so
 * the holder's acquisition or release may come later in the file: such a
 * wait is held back (struct held_wait) until they do, at most
 * CONV_CONV_HELD_WAITS of them (then the oldest goes out with what is known),
 * and written out of time order, which every target allows.
 */
#include "conv/zone_stack.h"
#include "common/common.h"

void conv_locks_free(struct conv_loop *l)
{
	for (struct lock_history *k = NULL; (k = u64_map_next(&l->locks, k));)
		free(k->hold);
	u64_map_free(&l->locks);
	free(l->waits);
}

static int wait_emit(struct conv_loop *l, struct conv_thread *t, const struct conv_wait *w)
{
	int rc = conv_announce(l, t);
	if (rc)
		return rc;
	l->c.st.events_out++;
	l->part_events++;
	return l->c.ops->lock_wait(&l->c, t, w);
}

/* Held wait i written out (with its candidate as the holder if that hold
 * covers the wait's start) and taken off the list. */
static int wait_release(struct conv_loop *l, unsigned i)
{
	struct held_wait hw = l->waits[i];
	memmove(l->waits + i, l->waits + i + 1, (l->nwaits - i - 1) * sizeof(*l->waits));
	l->nwaits--;
	if (hw.to <= hw.w.begin)
		hw.w.holder = 0;
	return wait_emit(l, hw.t, &hw.w);
}

int conv_waits_flush(struct conv_loop *l)
{
	int rc = 0;
	while (l->nwaits && !rc)
		rc = wait_release(l, 0);
	return rc;
}
/* Lock addr's hold by thread tid from ts (acquired) or to ts (released),
 * for the held waits whose candidate it is or becomes. */
static int waits_update(struct conv_loop *l, uint64_t addr, uint32_t tid, uint64_t ts, int released)
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

int conv_lock_event(struct conv_loop *l, struct conv_thread *t, const struct profev_event *ev,
		    uint64_t ts)
{
	struct conv *c = &l->c;
	if (!ev->payload)
		return 0;
	struct lock_history *k = u64_map_insert(&l->locks, ev->payload, NULL);
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
		if (t->wait_lock == ev->payload && conv_emitting(t) && c->ops->lock_wait) {
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
				if (l->nwaits == CONV_HELD_WAITS)
					rc = wait_release(l, 0);
				if (!rc && l->nwaits == l->waits_cap &&
				    array_grow((void **)&l->waits, &l->waits_cap, sizeof(*l->waits), l->nwaits + 1))
					rc = PROFEV_E_NOMEM;
				if (!rc)
					l->waits[l->nwaits++] = hw;
			}
		}
		t->wait_lock = 0;
		if (k->n == k->cap && k->cap < CONV_LOCK_HOLDS) {
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
