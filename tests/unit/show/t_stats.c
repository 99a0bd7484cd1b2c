/* Statistics and listings (stats.c, listing.c, zone_track.c) on traces with
 * known answers. */
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "synth.h"
#include "profev_dump.h"
#include "show/zone_track.h"

/* The fixture: a trace written into a temporary file, then read back. */
struct fx {
	FILE *f;
	struct profev_writer *w;
	struct profev_reader *r;
	int rc; /* the writes' return codes, or'ed */
};

static struct fx fx_new(void)
{
	struct fx x = { tmpfile(), NULL, NULL, 0 };
	x.w = profev_writer_new(fileno(x.f), NULL, NULL);
	return x;
}

static void fx_event(struct fx *x, struct profev_event e)
{
	x->rc |= profev_writer_event(x->w, &e);
}

/* An event at addr (memory events) or with stack set. */
static void fx_mem(struct fx *x, uint8_t type, uint64_t ts, uint32_t tid, uint32_t pool, uint64_t size,
		   uint64_t addr, uint32_t stack)
{
	struct profev_event e = synth_event(type, ts, tid, pool, size);
	e.addr = addr;
	e.stack = stack;
	fx_event(x, e);
}

/* Ends the trace on the first call; (re)opens a reader from its start. */
static struct profev_reader *fx_read(struct fx *x)
{
	if (x->w) {
		x->rc |= profev_writer_close(x->w);
		CHECK_EQ(x->rc, 0);
		profev_writer_free(x->w);
		x->w = NULL;
	}
	profev_reader_free(x->r);
	rewind(x->f);
	return x->r = profev_reader_new(x->f, NULL);
}

static void fx_free(struct fx *x)
{
	profev_reader_free(x->r);
	fclose(x->f);
}

/* What a listing writes, in memory. */
struct text {
	char *s;
	size_t len;
	FILE *out;
};

static FILE *text_open(struct text *t)
{
	t->s = NULL;
	t->len = 0;
	return t->out = open_memstream(&t->s, &t->len);
}

static const char *text_close(struct text *t)
{
	fclose(t->out);
	return t->s;
}

/* Thread 1: A(0..1000) { B(100..400) { C(150..200) } D(500..900) }, then
 * E left open. Thread 2: an end without a begin, then A(0..10) twice.
 * Memory: pool "gpu": 100 and 50 bytes, 100 freed; default pool: 7 bytes.
 * Two LOST events of 3 and 4. */
static struct fx known_trace(void)
{
	struct fx x = fx_new();
	uint32_t id[5];
	const char *names[5] = { "A", "B", "C", "D", "E" };
	for (int i = 0; i < 5; i++)
		id[i] = profev_writer_cstring(x.w, names[i]);
	uint32_t gpu = profev_writer_cstring(x.w, "gpu");
	static const struct { uint8_t type; int name; uint64_t ts; } seq[] = {
		{ PROFEV_EV_ZONE_BEGIN, 0, 0 }, { PROFEV_EV_ZONE_BEGIN, 1, 100 }, { PROFEV_EV_ZONE_BEGIN, 2, 150 },
		{ PROFEV_EV_ZONE_END, 2, 200 }, { PROFEV_EV_ZONE_END, 1, 400 }, { PROFEV_EV_ZONE_BEGIN, 3, 500 },
		{ PROFEV_EV_ZONE_END, 3, 900 }, { PROFEV_EV_ZONE_END, 0, 1000 }, { PROFEV_EV_ZONE_BEGIN, 4, 1100 },
	};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
		fx_event(&x, synth_event(seq[i].type, 10000 + seq[i].ts, 1, id[seq[i].name], 0));
	fx_event(&x, synth_event(PROFEV_EV_ZONE_END, 10000, 2, id[1], 0));
	for (int k = 0; k < 2; k++) {
		fx_event(&x, synth_event(PROFEV_EV_ZONE_BEGIN, 10000 + k * 20, 2, id[0], 0));
		fx_event(&x, synth_event(PROFEV_EV_ZONE_END, 10010 + k * 20, 2, 0, 0)); /* an end without its name */
	}
	fx_mem(&x, PROFEV_EV_MEM_ALLOC, 10050, 2, gpu, 100, 0x1000, 0);
	fx_mem(&x, PROFEV_EV_MEM_ALLOC, 10051, 2, gpu, 50, 0x2000, 0);
	fx_mem(&x, PROFEV_EV_MEM_ALLOC, 10052, 2, 0, 7, 0x3000, 0);
	fx_mem(&x, PROFEV_EV_MEM_FREE, 10053, 2, gpu, 0, 0x1000, 0);
	fx_event(&x, synth_event(PROFEV_EV_LOST, 10054, 2, 0, 3));
	fx_event(&x, synth_event(PROFEV_EV_LOST, 10055, 1, 0, 4));
	return x;
}

