/* Converters (lib/conv*.c): traces written with the writer API are
 * converted into memory, and the outputs are checked for meaning: folded
 * weights exactly, Chrome events by content, Perfetto with
 * tests/lib/perfetto_check.c, which enforces the sequence rules
 * trace_processor relies on (descriptors before events, interned ids
 * defined before use, balanced slices per track). */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "perfetto_check.h"
#include "profev_conv.h"

/* ---- the fixture: a trace written with the writer API, then converted
 * into memory ---- */

struct mem {
	char *part[64];
	size_t len[64], cap[64];
	unsigned n;
	char warnings[4096];
	unsigned nwarn;
};

struct tw {
	FILE *f;
	struct profev_writer *w;
	struct profev_conv_opts o; /* the conversion's, set up for a format */
	struct profev_conv_stats st;
	struct mem m;              /* its output parts and warnings */
};

static void tw_new(struct tw *t, int format)
{
	struct profev_error err;
	memset(t, 0, sizeof(*t));
	t->f = tmpfile();
	t->w = profev_writer_new(fileno(t->f), NULL, &err);
	if (!t->w)
		fprintf(stderr, "writer: %s\n", err.message);
	profev_conv_opts_init(&t->o, format);
}

static void ev(struct tw *t, unsigned type, uint64_t ts, uint32_t tid, const char *name,
	       uint64_t payload)
{
	struct profev_event e = { .ts = ts, .tid = tid, .type = (uint8_t)type, .payload = payload };
	e.name = profev_writer_cstring(t->w, name);
	CHECK_EQ(profev_writer_event(t->w, &e), 0);
}

static uint32_t str(struct tw *t, const char *s)
{
	return profev_writer_cstring(t->w, s);
}

static void zb(struct tw *t, uint64_t ts, uint32_t tid, const char *name, const char *cat)
{
	ev(t, PROFEV_EV_ZONE_BEGIN, ts, tid, name, cat ? str(t, cat) : 0);
}

static void ze(struct tw *t, uint64_t ts, uint32_t tid)
{
	struct profev_event e = { .ts = ts, .tid = tid, .type = PROFEV_EV_ZONE_END };
	CHECK_EQ(profev_writer_event(t->w, &e), 0);
}

static void counter(struct tw *t, uint64_t ts, const char *name, double v)
{
	struct profev_event e = { .ts = ts, .tid = 100, .type = PROFEV_EV_COUNTER };
	e.name = str(t, name);
	profev_event_set_double(&e, v);
	CHECK_EQ(profev_writer_event(t->w, &e), 0);
}

static void message(struct tw *t, uint64_t ts, uint32_t tid, const char *text)
{
	struct profev_event e = { .ts = ts, .tid = tid, .type = PROFEV_EV_MESSAGE };
	CHECK_EQ(profev_writer_message(t->w, &e, text, strlen(text)), 0);
}

/* Finish (or, cut = 1, abandon after a flush) and open a reader on it. */
static struct profev_reader *tw_read(struct tw *t, int cut)
{
	if (cut)
		CHECK_EQ(profev_writer_flush(t->w), 0);
	else
		CHECK_EQ(profev_writer_close(t->w), 0);
	profev_writer_free(t->w);
	rewind(t->f);
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(t->f, &err);
	if (!r)
		fprintf(stderr, "reader: %s\n", err.message);
	return r;
}

/* ---- running a conversion into memory ---- */

static int mem_open(void *ctx, unsigned part)
{
	struct mem *m = ctx;
	CHECK_EQ(part, m->n);
	if (m->n == 64)
		return -1;
	m->part[m->n] = NULL;
	m->len[m->n] = m->cap[m->n] = 0;
	m->n++;
	return 0;
}

static int mem_write(void *ctx, const void *data, size_t len)
{
	struct mem *m = ctx;
	unsigned i = m->n - 1;
	if (m->len[i] + len + 1 > m->cap[i]) {
		m->cap[i] = (m->len[i] + len + 1) * 2;
		m->part[i] = realloc(m->part[i], m->cap[i]);
	}
	memcpy(m->part[i] + m->len[i], data, len);
	m->len[i] += len;
	m->part[i][m->len[i]] = 0;
	return 0;
}

static void mem_warn(void *ctx, int kind, const char *msg)
{
	struct mem *m = ctx;
	(void)kind;
	m->nwarn++;
	size_t used = strlen(m->warnings);
	snprintf(m->warnings + used, sizeof(m->warnings) - used, "%s\n", msg);
}

static void mem_free(struct mem *m)
{
	for (unsigned i = 0; i < m->n; i++)
		free(m->part[i]);
	memset(m, 0, sizeof(*m));
}

static int run(struct profev_reader *r, struct profev_conv_opts *o, struct mem *m,
	       struct profev_conv_stats *st)
{
	struct profev_conv_sink sink = { mem_open, mem_write, NULL, m };
	struct profev_error err;
	memset(m, 0, sizeof(*m));
	o->warn = mem_warn;
	o->cb_ctx = m;
	int rc = profev_conv_run(r, o, &sink, st, &err);
	if (rc && rc != PROFEV_E_NOEND)
		fprintf(stderr, "conv: %s\n", err.message);
	if (getenv("T_CONV_DUMP") && o->format != PROFEV_CONV_PERFETTO)
		for (unsigned i = 0; i < m->n; i++)
			fprintf(stderr, "--- part %u\n%s", i, m->part[i]);
	profev_reader_free(r);
	return rc;
}

/* Finish the trace (or, cut = 1, abandon it after a flush) and convert it
 * with t->o into t->m and t->st. */
static int tw_conv(struct tw *t, int cut)
{
	return run(tw_read(t, cut), &t->o, &t->m, &t->st);
}

static void tw_free(struct tw *t)
{
	mem_free(&t->m);
	fclose(t->f);
}

/* The basic trace: process 42, main (100) and worker (101).
 *   main:   A 1010..1100 { B 1020..1050 }, instant at 1060, message at
 *           1070, lost 7 at 1080
 *   worker: W 1030..1080
 *   counter fps 60 at 1040 and 30 at 1090; frames marked at 1000, 1050, 1100 */
