/* The reader's batch call, profev_reader_next_events(): the same events in
 * the same order as profev_reader_next_event(), thread names as they were
 * when each event happened, message texts on demand, and the same errors
 * on a cut trace. */
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "synth.h"
#include "tracemem.h"
#include "profev_trace.h"

/* What next_event() gives for each event: the reference. */
struct seen {
	struct profev_event ev;
	char thread[32], name[32], text[32];
	size_t text_len;
};

static void copy_str(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* Renames in the middle of chunks, messages with NUL bytes in their text,
 * several chunks (8 events each). */
static int fill(struct profev_writer *w)
{
	int rc = profev_writer_thread(w, 10, 1, "main");
	rc |= profev_writer_thread(w, 11, 1, NULL);
	uint32_t zone = profev_writer_cstring(w, "zone"), cat = profev_writer_cstring(w, "cat");
	uint32_t names[3] = { profev_writer_cstring(w, "a"), profev_writer_cstring(w, "b"),
			      profev_writer_cstring(w, "c") };
	uint64_t ts = 1000;
	for (int i = 0; i < 60; i++) {
		uint32_t tid = i % 3 ? 10 : 11;
		struct profev_event e;
		switch (i % 7) {
		case 0:
		case 1:
			e = synth_event(PROFEV_EV_ZONE_BEGIN, ts, tid, zone, cat);
			rc |= profev_writer_event(w, &e);
			break;
		case 2:
		case 3:
			e = synth_event(PROFEV_EV_ZONE_END, ts, tid, zone, cat);
			rc |= profev_writer_event(w, &e);
			break;
		case 4: {
			char text[16];
			int n = snprintf(text, sizeof(text), "m%d%cx", i, 0);
			e = synth_event(PROFEV_EV_MESSAGE, ts, tid, 0, cat);
			rc |= profev_writer_message(w, &e, text, (size_t)n);
			break;
		}
		case 5:
			e = synth_event(PROFEV_EV_THREAD_NAME, ts, tid, names[i % 3], 0);
			rc |= profev_writer_event(w, &e);
			break;
		default:
			e = synth_event(PROFEV_EV_INSTANT, ts, tid, zone, cat);
			rc |= profev_writer_event(w, &e);
		}
		ts += 10;
	}
	/* two renames in a row */
	struct profev_event e = synth_event(PROFEV_EV_THREAD_NAME, ts, 10, names[0], 0);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_THREAD_NAME, ts + 1, 10, names[1], 0);
	rc |= profev_writer_event(w, &e);
	return rc ? rc : profev_writer_close(w);
}

static struct tracemem write_trace(void)
{
	struct tracemem m;
	struct profev_error err;
	struct profev_writer_opts opts = { 0, 8 };
	CHECK_EQ(tracemem_write(&m, fill, &opts, &err), 0);
	return m;
}

/* Every event through next_event(); returns the count, *rc the end status. */
static size_t read_reference(const struct tracemem *m, struct seen *out, size_t cap, int *rc)
{
	FILE *f = fmemopen(m->data, m->len, "rb");
	struct profev_reader *r = profev_reader_new(f, NULL);
	size_t n = 0;
	struct profev_event ev;
	struct profev_event_info in;
	CHECK(r != NULL);
	while (r && (*rc = profev_reader_next_event(r, &ev, &in)) > 0 && n < cap) {
		struct seen *s = &out[n++];
		s->ev = ev;
		copy_str(s->thread, sizeof(s->thread), in.thread, strlen(in.thread));
		copy_str(s->name, sizeof(s->name), in.name, strlen(in.name));
		copy_str(s->text, sizeof(s->text), in.text, in.text_len);
		s->text_len = in.text_len;
	}
	profev_reader_free(r);
	fclose(f);
	return n;
}

/* Checks one event handed out by next_events() against the reference. */
static void check_one(struct profev_reader *r, const struct profev_event *ev, const struct seen *s)
{
	CHECK(memcmp(ev, &s->ev, sizeof(*ev)) == 0);
	CHECK_STR(profev_reader_thread_name(r, ev->tid), s->thread);
	CHECK_STR(profev_reader_string(r, ev->name), s->name);
	size_t len;
	const char *text = profev_reader_event_text(r, ev, &len);
	CHECK_EQ(len, s->text_len);
	CHECK(memcmp(text, s->text, len < sizeof(s->text) ? len : sizeof(s->text) - 1) == 0);
}