static const struct profev_zone_stat *zone(const struct profev_stats *s, const struct profev_reader *r,
					   const char *name)
{
	for (uint32_t i = 0; i < s->nzones; i++)
		if (!strcmp(profev_reader_string(r, s->zones[i].name), name))
			return &s->zones[i];
	return NULL;
}

static void test_stats(void)
{
	struct fx x = known_trace();
	struct profev_reader *r = fx_read(&x);
	struct profev_stats *s;
	CHECK_EQ(profev_stats_collect(r, &s), 0);
	CHECK_EQ(s->events, 20);
	CHECK_EQ(s->by_type[PROFEV_EV_ZONE_BEGIN], 7);
	CHECK_EQ(s->by_type[PROFEV_EV_ZONE_END], 7);
	CHECK_EQ(s->unmatched_ends, 1);
	CHECK_EQ(s->unclosed_zones, 1);
	CHECK_EQ(s->lost_events, 7);
	CHECK_EQ(s->nthreads, 2);
	CHECK_EQ(s->first_ts, 10000);
	CHECK_EQ(s->last_ts, 11100);
	CHECK(s->complete);
	const struct profev_zone_stat *a = zone(s, r, "A"), *b = zone(s, r, "B"), *c = zone(s, r, "C");
	const struct profev_zone_stat *d = zone(s, r, "D");
	CHECK(a && b && c && d && !zone(s, r, "E"));
	if (a && b && c && d) {
		CHECK_EQ(a->count, 3);
		CHECK_EQ(a->total_ns, 1020);
		CHECK_EQ(a->min_ns, 10);
		CHECK_EQ(a->max_ns, 1000);
		CHECK_EQ(b->total_ns, 300);
		CHECK_EQ(c->total_ns, 50);
		CHECK_EQ(d->total_ns, 400);
		CHECK(s->zones[0].name == a->name); /* sorted by total time */
		CHECK(s->zones[3].name == c->name);
	}
	CHECK_EQ(s->npools, 2);
	for (uint32_t i = 0; i < s->npools; i++) {
		const struct profev_pool_stat *p = &s->pools[i];
		if (p->name) {
			CHECK_STR(profev_reader_string(r, p->name), "gpu");
			CHECK_EQ(p->allocs, 2);
			CHECK_EQ(p->frees, 1);
			CHECK_EQ(p->alloc_bytes, 150);
			CHECK_EQ(p->peak_bytes, 150);
			CHECK_EQ(p->live_bytes, 50);
		} else {
			CHECK_EQ(p->allocs, 1);
			CHECK_EQ(p->live_bytes, 7);
		}
	}
	struct text out;
	profev_stats_write(s, r, text_open(&out), 2);
	const char *text = text_close(&out);
	CHECK(strstr(text, "events:       20 in") != NULL);
	CHECK(strstr(text, "lost events:  7") != NULL);
	CHECK(strstr(text, "1 ends without a begin, 1 never closed") != NULL);
	CHECK(strstr(text, "  A  ") != NULL && strstr(text, "  C  ") == NULL); /* top 2 only */
	free(out.s);
	profev_stats_free(s);
	fx_free(&x);
}

static void test_dump(void)
{
	struct fx x = known_trace();
	struct text out;
	CHECK_EQ(profev_dump_events(fx_read(&x), text_open(&out), PROFEV_DUMP_JSONL), 0);
	const char *text = text_close(&out);
	/* C's end carries its 50 ns; the nameless end on thread 2 gets A's name. */
	CHECK(strstr(text, "\"type\":\"zone_end\",\"name\":\"C\",\"category\":\"\",\"frame\":0,\"duration_ns\":50") != NULL);
	CHECK(strstr(text, "{\"ts\":10,\"tid\":2,\"thread\":\"\",\"type\":\"zone_end\",\"name\":\"A\"") != NULL);
	int lines = 0;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	CHECK_EQ(lines, 20);
	free(out.s);
	fx_free(&x);
}

/* A known pattern: 10 blocks of 16 from stack 1 (4 freed), one of 500 from
 * stack 2 in pool "gpu", a realloc-like reuse of one address, a free of an
 * unknown address; the leak report groups and orders them exactly. */