static void basic(struct tw *t)
{
	static const char *const argv[] = { "/usr/bin/game", "-x" };
	struct profev_meta m = { .program = "/usr/bin/game", .argv = argv, .argc = 2, .pid = 42,
				 .mono_start_ns = 1000, .wall_start_ns = 1700000000000000000ll };
	CHECK_EQ(profev_writer_meta(t->w, &m), 0);
	CHECK_EQ(profev_writer_thread(t->w, 100, 42, "main"), 0);
	CHECK_EQ(profev_writer_thread(t->w, 101, 42, "worker"), 0);
	struct profev_event f = { .ts = 1000, .tid = 100, .type = PROFEV_EV_FRAME_MARK, .frame = 1 };
	CHECK_EQ(profev_writer_event(t->w, &f), 0);
	zb(t, 1010, 100, "A", "game");
	zb(t, 1020, 100, "B", "render");
	zb(t, 1030, 101, "W", "game");
	counter(t, 1040, "fps", 60);
	ze(t, 1050, 100);
	f.ts = 1050;
	f.frame = 2;
	CHECK_EQ(profev_writer_event(t->w, &f), 0);
	ev(t, PROFEV_EV_INSTANT, 1060, 100, "tick", str(t, "game"));
	message(t, 1070, 100, "hello \"world\"\nsecond line");
	ev(t, PROFEV_EV_LOST, 1080, 100, "", 7);
	ze(t, 1080, 101);
	counter(t, 1090, "fps", 30);
	ze(t, 1100, 100);
	f.ts = 1100;
	f.frame = 3;
	CHECK_EQ(profev_writer_event(t->w, &f), 0);
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Chrome events (one per line) that hold both a and b. */
static unsigned count_events(const char *json, const char *a, const char *b)
{
	unsigned n = 0;
	for (const char *p = json; (p = strstr(p, a)); p++) {
		const char *start = p, *end = strchr(p, '\n');
		while (start > json && start[-1] != '\n')
			start--;
		size_t len = end ? (size_t)(end - start) : strlen(start);
		if (memmem(start, len, b, strlen(b)))
			n++;
	}
	return n;
}

/* ---- tests ---- */

static void test_folded(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_FOLDED);
	basic(&t);
	CHECK_EQ(tw_conv(&t, 0), 0);
	CHECK_EQ(t.m.n, 1);
	/* A: 90 ns with 30 in B; W: 50 */
	CHECK(strstr(t.m.part[0], "main (100);A 60\n") != NULL);
	CHECK(strstr(t.m.part[0], "main (100);A;B 30\n") != NULL);
	CHECK(strstr(t.m.part[0], "worker (101);W 50\n") != NULL);
	CHECK_EQ(count(t.m.part[0], "\n"), 3);
	CHECK_EQ(t.st.zones, 3);
	tw_free(&t);

	tw_new(&t, PROFEV_CONV_FOLDED);
	basic(&t);
	t.o.flags = PROFEV_CONV_MERGE_THREADS;
	CHECK_EQ(tw_conv(&t, 0), 0);
	CHECK(strstr(t.m.part[0], "A 60\n") != NULL);
	CHECK(strstr(t.m.part[0], "A;B 30\n") != NULL);
	CHECK(strstr(t.m.part[0], "W 50\n") != NULL);
	CHECK(strstr(t.m.part[0], "main") == NULL);
	tw_free(&t);
}

static void test_chrome(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_CHROME);
	basic(&t);
	CHECK_EQ(tw_conv(&t, 0), 0);
	const char *j = t.m.part[0];
	CHECK(strncmp(j, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 38) == 0);
	CHECK(strstr(j, "\n]}\n") != NULL);
	/* times are microseconds from the trace's start (1000 ns) */
	CHECK(strstr(j, "{\"ph\":\"X\",\"ts\":0.02,\"dur\":0.03,\"pid\":42,\"tid\":100,\"name\":\"B\",\"cat\":\"render\"}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"X\",\"ts\":0.01,\"dur\":0.09,\"pid\":42,\"tid\":100,\"name\":\"A\",\"cat\":\"game\"}") != NULL);
	CHECK(strstr(j, "\"ts\":0.03,\"dur\":0.05,\"pid\":42,\"tid\":101,\"name\":\"W\",\"cat\":\"game\"}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"C\",\"ts\":0.04,\"pid\":42,\"name\":\"fps\",\"args\":{\"value\":60}}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"i\",\"s\":\"t\",\"ts\":0.06,\"pid\":42,\"tid\":100,\"name\":\"tick\",\"cat\":\"game\"}") != NULL);
	CHECK(strstr(j, "\"ts\":0.07,\"pid\":42,\"tid\":100,\"name\":\"hello \\\"world\\\"\",\"args\":{\"text\":\"hello \\\"world\\\"\\nsecond line\"}}") != NULL);
	CHECK(strstr(j, "\"ts\":0.08,\"pid\":42,\"tid\":100,\"name\":\"lost events\",\"args\":{\"count\":7}}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"M\",\"ts\":0,\"pid\":42,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"game\"}}") != NULL);
	CHECK(strstr(j, "\"pid\":42,\"tid\":100,\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}") != NULL);
	CHECK(strstr(j, "\"pid\":42,\"tid\":101,\"name\":\"thread_name\",\"args\":{\"name\":\"worker\"}") != NULL);
	/* frames 1 and 2 between marks; the last mark ends the trace. Frames
	 * are B/E pairs: frame 1's E has the same ts text as frame 2's B. */
	CHECK(strstr(j, "{\"ph\":\"B\",\"ts\":0,\"pid\":42,\"tid\":1000000000,\"name\":\"Frame 1\"}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"E\",\"ts\":0.05,\"pid\":42,\"tid\":1000000000,\"name\":\"Frame 1\"},\n"
			"{\"ph\":\"B\",\"ts\":0.05,\"pid\":42,\"tid\":1000000000,\"name\":\"Frame 2\"}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"E\",\"ts\":0.1,\"pid\":42,\"tid\":1000000000,\"name\":\"Frame 2\"},\n"
			"{\"ph\":\"B\",\"ts\":0.1,\"pid\":42,\"tid\":1000000000,\"name\":\"Frame 3\"}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"E\",\"ts\":0.1,\"pid\":42,\"tid\":1000000000,\"name\":\"Frame 3\"}") != NULL);
	CHECK_EQ(count(j, "\"ph\":\"X\""), 3);
	CHECK_EQ(count(j, "\"ph\":\"B\""), 3);
	CHECK_EQ(count(j, "\"ph\":\"E\""), 3);
	CHECK_EQ(count(j, "\"ph\":\"C\""), 2);
	CHECK_EQ(count(j, "\"ph\":\"i\""), 3);
	CHECK_EQ(t.m.nwarn, 0);
	tw_free(&t);

	/* B/E pairs: one per zone, and the same counts otherwise */
	tw_new(&t, PROFEV_CONV_CHROME);
	basic(&t);
	t.o.flags = PROFEV_CONV_CHROME_BE;
	CHECK_EQ(tw_conv(&t, 0), 0);
	CHECK_EQ(count(t.m.part[0], "\"ph\":\"B\""), 6);
	CHECK_EQ(count(t.m.part[0], "\"ph\":\"E\""), 6);
	CHECK_EQ(count(t.m.part[0], "\"ph\":\"X\""), 0);
	/* an E names its zone again: viewers (speedscope) pair E and B by name */
	CHECK(strstr(t.m.part[0], "{\"ph\":\"E\",\"ts\":0.05,\"pid\":42,\"tid\":100,\"name\":\"B\",\"cat\":\"render\"}") != NULL);
	tw_free(&t);
}

