/* The listing's merge window against a plain reference: the events of a
 * shuffled trace come out in (ts, file order) when the window covers the
 * shuffle, in exactly the reference window's order when it does not, with
 * the late ones counted; names and texts are copies that outlive the
 * reader's buffers; the byte bound fills the window too. */
#include <stdlib.h>
#include "../check.h"
#include "show/time_order.h"

#define N 4000

static struct profev_event evs[N];

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Events whose file order is time order shuffled within runs of spread. */
static void make_trace(unsigned spread)
{
	for (uint32_t i = 0; i < N; i++) {
		evs[i] = (struct profev_event){ .ts = 1000 + i / 3 * 10, .payload = i, .tid = 1 + i % 5,
						.type = PROFEV_EV_INSTANT };
	}
	for (uint32_t i = 0; i + spread < N; i += spread) /* shuffle within each run */
		for (uint32_t k = spread - 1; k > 0; k--) {
			uint32_t j = (uint32_t)(next_rand() % (k + 1));
			struct profev_event t = evs[i + k];
			evs[i + k] = evs[i + j];
			evs[i + j] = t;
		}
}

/* The reference window: hold, and when more than max are held, take the
 * earliest by (ts, file position). Returns the late count; order[] the
 * positions in the order taken. */
static uint64_t reference(uint64_t max, uint32_t *order)
{
	static uint8_t held[N];
	uint32_t nheld = 0, out = 0;
	uint64_t late = 0, top = 0;
	memset(held, 0, sizeof(held));
	for (uint32_t i = 0; i <= N; i++) {
		if (i < N)
			held[i] = 1, nheld++;
		while (nheld && (nheld > max || i == N)) {
			uint32_t best = UINT32_MAX;
			for (uint32_t k = 0; k < N; k++)
				if (held[k] && (best == UINT32_MAX || evs[k].ts < evs[best].ts))
					best = k;
			held[best] = 0;
			nheld--;
			if (out && evs[best].ts < top)
				late++;
			else
				top = evs[best].ts;
			order[out++] = best;
		}
	}
	return late;
}

static void run(uint64_t max)
{
	static uint32_t want[N];
	uint64_t want_late = reference(max, want);
	struct time_order *t = time_order_new(max, 1 << 20);
	struct profev_event_info in = { "", "", "", "", 0 };
	struct profev_event ev;
	const char *thread, *text;
	size_t len;
	uint32_t out = 0, wrong = 0;
	for (uint32_t i = 0; i <= N; i++) {
		if (i < N)
			CHECK_EQ(time_order_add(t, &evs[i], &in), 0);
		while ((i == N || time_order_full(t)) && time_order_next(t, &ev, &thread, &text, &len))
			wrong += out >= N || ev.payload != evs[want[out]].payload, out++;
	}
	CHECK_EQ(out, N);
	CHECK_EQ(wrong, 0);
	CHECK_EQ_U64(time_order_late(t), want_late);
	if (max >= 64)
		CHECK_EQ_U64(time_order_late(t), 0);
	time_order_free(t);
}

static void names_and_texts(void)
{
	struct time_order *t = time_order_new(100, 1 << 20);
	char thread[16], text[16];
	struct profev_event_info in = { "", "", thread, text, 0 };
	/* Thread 7 renamed a -> b -> a; the reader's buffers change under us. */
	static const char *const names[] = { "a", "a", "b", "", "a" };
	for (uint32_t i = 0; i < 5; i++) {
		struct profev_event e = { .ts = 100 - i, .tid = 7, .payload = i, .type = PROFEV_EV_MESSAGE };
		strcpy(thread, names[i]);
		snprintf(text, sizeof text, "text %u", i);
		in.text_len = strlen(text);
		CHECK_EQ(time_order_add(t, &e, &in), 0);
		strcpy(thread, "gone");
		strcpy(text, "gone too");
	}
	struct profev_event ev;
	const char *name, *txt;
	size_t len;
	for (uint32_t i = 5; i-- > 0;) { /* the latest event first: ts falls */
		CHECK_EQ(time_order_next(t, &ev, &name, &txt, &len), 1);
		CHECK_EQ_U64(ev.payload, i);
		CHECK_STR(name, names[i]);
		char want[16];
		snprintf(want, sizeof want, "text %u", i);
		CHECK_EQ(len, strlen(want));
		CHECK(memcmp(txt, want, len) == 0);
	}
	CHECK_EQ(time_order_next(t, &ev, &name, &txt, &len), 0);
	time_order_free(t);
}

static void byte_bound(void)
{
	/* Texts of 8 bytes against 20 bytes: the third fills the window. */
	struct time_order *t = time_order_new(1000, 20);
	struct profev_event_info in = { "", "", "", "12345678", 8 };
	struct profev_event e = { .ts = 5, .tid = 1, .type = PROFEV_EV_MESSAGE };
	CHECK_EQ(time_order_add(t, &e, &in), 0);
	CHECK_EQ(time_order_add(t, &e, &in), 0);
	CHECK_EQ(time_order_full(t), 0);
	CHECK_EQ(time_order_add(t, &e, &in), 0);
	CHECK_EQ(time_order_full(t), 1);
	const char *name, *txt;
	size_t len;
	/* The text handed out counts until the next call lets it go. */
	CHECK_EQ(time_order_next(t, &e, &name, &txt, &len), 1);
	CHECK_EQ(time_order_next(t, &e, &name, &txt, &len), 1);
	CHECK_EQ(time_order_full(t), 0);
	time_order_free(t); /* with events held: freed (ASan checks) */
}

int main(void)
{
	make_trace(40);
	run(0);
	run(3);
	run(17);
	run(64);
	run(N);
	names_and_texts();
	byte_bound();
	return CHECK_DONE();
}
