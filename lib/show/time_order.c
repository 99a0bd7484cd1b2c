/* The listing's merge window: a binary min-heap of the events read; see
 * time_order.h. */
#include <stdlib.h>
#include <string.h>
#include "common/u64_map.h"
#include "show/time_order.h"

/* A thread's name as it was when events were read: shared by its events
 * and, while it is the thread's name, by the thread's entry. */
struct name_copy {
	uint64_t refs;
	size_t len;
	char s[];
};

struct held {
	struct profev_event ev;
	uint64_t seq;               /* file order, for ties */
	struct name_copy *thread;   /* NULL: no name */
	char *text;                 /* a message's text, else NULL */
	size_t text_len;
};

/* The map's entry of a thread that has a name. */
struct named_thread {
	uint64_t key;               /* tid + 1 */
	struct name_copy *name;
};

struct time_order {
	struct held *heap;
	uint64_t n, cap;
	uint64_t max_events, max_bytes;
	uint64_t bytes;             /* texts and name copies alive */
	uint64_t seq;
	struct u64_map names;       /* struct named_thread */
	struct held out;            /* the one handed out last, freed at the next call */
	int have_out;
	uint64_t last_ts, late;
	int started;
};

struct time_order *time_order_new(uint64_t max_events, uint64_t max_bytes)
{
	struct time_order *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->max_events = max_events;
	t->max_bytes = max_bytes;
	u64_map_init(&t->names, sizeof(struct named_thread));
	return t;
}

static void name_release(struct time_order *t, struct name_copy *c)
{
	if (c && --c->refs == 0) {
		t->bytes -= sizeof(*c) + c->len;
		free(c);
	}
}

static void held_release(struct time_order *t, struct held *h)
{
	name_release(t, h->thread);
	if (h->text) {
		t->bytes -= h->text_len;
		free(h->text);
	}
}

void time_order_free(struct time_order *t)
{
	if (!t)
		return;
	if (t->have_out)
		held_release(t, &t->out);
	for (uint64_t i = 0; i < t->n; i++)
		held_release(t, &t->heap[i]);
	for (struct named_thread *e = NULL; (e = u64_map_next(&t->names, e));)
		name_release(t, e->name);
	u64_map_free(&t->names);
	free(t->heap);
	free(t);
}

static int earlier(const struct held *a, const struct held *b)
{
	return a->ev.ts != b->ev.ts ? a->ev.ts < b->ev.ts : a->seq < b->seq;
}

/* The copy of tid's name now, shared while it does not change. */
static int thread_name(struct time_order *t, uint32_t tid, const char *name, struct name_copy **out)
{
	*out = NULL;
	if (!name[0])
		return 0;
	struct named_thread *e = u64_map_insert(&t->names, (uint64_t)tid + 1, NULL);
	if (!e)
		return -1;
	if (!e->name || strcmp(e->name->s, name) != 0) {
		size_t len = strlen(name);
		struct name_copy *c = malloc(sizeof(*c) + len + 1);
		if (!c)
			return -1;
		c->refs = 1;
		c->len = len;
		memcpy(c->s, name, len + 1);
		t->bytes += sizeof(*c) + len;
		name_release(t, e->name);
		e->name = c;
	}
	e->name->refs++;
	*out = e->name;
	return 0;
}

int time_order_add(struct time_order *t, const struct profev_event *ev, const struct profev_event_info *in)
{
	if (t->n == t->cap) {
		uint64_t cap = t->cap ? t->cap * 2 : 64;
		struct held *h = realloc(t->heap, cap * sizeof(*h));
		if (!h)
			return -1;
		t->heap = h;
		t->cap = cap;
	}
	struct held h = { *ev, t->seq++, NULL, NULL, 0 };
	if (thread_name(t, ev->tid, in->thread, &h.thread))
		return -1;
	if (in->text_len) {
		if (!(h.text = malloc(in->text_len))) {
			name_release(t, h.thread);
			return -1;
		}
		memcpy(h.text, in->text, in->text_len);
		h.text_len = in->text_len;
		t->bytes += in->text_len;
	}
	uint64_t i = t->n++;
	while (i > 0) {
		uint64_t parent = (i - 1) / 2;
		if (!earlier(&h, &t->heap[parent]))
			break;
		t->heap[i] = t->heap[parent];
		i = parent;
	}
	t->heap[i] = h;
	return 0;
}

int time_order_full(const struct time_order *t)
{
	return t->n && (t->n > t->max_events || t->bytes > t->max_bytes);
}

int time_order_next(struct time_order *t, struct profev_event *ev, const char **thread, const char **text,
		    size_t *text_len)
{
	if (t->have_out) {
		held_release(t, &t->out);
		t->have_out = 0;
	}
	if (!t->n)
		return 0;
	t->out = t->heap[0];
	t->have_out = 1;
	struct held last = t->heap[--t->n];
	uint64_t i = 0;
	for (;;) {
		uint64_t child = 2 * i + 1;
		if (child >= t->n)
			break;
		if (child + 1 < t->n && earlier(&t->heap[child + 1], &t->heap[child]))
			child++;
		if (!earlier(&t->heap[child], &last))
			break;
		t->heap[i] = t->heap[child];
		i = child;
	}
	if (t->n)
		t->heap[i] = last;
	*ev = t->out.ev;
	*thread = t->out.thread ? t->out.thread->s : "";
	*text = t->out.text ? t->out.text : "";
	*text_len = t->out.text_len;
	if (t->started && ev->ts < t->last_ts)
		t->late++;
	else
		t->last_ts = ev->ts;
	t->started = 1;
	return 1;
}

uint64_t time_order_late(const struct time_order *t)
{
	return t->late;
}