static void test_perfetto(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_PERFETTO);
	basic(&t);
	struct perfetto_seen s;
	CHECK_EQ(tw_conv(&t, 0), 0);
	perfetto_check(t.m.part[0], t.m.len[0], &s);
	CHECK_EQ(s.errors, 0);
	CHECK_EQ(s.begins, 6); /* A, B, W and three frames */
	CHECK_EQ(s.ends, 6);
	CHECK_EQ(s.instants, 3);
	CHECK_EQ(s.counters, 2);
	/* process, two threads, one frame set, one counter */
	CHECK_EQ(s.ntracks, 5);
	CHECK_STR(s.thread_names, "main,worker,");
	CHECK_EQ(t.st.events_out, 3 * 2 + 3 * 2 + 3 + 2);
	tw_free(&t);
}

/*
 * Lock waits and their holders, from a file whose threads' events come in
 * batches, as pfrec writes them under load: the waiter's batch before its
 * holder's, the holder's long before the waiter's (with many holds of
 * another thread between), and a wait nobody held the lock for.
 */
static void lock_trace(struct tw *t)
{
	const uint64_t lock = 0x1000;
	CHECK_EQ(profev_writer_thread(t->w, 200, 42, "holder"), 0);
	CHECK_EQ(profev_writer_thread(t->w, 201, 42, "waiter"), 0);
	CHECK_EQ(profev_writer_thread(t->w, 202, 42, "other"), 0);
	/* 1: the waiter's batch, then the holder's (held 50..290) */
	ev(t, PROFEV_EV_LOCK_WAIT, 100, 201, "the lock", lock);
	ev(t, PROFEV_EV_LOCK_ACQUIRED, 300, 201, "", lock);
	ev(t, PROFEV_EV_LOCK_RELEASED, 310, 201, "", lock);
	ev(t, PROFEV_EV_LOCK_ACQUIRED, 50, 200, "", lock);
	ev(t, PROFEV_EV_LOCK_RELEASED, 290, 200, "", lock);
	/* 2: the holder's hold (1050..1290), 20 later holds of another thread,
	 * then the waiter's batch */
	ev(t, PROFEV_EV_LOCK_ACQUIRED, 1050, 200, "", lock);
	ev(t, PROFEV_EV_LOCK_RELEASED, 1290, 200, "", lock);
	for (uint64_t i = 0; i < 20; i++) {
		ev(t, PROFEV_EV_LOCK_ACQUIRED, 1400 + 20 * i, 202, "", lock);
		ev(t, PROFEV_EV_LOCK_RELEASED, 1410 + 20 * i, 202, "", lock);
	}
	ev(t, PROFEV_EV_LOCK_WAIT, 1100, 201, "the lock", lock);
	ev(t, PROFEV_EV_LOCK_ACQUIRED, 1300, 201, "", lock);
	ev(t, PROFEV_EV_LOCK_RELEASED, 1310, 201, "", lock);
	/* 3: free when the wait began */
	ev(t, PROFEV_EV_LOCK_WAIT, 2000, 201, "the lock", lock);
	ev(t, PROFEV_EV_LOCK_ACQUIRED, 2001, 201, "", lock);
	ev(t, PROFEV_EV_LOCK_RELEASED, 2002, 201, "", lock);
}

static void test_lock_holders(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_CHROME);
	lock_trace(&t);
	CHECK_EQ(tw_conv(&t, 0), 0);
	const char *j = t.m.part[0];
	CHECK_EQ(count(j, "\"name\":\"wait: the lock\""), 3);
	CHECK_EQ(count_events(j, "\"name\":\"wait: the lock\"", "\"tid\":201"), 3);
	CHECK_EQ(count_events(j, "\"name\":\"wait: the lock\"", "\"holder_tid\":200,\"holder\":\"holder\""), 2);
	CHECK_EQ(count(j, "\"holder_tid\""), 2);
	CHECK_EQ(count_events(j, "\"dur\":0.2,", "\"holder_tid\":200"), 2); /* 100..300, 1100..1300 */
	tw_free(&t);

	/* Perfetto: the waits written out of time order keep its rules */
	tw_new(&t, PROFEV_CONV_PERFETTO);
	lock_trace(&t);
	struct perfetto_seen s;
	CHECK_EQ(tw_conv(&t, 0), 0);
	perfetto_check(t.m.part[0], t.m.len[0], &s);
	CHECK_EQ(s.errors, 0);
	CHECK_EQ(s.begins, 3);
	CHECK_EQ(s.ends, 3);
	CHECK(memmem(t.m.part[0], t.m.len[0], "holder", 6) != NULL);
	tw_free(&t);
}

/* A zone never closed and an end without a begin: both warned about, the
 * output stays balanced, the open zone ends at its thread's last event. */