static void test_leaks(void)
{
	struct fx x = fx_new();
	struct profev_frame fr[2] = { { 0, 0, 0x10 }, { 0, 0, 0x20 } };
	struct profev_module m = { "/bin/x", NULL, 0, 0, 0x1000 };
	x.rc |= profev_writer_module(x.w, &m);
	uint32_t s1 = profev_writer_stack(x.w, fr, 1), s2 = profev_writer_stack(x.w, fr, 2);
	uint32_t gpu = profev_writer_cstring(x.w, "gpu");
	uint64_t t = 1;
	for (int i = 0; i < 10; i++)
		fx_mem(&x, PROFEV_EV_MEM_ALLOC, t++, 1, 0, 16, 0x1000 + 0x100 * (uint64_t)i, s1);
	for (int i = 0; i < 4; i++)
		fx_mem(&x, PROFEV_EV_MEM_FREE, t++, 1, 0, 0, 0x1000 + 0x100 * (uint64_t)i, 0);
	fx_mem(&x, PROFEV_EV_MEM_ALLOC, t++, 2, gpu, 500, 0x9000, s2);
	fx_mem(&x, PROFEV_EV_MEM_ALLOC, t++, 2, 0, 16, 0x1900, 0); /* reuses a live address */
	fx_mem(&x, PROFEV_EV_MEM_FREE, t++, 2, 0, 0, 0xdead, 0);
	struct profev_reader *r = fx_read(&x);
	struct profev_stats *s;
	CHECK_EQ(profev_stats_collect(r, &s), 0);
	CHECK_EQ(s->nleaks, 3);
	if (s->nleaks == 3) {
		CHECK_EQ(s->leaks[0].bytes, 500);
		CHECK_EQ(s->leaks[0].stack, s2);
		CHECK_EQ(s->leaks[0].pool, gpu);
		CHECK_EQ(s->leaks[1].bytes, 5 * 16);
		CHECK_EQ(s->leaks[1].blocks, 5);
		CHECK_EQ(s->leaks[1].stack, s1);
		CHECK_EQ(s->leaks[2].bytes, 16);
		CHECK_EQ(s->leaks[2].stack, 0);
	}
	struct text out;
	CHECK_EQ(profev_leaks_write(s, r, text_open(&out)), 0);
	const char *text = text_close(&out);
	CHECK(strstr(text, "596 bytes in 7 blocks still allocated at the end, in 3 groups") != NULL);
	CHECK(strstr(text, "500 bytes in 1 blocks, pool gpu, allocated at:\n        #0  x+0x10\n        #1  x+0x20") != NULL);
	free(out.s);
	profev_stats_free(s);
	fx_free(&x);
}

/* Memory events from the SECURE macros say so in both listings. */
static void test_dump_secure(void)
{
	struct fx x = fx_new();
	struct profev_event e = synth_event(PROFEV_EV_MEM_ALLOC, 5, 1, 0, 8);
	e.addr = 0x10;
	e.flags = PROFEV_EVF_SECURE;
	fx_event(&x, e);
	for (int format = PROFEV_DUMP_TEXT; format <= PROFEV_DUMP_JSONL; format++) {
		struct text out;
		CHECK_EQ(profev_dump_events(fx_read(&x), text_open(&out), (enum profev_dump_format)format), 0);
		const char *text = text_close(&out);
		CHECK(strstr(text, format == PROFEV_DUMP_TEXT ? "0x10 8 bytes (secure)" : "\"secure\":true") != NULL);
		free(out.s);
	}
	fx_free(&x);
}

static void test_zone_track(void)
{
	struct zone_track *z = zone_track_new();
	uint32_t name;
	uint64_t ts;
	CHECK_EQ(zone_track_end(z, 5, &name, &ts), 0);
	for (uint32_t t = 0; t < 1000; t++) /* forces the table to grow */
		CHECK_EQ(zone_track_begin(z, t, t + 1, t * 10, NULL), 0);
	uint32_t outer = 0;
	CHECK_EQ(zone_track_begin(z, 7, 99, 12345, &outer), 1); /* inside zone 8 */
	CHECK_EQ(outer, 8);
	CHECK_EQ(zone_track_depth(z, 7), 2);
	CHECK_EQ(zone_track_end(z, 7, &name, &ts), 1);
	CHECK_EQ(name, 99);
	CHECK_EQ(ts, 12345);
	CHECK_EQ(zone_track_end(z, 7, &name, &ts), 1);
	CHECK_EQ(name, 8);
	CHECK_EQ(zone_track_open(z), 999);
	CHECK_EQ(zone_track_thread(z, 0), 0);
	CHECK_EQ(zone_track_thread(z, 999), 999);
	zone_track_free(z);
	zone_track_free(NULL);
}

/* Samples and switches, written ahead of the zones of their thread as
 * pfrec may: the zone a thread was in when it went off CPU is found once
 * the zones have caught up. */