/* mix: 0 only next_events(), 1 alternate with next_event(). */
static void check_batches(const struct tracemem *m, const struct seen *ref, size_t nref, int ref_rc, int mix)
{
	FILE *f = fmemopen(m->data, m->len, "rb");
	struct profev_reader *r = profev_reader_new(f, NULL);
	CHECK(r != NULL);
	size_t k = 0, runs = 0;
	int rc;
	for (;;) {
		if (mix && runs % 2) {
			struct profev_event ev;
			struct profev_event_info in;
			if ((rc = profev_reader_next_event(r, &ev, &in)) <= 0)
				break;
			CHECK(k < nref);
			if (k < nref) {
				CHECK(memcmp(&ev, &ref[k].ev, sizeof(ev)) == 0);
				CHECK_STR(in.thread, ref[k].thread);
				CHECK_EQ(in.text_len, ref[k].text_len);
			}
			k++;
			runs++;
			continue;
		}
		const struct profev_event *evs;
		size_t n;
		if ((rc = profev_reader_next_events(r, &evs, &n)) <= 0) {
			CHECK(evs == NULL);
			CHECK_EQ(n, 0);
			break;
		}
		CHECK(n >= 1);
		runs++;
		for (size_t i = 0; i < n; i++, k++) {
			/* a rename only ever starts a run */
			if (i)
				CHECK(evs[i].type != PROFEV_EV_THREAD_NAME);
			CHECK(k < nref);
			if (k < nref)
				check_one(r, &evs[i], &ref[k]);
		}
	}
	CHECK_EQ(rc, ref_rc);
	CHECK_EQ(k, nref);
	/* After the end it stays at the end. */
	const struct profev_event *evs = (const struct profev_event *)1;
	size_t n = 1;
	CHECK_EQ(profev_reader_next_events(r, &evs, &n), ref_rc);
	CHECK(evs == NULL);
	CHECK_EQ(n, 0);
	profev_reader_free(r);
	fclose(f);
}

static void test_same_as_next_event(void)
{
	struct tracemem m = write_trace();
	struct seen ref[128];
	int ref_rc = 1;
	size_t nref = read_reference(&m, ref, 128, &ref_rc);
	CHECK_EQ(ref_rc, 0);
	CHECK_EQ(nref, 62);
	/* the reference itself: a renamed thread shows its new name from the
	 * rename on */
	int renamed = 0;
	for (size_t i = 0; i < nref; i++)
		if (ref[i].ev.type == PROFEV_EV_THREAD_NAME)
			renamed += strcmp(ref[i].thread, ref[i].name) == 0;
	CHECK_EQ(renamed, 10);
	check_batches(&m, ref, nref, ref_rc, 0);
	check_batches(&m, ref, nref, ref_rc, 1);

	/* A cut trace: the same events, then the same error. */
	for (size_t cut = 16; cut < m.len; cut += 37) {
		struct tracemem c = { m.data, cut };
		int crc = 1;
		size_t nc = read_reference(&c, ref, 128, &crc);
		CHECK(crc < 0);
		check_batches(&c, ref, nc, crc, 0);
	}
	free(m.data);
}

/* Texts only for MESSAGE events of the current chunk. */
static void test_event_text(void)
{
	struct tracemem m = write_trace();
	FILE *f = fmemopen(m.data, m.len, "rb");
	struct profev_reader *r = profev_reader_new(f, NULL);
	const struct profev_event *evs;
	size_t n, len = 7;
	CHECK_EQ(profev_reader_next_events(r, &evs, &n), 1);
	struct profev_event copy = evs[0];
	CHECK_STR(profev_reader_event_text(r, &copy, &len), "");
	CHECK_EQ(len, 0);
	int messages = 0;
	for (size_t i = 0; i < n; i++) {
		const char *t = profev_reader_event_text(r, &evs[i], &len);
		if (evs[i].type != PROFEV_EV_MESSAGE) {
			CHECK_EQ(len, 0);
			continue;
		}
		messages++;
		CHECK(len > 3);
		CHECK(t[0] == 'm' && t[len - 2] == 0 && t[len - 1] == 'x');
	}
	CHECK_EQ(messages, 1); /* the first chunk holds events 0..7 */
	profev_reader_free(r);
	fclose(f);
	free(m.data);
}

/* A big synthetic trace: the same events whichever way it is read. */
static void test_synth(void)
{
	FILE *tmp = tmpfile();
	struct profev_error err;
	CHECK_EQ(synth_write(fileno(tmp), 300000, 8, 7, &err), 0);
	rewind(tmp);
	struct profev_reader *a = profev_reader_new(tmp, NULL);
	uint64_t n = 0, sum = 0, messages = 0;
	const struct profev_event *evs;
	size_t count;
	int rc;
	while ((rc = profev_reader_next_events(a, &evs, &count)) > 0) {
		for (size_t i = 0; i < count; i++) {
			sum = sum * 31 + evs[i].ts + evs[i].name + evs[i].type;
			size_t len;
			profev_reader_event_text(a, &evs[i], &len);
			messages += evs[i].type == PROFEV_EV_MESSAGE && len > 0;
		}
		n += count;
	}
	CHECK_EQ(rc, 0);
	profev_reader_free(a);

	rewind(tmp);
	struct profev_reader *b = profev_reader_new(tmp, NULL);
	struct profev_event ev;
	struct profev_event_info in;
	uint64_t n2 = 0, sum2 = 0, messages2 = 0;
	CHECK(b != NULL);
	while (b && (rc = profev_reader_next_event(b, &ev, &in)) > 0) {
		sum2 = sum2 * 31 + ev.ts + ev.name + ev.type;
		messages2 += ev.type == PROFEV_EV_MESSAGE && in.text_len > 0;
		n2++;
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ_U64(n, n2);
	CHECK_EQ_U64(sum, sum2);
	CHECK_EQ_U64(messages, messages2);
	CHECK(messages > 0);
	CHECK(n >= 300000);
	profev_reader_free(b);
	fclose(tmp);
}

int main(void)
{
	test_same_as_next_event();
	test_event_text();
	test_synth();
	return CHECK_DONE();
}