static void test_unbalanced(void)
{
	static const int formats[] = { PROFEV_CONV_PERFETTO, PROFEV_CONV_CHROME, PROFEV_CONV_FOLDED };
	for (int i = 0; i < 3; i++) {
		struct tw t;
		tw_new(&t, formats[i]);
		CHECK_EQ(profev_writer_thread(t.w, 5, 5, "main"), 0);
		ze(&t, 100, 5);
		zb(&t, 200, 5, "open", NULL);
		zb(&t, 300, 5, "inner", NULL);
		ze(&t, 400, 5);
		ev(&t, PROFEV_EV_INSTANT, 500, 5, "last", 0);
		CHECK_EQ(tw_conv(&t, 0), 0);
		CHECK_EQ(t.st.unmatched_ends, 1);
		CHECK_EQ(t.st.unclosed, 1);
		CHECK_EQ(t.m.nwarn, 2);
		CHECK(strstr(t.m.warnings, "main (5): zone end at 0.000000000s without a begin: dropped\n") != NULL);
		CHECK(strstr(t.m.warnings, "main (5): zone 'open' never closed: closed at 0.000000400s\n") != NULL);
		if (formats[i] == PROFEV_CONV_PERFETTO) {
			struct perfetto_seen s;
			perfetto_check(t.m.part[0], t.m.len[0], &s);
			CHECK_EQ(s.errors, 0);
			CHECK_EQ(s.begins, 2);
			CHECK_EQ(s.ends, 2);
			CHECK_EQ(s.unclosed, 1);
		} else if (formats[i] == PROFEV_CONV_CHROME) {
			/* closed by pfconv: a B and an E with the same mark */
			CHECK(strstr(t.m.part[0], "{\"ph\":\"B\",\"ts\":0.1,\"pid\":5,\"tid\":5,\"name\":\"open\",\"args\":{\"unclosed\":true}},\n"
					"{\"ph\":\"E\",\"ts\":0.4,\"pid\":5,\"tid\":5,\"name\":\"open\",\"args\":{\"unclosed\":true}}") != NULL);
		} else {
			CHECK(strstr(t.m.part[0], "main (5);open 200\n") != NULL);
			CHECK(strstr(t.m.part[0], "main (5);open;inner 100\n") != NULL);
		}
		tw_free(&t);
	}
}

/* Time window: zones crossing an edge are cut at it. Trace start is the
 * first event (no metadata): 1000. */
static void test_window(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_CHROME);
	CHECK_EQ(profev_writer_thread(t.w, 5, 5, "main"), 0);
	zb(&t, 1000, 5, "long", NULL);      /* 0..1000 */
	zb(&t, 1100, 5, "early", NULL);     /* 100..200: before the window */
	ze(&t, 1200, 5);
	zb(&t, 1400, 5, "mid", NULL);       /* 400..600: inside */
	ze(&t, 1600, 5);
	zb(&t, 1700, 5, "late", NULL);      /* 700..900: crosses the end */
	counter(&t, 1250, "c", 1);          /* before */
	counter(&t, 1500, "c", 2);          /* inside */
	ze(&t, 1900, 5);
	ze(&t, 2000, 5);
	t.o.from_ns = 300;
	t.o.to_ns = 800;
	CHECK_EQ(tw_conv(&t, 0), 0);
	const char *j = t.m.part[0];
	/* "long" begins at the window's start: its B is written then, and says
	 * so; "late" is cut at its end: a B and an E, both marked */
	CHECK(strstr(j, "{\"ph\":\"B\",\"ts\":0.3,\"pid\":5,\"tid\":5,\"name\":\"long\",\"args\":{\"continued\":true}}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"E\",\"ts\":0.8,\"pid\":5,\"tid\":5,\"name\":\"long\",\"args\":{\"cut\":true}}") != NULL);
	CHECK(strstr(j, "\"ts\":0.4,\"dur\":0.2,\"pid\":5,\"tid\":5,\"name\":\"mid\"}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"B\",\"ts\":0.7,\"pid\":5,\"tid\":5,\"name\":\"late\",\"args\":{\"cut\":true}}") != NULL);
	CHECK(strstr(j, "{\"ph\":\"E\",\"ts\":0.8,\"pid\":5,\"tid\":5,\"name\":\"late\",\"args\":{\"cut\":true}}") != NULL);
	CHECK(strstr(j, "early") == NULL);
	CHECK_EQ(count(j, "\"ph\":\"X\""), 1);
	CHECK_EQ(count(j, "\"ph\":\"B\""), 2);
	CHECK_EQ(count(j, "\"ph\":\"E\""), 2);
	CHECK_EQ(count(j, "\"ph\":\"C\""), 1);
	CHECK_EQ(t.m.nwarn, 0);
	tw_free(&t);
}

static void test_thread_filter(void)
{
	const char *filters[] = { "worker", "101", "nobody" };
	for (int i = 0; i < 3; i++) {
		struct tw t;
		tw_new(&t, PROFEV_CONV_FOLDED);
		basic(&t);
		t.o.thread = filters[i];
		CHECK_EQ(tw_conv(&t, 0), 0);
		if (i < 2)
			CHECK_STR(t.m.part[0], "worker (101);W 50\n");
		else
			CHECK_STR(t.m.part[0] ? t.m.part[0] : "", "");
		tw_free(&t);
	}
}

/* A thread filtered by a name it only takes later: its zones count from
 * then on; one open at the rename shows from the rename. */
static void test_filter_rename(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_FOLDED);
	zb(&t, 10, 5, "before", NULL);
	ze(&t, 20, 5);
	zb(&t, 30, 5, "spans", NULL);
	ev(&t, PROFEV_EV_THREAD_NAME, 40, 5, "late", 0);
	zb(&t, 50, 5, "after", NULL);
	ze(&t, 60, 5);
	ze(&t, 70, 5);
	zb(&t, 80, 6, "other", NULL);
	ze(&t, 90, 6);
	t.o.thread = "late";
	CHECK_EQ(tw_conv(&t, 0), 0);
	CHECK_STR(t.m.part[0] ? t.m.part[0] : "", "late (5);spans 20\nlate (5);spans;after 10\n");
	tw_free(&t);
}

/* Split: every part is a complete trace, zones open at a cut are closed
 * there and reopened, and no zone is lost. */