static void test_samples(void)
{
	struct fx x = fx_new();
	struct profev_module m = { "/bin/prog", NULL, 0, 0x400000, 0x1000 };
	CHECK_EQ(profev_writer_module(x.w, &m), 0);
	struct profev_frame a[2] = { { 0, 0, 0x10 }, { 0, PROFEV_FRAMEF_RETURN, 0x50 } };
	struct profev_frame b[2] = { { 0, 0, 0x20 }, { 0, PROFEV_FRAMEF_RETURN, 0x50 } };
	uint32_t sa = profev_writer_stack(x.w, a, 2), sb = profev_writer_stack(x.w, b, 2);
	struct profev_symframe leaf = { "leaf_a", "a.c", 3, 0 }, main_fn = { "main", "a.c", 9, 0 };
	CHECK_EQ(profev_writer_symbol(x.w, 0, 0x10, &leaf, 1), 0);
	CHECK_EQ(profev_writer_symbol(x.w, 0, 0x50, &main_fn, 1), 0);
	uint32_t z = profev_writer_cstring(x.w, "Z");
	static const struct { uint8_t type; uint64_t ts; uint64_t payload; int stack; } seq[] = {
		{ PROFEV_EV_SAMPLE, 1500, 0, 1 }, { PROFEV_EV_SWITCH_OUT, 2000, 1, 0 },
		{ PROFEV_EV_SWITCH_IN, 2500, 0, 0 }, { PROFEV_EV_SAMPLE, 2600, 0, 1 },
		{ PROFEV_EV_SWITCH_OUT, 3000, 1 | PROFEV_SWITCH_PREEMPTED, 0 },
		{ PROFEV_EV_SWITCH_IN, 3100, 1, 0 }, { PROFEV_EV_SAMPLE, 3200, 1, 1 },
		{ PROFEV_EV_SAMPLE, 3300, 1, 2 }, { PROFEV_EV_SWITCH_OUT, 6000, 1, 0 },
		{ PROFEV_EV_SWITCH_IN, 6010, 1, 0 }, { PROFEV_EV_SAMPLE_LOST, 6020, 7, 0 },
	};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct profev_event e = synth_event(seq[i].type, seq[i].ts, 5, 0, seq[i].payload);
		e.stack = seq[i].stack == 1 ? sa : seq[i].stack == 2 ? sb : 0;
		fx_event(&x, e);
	}
	fx_event(&x, synth_event(PROFEV_EV_ZONE_BEGIN, 1000, 5, z, 0));
	fx_event(&x, synth_event(PROFEV_EV_ZONE_END, 5000, 5, z, 0));
	struct profev_reader *r = fx_read(&x);
	struct profev_stats *s;
	CHECK_EQ(profev_stats_collect(r, &s), 0);
	CHECK_EQ(s->samples, 4);
	CHECK_EQ(s->lost_samples, 7);
	CHECK_EQ(s->nsched, 1);
	const struct profev_sched_stat *t = &s->sched[0];
	CHECK_EQ(t->tid, 5);
	CHECK_EQ(t->samples, 4);
	CHECK_EQ(t->switches, 3);
	CHECK_EQ(t->preempted, 1);
	CHECK_EQ(t->off_ns, 500 + 100 + 10);
	CHECK_EQ(t->on_ns, 500 + 2900);
	CHECK_EQ(t->nlongest, 3);
	CHECK_EQ(t->longest[0].ts, 2000);
	CHECK_EQ(t->longest[0].ns, 500);
	CHECK_EQ(t->longest[0].preempted, 0);
	CHECK_STR(profev_reader_string(r, t->longest[0].zone), "Z");
	CHECK_EQ(t->longest[0].zone_known, 1);
	CHECK_EQ(t->longest[1].ns, 100);
	CHECK_EQ(t->longest[1].preempted, 1);
	CHECK_STR(profev_reader_string(r, t->longest[1].zone), "Z");
	CHECK_EQ(t->longest[2].ns, 10);
	CHECK_EQ(t->longest[2].zone, 0);
	CHECK_EQ(t->longest[2].zone_known, 1);
	CHECK_EQ(s->nfuncs, 3);
	CHECK_STR(s->funcs[0].name, "leaf_a");
	CHECK_EQ(s->funcs[0].self, 3);
	CHECK_EQ(s->funcs[0].total, 3);
	CHECK_STR(s->funcs[1].name, "prog+0x20");
	CHECK_EQ(s->funcs[1].self, 1);
	CHECK_STR(s->funcs[2].name, "main");
	CHECK_EQ(s->funcs[2].self, 0);
	CHECK_EQ(s->funcs[2].total, 4);
	struct text out;
	profev_stats_write(s, r, text_open(&out), 20);
	const char *txt = text_close(&out);
	CHECK(strstr(txt, "longest stretches off CPU") != NULL);
	CHECK(strstr(txt, "top functions by total samples") != NULL);
	free(out.s);
	profev_stats_free(s);
	fx_free(&x);
}

int main(void)
{
	test_stats();
	test_samples();
	test_dump();
	test_leaks();
	test_dump_secure();
	test_zone_track();
	return CHECK_DONE();
}