static void test_split(void)
{
	static const int formats[] = { PROFEV_CONV_PERFETTO, PROFEV_CONV_CHROME };
	for (int k = 0; k < 2; k++) {
		struct tw t;
		tw_new(&t, formats[k]);
		CHECK_EQ(profev_writer_thread(t.w, 5, 5, "main"), 0);
		zb(&t, 1, 5, "outer", NULL);
		char name[32];
		for (int i = 0; i < 2000; i++) {
			snprintf(name, sizeof(name), "zone %d", i % 300);
			zb(&t, 10 + 10 * (uint64_t)i, 5, name, "cat");
			ze(&t, 15 + 10 * (uint64_t)i, 5);
		}
		ze(&t, 100000, 5);
		t.o.split_size = 8192;
		CHECK_EQ(tw_conv(&t, 0), 0);
		CHECK(t.m.n >= 3);
		CHECK_EQ(t.st.parts, t.m.n);
		unsigned zones = 0, outer = 0, cuts = 0;
		for (unsigned i = 0; i < t.m.n; i++) {
			CHECK(t.m.len[i] <= 8192);
			if (formats[k] == PROFEV_CONV_PERFETTO) {
				struct perfetto_seen s;
				perfetto_check(t.m.part[i], t.m.len[i], &s);
				CHECK_EQ(s.errors, 0);
				CHECK_EQ(s.begins, s.ends);
				zones += s.ends;
				cuts += s.cut;
				/* outer, and maybe one zone inside it, cut at the end */
				if (i + 1 < t.m.n)
					CHECK(s.cut == 1 || s.cut == 2);
			} else {
				CHECK(strncmp(t.m.part[i], "{\"displayTimeUnit\"", 18) == 0);
				CHECK(strstr(t.m.part[i], "\n]}\n") != NULL);
				/* a piece of a zone is an X event or a B/E pair */
				zones += count(t.m.part[i], "\"ph\":\"X\"") + count(t.m.part[i], "\"ph\":\"B\"");
				CHECK_EQ(count(t.m.part[i], "\"ph\":\"B\""), count(t.m.part[i], "\"ph\":\"E\""));
				outer += count(t.m.part[i], "\"ph\":\"B\",\"ts\":0,\"pid\":5,\"tid\":5,\"name\":\"outer\"") +
					 count(t.m.part[i], "\"name\":\"outer\",\"args\":{\"continued\":true}");
				cuts += count_events(t.m.part[i], "\"cut\":true", "\"ph\":\"E\"");
			}
		}
		/* every cut adds a piece of a zone; outer is in every part */
		CHECK_EQ(zones, 2001 + cuts);
		CHECK(cuts >= t.m.n - 1);
		if (formats[k] == PROFEV_CONV_CHROME)
			CHECK_EQ(outer, t.m.n);
		tw_free(&t);
	}
}

/* A cut trace: what was written converts, the reader's error comes back. */
static void test_cut(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_PERFETTO);
	basic(&t);
	CHECK_EQ(tw_conv(&t, 1), PROFEV_E_NOEND);
	struct perfetto_seen s;
	perfetto_check(t.m.part[0], t.m.len[0], &s);
	CHECK_EQ(s.errors, 0);
	CHECK_EQ(s.begins, 6);
	tw_free(&t);

	/* Cut inside zones: they close at their thread's last event, marked. */
	tw_new(&t, PROFEV_CONV_CHROME);
	CHECK_EQ(profev_writer_thread(t.w, 5, 5, "main"), 0);
	zb(&t, 10, 5, "a", NULL);
	zb(&t, 20, 5, "b", NULL);
	ev(&t, PROFEV_EV_INSTANT, 30, 5, "i", 0);
	CHECK_EQ(tw_conv(&t, 1), PROFEV_E_NOEND);
	CHECK(strstr(t.m.part[0], "{\"ph\":\"B\",\"ts\":0.01,\"pid\":5,\"tid\":5,\"name\":\"b\",\"args\":{\"unclosed\":true}},\n"
			"{\"ph\":\"E\",\"ts\":0.02,\"pid\":5,\"tid\":5,\"name\":\"b\",\"args\":{\"unclosed\":true}}") != NULL);
	CHECK(strstr(t.m.part[0], "{\"ph\":\"B\",\"ts\":0,\"pid\":5,\"tid\":5,\"name\":\"a\",\"args\":{\"unclosed\":true}},\n"
			"{\"ph\":\"E\",\"ts\":0.02,\"pid\":5,\"tid\":5,\"name\":\"a\",\"args\":{\"unclosed\":true}}") != NULL);
	CHECK_EQ(t.st.unclosed, 2);
	tw_free(&t);
}

/* Nesting past the limit: the extra zones are dropped with one warning
 * each (then a summary), their ends too, and the rest stays balanced. */
static void test_depth(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_PERFETTO);
	unsigned n = PROFEV_CONV_MAX_DEPTH + 10;
	for (unsigned i = 0; i < n; i++)
		zb(&t, i, 5, "deep", NULL);
	for (unsigned i = 0; i < n; i++)
		ze(&t, n + i, 5);
	ze(&t, 3 * n, 5); /* one too many */
	CHECK_EQ(tw_conv(&t, 0), 0);
	struct perfetto_seen s;
	perfetto_check(t.m.part[0], t.m.len[0], &s);
	CHECK_EQ(s.errors, 0);
	CHECK_EQ(s.begins, PROFEV_CONV_MAX_DEPTH);
	CHECK_EQ(s.ends, PROFEV_CONV_MAX_DEPTH);
	CHECK_EQ(t.st.unmatched_ends, 1);
	CHECK(strstr(t.m.warnings, "5 more zones nested too deep\n") != NULL);
	tw_free(&t);
}

/* Names that are not UTF-8 give valid output in every format. */
static void test_bad_utf8(void)
{
	static const int formats[] = { PROFEV_CONV_PERFETTO, PROFEV_CONV_CHROME, PROFEV_CONV_FOLDED };
	for (int i = 0; i < 3; i++) {
		struct tw t;
		tw_new(&t, formats[i]);
		CHECK_EQ(profev_writer_thread(t.w, 5, 5, "th\xff"), 0);
		zb(&t, 10, 5, "bad\xc3(;\n", "c\x80");
		ze(&t, 20, 5);
		message(&t, 30, 5, "m\xfe");
		CHECK_EQ(tw_conv(&t, 0), 0);
		CHECK(t.st.replaced_bytes >= 2);
		if (formats[i] == PROFEV_CONV_FOLDED)
			CHECK_STR(t.m.part[0], "th\xef\xbf\xbd (5);bad\xef\xbf\xbd(:  10\n");
		if (formats[i] == PROFEV_CONV_CHROME)
			CHECK(strstr(t.m.part[0], "\"name\":\"bad\xef\xbf\xbd(;\\n\",\"cat\":\"c\xef\xbf\xbd\"") != NULL);
		tw_free(&t);
	}
}

/* String ids the trace never defined (a hostile or damaged trace) read as
 * unnamed: no table is sized by them. */
static void test_undefined_ids(void)
{
	static const int formats[] = { PROFEV_CONV_PERFETTO, PROFEV_CONV_CHROME, PROFEV_CONV_FOLDED };
	for (int i = 0; i < 3; i++) {
		struct tw t;
		tw_new(&t, formats[i]);
		struct profev_event e = { .ts = 10, .tid = 5, .type = PROFEV_EV_ZONE_BEGIN,
					  .name = 0xfffffff0u, .payload = 0xfffffff1u };
		if (profev_writer_event(t.w, &e) != 0) {
			/* the writer refuses them: nothing to test in this build */
			profev_writer_free(t.w);
			fclose(t.f);
			return;
		}
		e.ts = 20;
		e.type = PROFEV_EV_ZONE_END;
		CHECK_EQ(profev_writer_event(t.w, &e), 0);
		e.type = PROFEV_EV_COUNTER;
		CHECK_EQ(profev_writer_event(t.w, &e), 0);
		int rc = tw_conv(&t, 0);
		CHECK(rc == 0 || rc == PROFEV_E_CORRUPT);
		if (rc == 0 && formats[i] == PROFEV_CONV_PERFETTO) {
			struct perfetto_seen s;
			perfetto_check(t.m.part[0], t.m.len[0], &s);
			CHECK_EQ(s.errors, 0);
			CHECK_EQ(s.begins, 1);
		}
		if (rc == 0 && formats[i] == PROFEV_CONV_FOLDED)
			CHECK_STR(t.m.part[0], "thread 5;(unnamed) 10\n");
		tw_free(&t);
	}
}

static void test_args(void)
{
	struct tw t;
	tw_new(&t, PROFEV_CONV_FOLDED);
	struct profev_reader *r = tw_read(&t, 0);
	struct profev_conv_sink sink = { mem_open, mem_write, NULL, &t.m };
	struct profev_error err;
	t.o.split_size = 1 << 20;
	CHECK_EQ(profev_conv_run(r, &t.o, &sink, NULL, &err), PROFEV_E_ARG);
	CHECK_STR(err.message, "folded output cannot be split");
	profev_conv_opts_init(&t.o, 99);
	CHECK_EQ(profev_conv_run(r, &t.o, &sink, NULL, &err), PROFEV_E_ARG);
	profev_reader_free(r);
	tw_free(&t);

	CHECK_EQ(profev_conv_format_from_name("chrome"), PROFEV_CONV_CHROME);
	CHECK_EQ(profev_conv_format_from_name("json"), 0);
	CHECK_STR(profev_conv_format_ext(PROFEV_CONV_PERFETTO), ".pftrace");
	CHECK_STR(profev_conv_format_name(PROFEV_CONV_FOLDED), "folded");
}

/* For tests/cli/308-conv-utf8.sh: a trace whose names and message are not
 * UTF-8 and hold quotes, controls, ';' and newlines. */
static int write_odd_names(const char *path)
{
	FILE *f = fopen(path, "wb");
	struct profev_error err;
	struct tw t = { f, f ? profev_writer_new(fileno(f), NULL, &err) : NULL };
	if (!t.w)
		return 1;
	CHECK_EQ(profev_writer_thread(t.w, 5, 5, "th\xff"), 0);
	zb(&t, 10, 5, "bad\xc3(;\n", "c\x80");
	ze(&t, 20, 5);
	zb(&t, 30, 5, "q\"\x01\\", "ok");
	ze(&t, 50, 5);
	message(&t, 60, 5, "m\xfe\"\x01\nline\xed\xa0\x80");
	CHECK_EQ(profev_writer_close(t.w), 0);
	profev_writer_free(t.w);
	fclose(f);
	return CHECK_DONE();
}

/* ---- memory and callstacks ---- */

/* Process 7: main (10) and worker (11); modules game (0, with a build-id)
 * and lib.so (1, without). Callstacks, innermost first:
 *   sa: game+0x100 (symbolized: inl inlined in outer), lib.so+0x20, game+0x10
 *   sb: game+0x200          sc: a pc outside every module
 *   sd: game+0x10 twice (recursion)
 * Memory, (ts tid what): 100 10 alloc 0x1000 100 B sa; 110 11 alloc 0x2000
 * 50 B gpu sb; 120 10 free 0x9999 (unknown); 130 10 alloc 0x3000 30 B sc;
 * 140 10 free 0x1000; 150 11 alloc 0x2000 70 B sd (0x2000 still live in
 * gpu: freed first); 160..170 10 zone Z with sa; 180 10 free 0x2000 named
 * gpu (the block is the default pool's); 190 10 alloc at address 0 5 B.
 * Live bytes: default 100 130 30 100 30 35, gpu 50 0. */
static uint32_t memory_trace(struct tw *t)
{
	static const uint8_t bid[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct profev_module m0 = { "/opt/game/bin/game", bid, 8, 0x555500000000ull, 0x10000 };
	struct profev_module m1 = { "lib.so", NULL, 0, 0x7f0000000000ull, 0x1000 };
	struct profev_meta meta = { .pid = 7, .mono_start_ns = 100 };
	CHECK_EQ(profev_writer_meta(t->w, &meta), 0);
	CHECK_EQ(profev_writer_thread(t->w, 10, 7, "main"), 0);
	CHECK_EQ(profev_writer_thread(t->w, 11, 7, "worker"), 0);
	CHECK_EQ(profev_writer_module(t->w, &m0), 0);
	CHECK_EQ(profev_writer_module(t->w, &m1), 1);
	struct profev_frame fa[3] = { { 0, PROFEV_FRAMEF_RETURN, 0x100 }, { 1, PROFEV_FRAMEF_RETURN, 0x20 },
				      { 0, PROFEV_FRAMEF_RETURN, 0x10 } };
	struct profev_frame fb = { 0, 0, 0x200 }, fc = { 0, PROFEV_FRAMEF_NOMODULE, 0x7fff1234 };
	struct profev_frame fd[2] = { { 0, PROFEV_FRAMEF_RETURN, 0x10 }, { 0, PROFEV_FRAMEF_RETURN, 0x10 } };
	uint32_t sa = profev_writer_stack(t->w, fa, 3), sb = profev_writer_stack(t->w, &fb, 1);
	uint32_t sc = profev_writer_stack(t->w, &fc, 1), sd = profev_writer_stack(t->w, fd, 2);
	struct profev_symframe sym[2] = { { "inl", "a.h", 3, 0 }, { "outer", "a.c", 30, 0 } };
	CHECK_EQ(profev_writer_symbol(t->w, 0, 0x100, sym, 2), 0);
	static const struct { uint64_t ts; uint32_t tid; uint8_t type; const char *pool; uint64_t addr, size; int stack; } seq[] = {
		{ 100, 10, PROFEV_EV_MEM_ALLOC, NULL, 0x1000, 100, 1 },
		{ 110, 11, PROFEV_EV_MEM_ALLOC, "gpu", 0x2000, 50, 2 },
		{ 120, 10, PROFEV_EV_MEM_FREE, NULL, 0x9999, 0, 0 },
		{ 130, 10, PROFEV_EV_MEM_ALLOC, NULL, 0x3000, 30, 3 },
		{ 140, 10, PROFEV_EV_MEM_FREE, NULL, 0x1000, 0, 0 },
		{ 150, 11, PROFEV_EV_MEM_ALLOC, NULL, 0x2000, 70, 4 },
		{ 180, 10, PROFEV_EV_MEM_FREE, "gpu", 0x2000, 0, 0 },
		{ 190, 10, PROFEV_EV_MEM_ALLOC, NULL, 0, 5, 0 },
	};
	uint32_t stacks[5] = { 0, sa, sb, sc, sd };
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		if (seq[i].ts == 180) {
			struct profev_event z = { .ts = 160, .tid = 10, .type = PROFEV_EV_ZONE_BEGIN, .stack = sa };
			z.name = str(t, "Z");
			CHECK_EQ(profev_writer_event(t->w, &z), 0);
			ze(t, 170, 10);
		}
		struct profev_event e = { .ts = seq[i].ts, .tid = seq[i].tid, .type = seq[i].type,
					  .payload = seq[i].size, .stack = stacks[seq[i].stack] };
		e.addr = seq[i].addr;
		e.name = seq[i].pool ? str(t, seq[i].pool) : 0;
		CHECK_EQ(profev_writer_event(t->w, &e), 0);
	}
	return sa;
}

/* The "memory: POOL" counter values of a Chrome output, in order. */
static void chrome_memory(const char *j, const char *pool, char *out, size_t size)
{
	char key[64];
	snprintf(key, sizeof(key), "\"name\":\"memory: %s\",\"args\":{\"bytes\":", pool);
	out[0] = 0;
	for (const char *p = j; (p = strstr(p, key)); p++) {
		size_t used = strlen(out);
		snprintf(out + used, size - used, "%llu,", strtoull(p + strlen(key), NULL, 10));
	}
}

static void test_memory(void)
{
	char got[256];
	struct tw t;
	tw_new(&t, PROFEV_CONV_CHROME);
	memory_trace(&t);
	CHECK_EQ(tw_conv(&t, 0), 0);
	chrome_memory(t.m.part[0], "default", got, sizeof(got));
	CHECK_STR(got, "100,130,30,100,30,35,");
	chrome_memory(t.m.part[0], "gpu", got, sizeof(got));
	CHECK_STR(got, "50,0,");
	CHECK_EQ(count(t.m.part[0], "\"ph\":\"C\""), 8);
	/* zone Z refers to sa's innermost function; its parents are sa's */
	CHECK(strstr(t.m.part[0], "\"name\":\"Z\",\"sf\":\"1.3\"") != NULL);
	CHECK(strstr(t.m.part[0], "\"1.0\":{\"name\":\"game+0x10\",\"category\":\"game\"}") != NULL);
	CHECK(strstr(t.m.part[0], "\"1.1\":{\"name\":\"lib.so+0x20\",\"category\":\"lib.so\",\"parent\":\"1.0\"}") != NULL);
	CHECK(strstr(t.m.part[0], "\"1.2\":{\"name\":\"outer\",\"category\":\"game\",\"parent\":\"1.1\"}") != NULL);
	CHECK(strstr(t.m.part[0], "\"1.3\":{\"name\":\"inl\",\"category\":\"game\",\"parent\":\"1.2\"}") != NULL);
	/* sa's three, and one of the two-frame stack an allocation carries */
	CHECK_EQ(count(t.m.part[0], "\"parent\""), 4);
	CHECK_EQ(count(t.m.part[0], "\"ph\":\"i\",\"s\":\"p\""), 5); /* the allocations */
	tw_free(&t);

	/* A window keeps the values: what was live before it still counts, and
	 * its start restates every pool's live bytes. */
	tw_new(&t, PROFEV_CONV_CHROME);
	memory_trace(&t);
	t.o.from_ns = 35;
	t.o.to_ns = 85;
	CHECK_EQ(tw_conv(&t, 0), 0);
	chrome_memory(t.m.part[0], "default", got, sizeof(got));
	CHECK_STR(got, "130,30,100,30,");
	chrome_memory(t.m.part[0], "gpu", got, sizeof(got));
	CHECK_STR(got, "50,0,");
	CHECK(strstr(t.m.part[0], "{\"ph\":\"C\",\"ts\":0.035,\"pid\":7,\"name\":\"memory: default\",\"args\":{\"bytes\":130}}") != NULL);
	tw_free(&t);

	/* Perfetto: the same values; allocations with their callstacks, each
	 * defined before use; a thread filter keeps every counter value. */
	for (int filter = 0; filter < 2; filter++) {
		tw_new(&t, PROFEV_CONV_PERFETTO);
		uint32_t sa = memory_trace(&t);
		t.o.thread = filter ? "worker" : NULL;
		CHECK_EQ(tw_conv(&t, 0), 0);
		struct perfetto_seen *s = calloc(1, sizeof(*s));
		perfetto_check(t.m.part[0], t.m.len[0], s);
		CHECK_EQ(s->errors, 0);
		CHECK_STR(s->memlog, "default=100,pool=50,default=130,default=30,pool=0,default=100,default=30,default=35,");
		CHECK_EQ(s->allocs, filter ? 2 : 5);
		CHECK_EQ(s->alloc_bytes, filter ? 120 : 255);
		/* allocations with stacks, and zone Z */
		CHECK_EQ(s->stack_refs, filter ? 2 : 5);
		if (!filter) {
			/* sa outermost first: game+0x10, lib.so+0x20, outer, inl;
			 * return addresses, so rel_pc is one less (the call's
			 * last byte, as Perfetto's producers store it) */
			CHECK_EQ(s->stack_n[sa], 4);
			static const uint64_t pc[4] = { 0xf, 0x1f, 0xff, 0xff }, map[4] = { 1, 2, 1, 1 };
			for (unsigned i = 0; i < 4 && i < s->stack_n[sa]; i++) {
				uint64_t fr = s->stack_frames[sa][i];
				CHECK_EQ(s->frame_pc[fr], pc[i]);
				CHECK_EQ(s->frame_map[fr], map[i]);
				CHECK_EQ(s->frame_fn[fr] != 0, i >= 2);
			}
		}
		free(s);
		tw_free(&t);
	}

	/* Split: each part defines again the callstacks it uses. */
	tw_new(&t, PROFEV_CONV_PERFETTO);
	memory_trace(&t);
	t.o.split_size = 600;
	CHECK_EQ(tw_conv(&t, 0), 0);
	CHECK(t.m.n >= 3);
	unsigned refs = 0;
	for (unsigned i = 0; i < t.m.n; i++) {
		struct perfetto_seen *s = calloc(1, sizeof(*s));
		perfetto_check(t.m.part[i], t.m.len[i], s);
		CHECK_EQ(s->errors, 0);
		refs += s->stack_refs;
		free(s);
	}
	CHECK(refs >= 5); /* a zone cut by a split carries its callstack in each piece */
	tw_free(&t);

	/* Chrome split: each part's sf names an entry of its own stackFrames. */
	tw_new(&t, PROFEV_CONV_CHROME);
	memory_trace(&t);
	t.o.split_size = 520;
	CHECK_EQ(tw_conv(&t, 0), 0);
	CHECK(t.m.n >= 2);
	unsigned sfs = 0;
	/* each later part starts with the live bytes so far: the last ends at
	 * default 35 (its last value) and restates gpu's 0 */
	chrome_memory(t.m.part[t.m.n - 1], "default", got, sizeof(got));
	CHECK(strlen(got) >= 3 && strcmp(got + strlen(got) - 3, "35,") == 0);
	chrome_memory(t.m.part[t.m.n - 1], "gpu", got, sizeof(got));
	CHECK_STR(got, "0,");
	for (unsigned i = 0; i < t.m.n; i++) {
		for (const char *p = t.m.part[i]; (p = strstr(p, "\"sf\":\"")); p++, sfs++) {
			char key[40];
			snprintf(key, sizeof(key), "\n\"%.*s\":{", (int)strcspn(p + 6, "\""), p + 6);
			CHECK(strstr(t.m.part[i], key) != NULL);
		}
		CHECK_EQ(count(t.m.part[i], "\"stackFrames\""), count(t.m.part[i], "\"sf\"") ? 1 : 0);
	}
	CHECK(sfs >= 1);
	tw_free(&t);

	/* Folded output has no memory. */
	tw_new(&t, PROFEV_CONV_FOLDED);
	memory_trace(&t);
	CHECK_EQ(tw_conv(&t, 0), 0);
	CHECK_STR(t.m.part[0], "main (10);Z 10\n");
	tw_free(&t);
}

/*
 * Times that would go back on a thread's packet sequence: counters of a
 * thread before its last event (and a counter track's descriptor). Counter
 * values whole and not, and doubles no integer field holds (2^56, -0, -3).
 */
static void clock_back_trace(struct tw *t)
{
	CHECK_EQ(profev_writer_thread(t->w, 100, 42, "main"), 0);
	CHECK_EQ(profev_writer_thread(t->w, 101, 42, "worker"), 0);
	zb(t, 1000, 100, "A", "game");
	ev(t, PROFEV_EV_INSTANT, 1500, 100, "tick", str(t, "game"));
	counter(t, 1200, "fps", 59.5);         /* back */
	counter(t, 1600, "entities", 1000);
	ze(t, 2000, 100);
	counter(t, 1800, "entities", 0);      /* back */
	counter(t, 2500, "entities", 72057594037927936.0);
	counter(t, 2600, "entities", -0.0);
	counter(t, 2700, "entities", -3);
	zb(t, 1050, 101, "W", "game");
	ze(t, 1100, 101);
	counter(t, 3000, "fps", 61);          /* not the thread that wrote last */
}

/* Each thread on a sequence of its own, the process's on 1; what would go
 * back on a thread's clock is written whole on the trace clock. */
static void test_perfetto_sequences(void)
{
	struct tw t;
	struct perfetto_seen s;
	tw_new(&t, PROFEV_CONV_PERFETTO);
	basic(&t);
	CHECK_EQ(tw_conv(&t, 0), 0);
	perfetto_check(t.m.part[0], t.m.len[0], &s);
	CHECK_EQ(s.errors, 0);
	CHECK_EQ(s.nseqs, 4); /* the process, two threads, the frame set */
	CHECK_EQ(s.clock_back, 0);
	tw_free(&t);

	tw_new(&t, PROFEV_CONV_PERFETTO);
	clock_back_trace(&t);
	CHECK_EQ(tw_conv(&t, 0), 0);
	perfetto_check(t.m.part[0], t.m.len[0], &s);
	CHECK_EQ(s.errors, 0);
	CHECK_EQ(s.nseqs, 3);
	CHECK_EQ(s.clock_back, 3); /* and the descriptor of fps */
	CHECK_EQ(s.counters, 7);
	CHECK_EQ(s.begins, 2);
	CHECK_EQ(s.ends, 2);
	tw_free(&t);
}

/* For tests/cli/335-conv-perfetto-sequences.sh. */
static int write_clock_back(const char *path)
{
	FILE *f = fopen(path, "wb");
	struct profev_error err;
	struct tw t = { f, f ? profev_writer_new(fileno(f), NULL, &err) : NULL };
	if (!t.w)
		return 1;
	clock_back_trace(&t);
	CHECK_EQ(profev_writer_close(t.w), 0);
	profev_writer_free(t.w);
	fclose(f);
	return CHECK_DONE();
}

/* For tests/cli/310-conv-memory.sh. */
static int write_memory(const char *path)
{
	FILE *f = fopen(path, "wb");
	struct profev_error err;
	struct tw t = { f, f ? profev_writer_new(fileno(f), NULL, &err) : NULL };
	if (!t.w)
		return 1;
	memory_trace(&t);
	CHECK_EQ(profev_writer_close(t.w), 0);
	profev_writer_free(t.w);
	fclose(f);
	return CHECK_DONE();
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write-odd-names") == 0)
		return write_odd_names(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--write-memory") == 0)
		return write_memory(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--write-clock-back") == 0)
		return write_clock_back(argv[2]);
	test_folded();
	test_chrome();
	test_perfetto();
	test_perfetto_sequences();
	test_unbalanced();
	test_window();
	test_thread_filter();
	test_filter_rename();
	test_split();
	test_cut();
	test_depth();
	test_bad_utf8();
	test_undefined_ids();
	test_args();
	test_memory();
	test_lock_holders();
	return CHECK_DONE();
}
