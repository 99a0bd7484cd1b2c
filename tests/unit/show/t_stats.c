/* Statistics and listings (stats.c, dump.c, zone_track.c) and the interning
 * tables (strtab.c, cstack.c) on traces with known answers. */
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "synth.h"
#include "trace/trace_internal.h"
#include "profev_dump.h"
#include "show/zone_track.h"

static FILE *tmp;

/* Thread 1: A(0..1000) { B(100..400) { C(150..200) } D(500..900) }, then
 * E left open. Thread 2: an end without a begin, then A(0..10) twice.
 * Memory: pool "gpu": 100 and 50 bytes, 100 freed; default pool: 7 bytes.
 * Two LOST events of 3 and 4. */
static FILE *known_trace(void)
{
	tmp = tmpfile();
	struct profev_writer *w = profev_writer_new(fileno(tmp), NULL, NULL);
	uint32_t id[5];
	const char *names[5] = { "A", "B", "C", "D", "E" };
	for (int i = 0; i < 5; i++)
		id[i] = profev_writer_cstring(w, names[i]);
	uint32_t gpu = profev_writer_cstring(w, "gpu");
	static const struct { uint8_t type; int name; uint64_t ts; } seq[] = {
		{ PROFEV_EV_ZONE_BEGIN, 0, 0 }, { PROFEV_EV_ZONE_BEGIN, 1, 100 }, { PROFEV_EV_ZONE_BEGIN, 2, 150 },
		{ PROFEV_EV_ZONE_END, 2, 200 }, { PROFEV_EV_ZONE_END, 1, 400 }, { PROFEV_EV_ZONE_BEGIN, 3, 500 },
		{ PROFEV_EV_ZONE_END, 3, 900 }, { PROFEV_EV_ZONE_END, 0, 1000 }, { PROFEV_EV_ZONE_BEGIN, 4, 1100 },
	};
	int rc = 0;
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct profev_event e = synth_event(seq[i].type, 10000 + seq[i].ts, 1, id[seq[i].name], 0);
		rc |= profev_writer_event(w, &e);
	}
	struct profev_event e = synth_event(PROFEV_EV_ZONE_END, 10000, 2, id[1], 0);
	rc |= profev_writer_event(w, &e);
	for (int k = 0; k < 2; k++) {
		e = synth_event(PROFEV_EV_ZONE_BEGIN, 10000 + k * 20, 2, id[0], 0);
		rc |= profev_writer_event(w, &e);
		e = synth_event(PROFEV_EV_ZONE_END, 10010 + k * 20, 2, 0, 0); /* an end without its name */
		rc |= profev_writer_event(w, &e);
	}
	e = synth_event(PROFEV_EV_MEM_ALLOC, 10050, 2, gpu, 100);
	e.addr = 0x1000;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_MEM_ALLOC, 10051, 2, gpu, 50);
	e.addr = 0x2000;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_MEM_ALLOC, 10052, 2, 0, 7);
	e.addr = 0x3000;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_MEM_FREE, 10053, 2, gpu, 0);
	e.addr = 0x1000;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_LOST, 10054, 2, 0, 3);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_LOST, 10055, 1, 0, 4);
	rc |= profev_writer_event(w, &e);
	rc |= profev_writer_close(w);
	CHECK_EQ(rc, 0);
	profev_writer_free(w);
	rewind(tmp);
	return tmp;
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
	FILE *f = known_trace();
	struct profev_reader *r = profev_reader_new(f, NULL);
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
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	profev_stats_write(s, r, out, 2);
	fclose(out);
	CHECK(strstr(text, "events:       20 in") != NULL);
	CHECK(strstr(text, "lost events:  7") != NULL);
	CHECK(strstr(text, "1 ends without a begin, 1 never closed") != NULL);
	CHECK(strstr(text, "  A  ") != NULL && strstr(text, "  C  ") == NULL); /* top 2 only */
	free(text);
	profev_stats_free(s);
	profev_reader_free(r);
	fclose(f);
}

static void test_dump(void)
{
	FILE *f = known_trace();
	struct profev_reader *r = profev_reader_new(f, NULL);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	CHECK_EQ(profev_dump_events(r, out, PROFEV_DUMP_JSONL), 0);
	fclose(out);
	/* C's end carries its 50 ns; the nameless end on thread 2 gets A's name. */
	CHECK(strstr(text, "\"type\":\"zone_end\",\"name\":\"C\",\"category\":\"\",\"frame\":0,\"duration_ns\":50") != NULL);
	CHECK(strstr(text, "{\"ts\":10,\"tid\":2,\"thread\":\"\",\"type\":\"zone_end\",\"name\":\"A\"") != NULL);
	int lines = 0;
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	CHECK_EQ(lines, 20);
	free(text);
	profev_reader_free(r);
	fclose(f);
}

/* A known pattern: 10 blocks of 16 from stack 1 (4 freed), one of 500 from
 * stack 2 in pool "gpu", a realloc-like reuse of one address, a free of an
 * unknown address; the leak report groups and orders them exactly. */
static void test_leaks(void)
{
	FILE *f = tmpfile();
	struct profev_writer *w = profev_writer_new(fileno(f), NULL, NULL);
	struct profev_frame fr[2] = { { 0, 0, 0x10 }, { 0, 0, 0x20 } };
	struct profev_module m = { "/bin/x", NULL, 0, 0, 0x1000 };
	int rc = profev_writer_module(w, &m);
	uint32_t s1 = profev_writer_stack(w, fr, 1), s2 = profev_writer_stack(w, fr, 2);
	uint32_t gpu = profev_writer_cstring(w, "gpu");
	uint64_t t = 1;
	for (int i = 0; i < 10; i++) {
		struct profev_event e = synth_event(PROFEV_EV_MEM_ALLOC, t++, 1, 0, 16);
		e.addr = 0x1000 + 0x100 * (uint64_t)i;
		e.stack = s1;
		rc |= profev_writer_event(w, &e);
	}
	for (int i = 0; i < 4; i++) {
		struct profev_event e = synth_event(PROFEV_EV_MEM_FREE, t++, 1, 0, 0);
		e.addr = 0x1000 + 0x100 * (uint64_t)i;
		rc |= profev_writer_event(w, &e);
	}
	struct profev_event e = synth_event(PROFEV_EV_MEM_ALLOC, t++, 2, gpu, 500);
	e.addr = 0x9000;
	e.stack = s2;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_MEM_ALLOC, t++, 2, 0, 16); /* reuses a live address */
	e.addr = 0x1900;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_MEM_FREE, t++, 2, 0, 0);
	e.addr = 0xdead;
	rc |= profev_writer_event(w, &e);
	rc |= profev_writer_close(w);
	CHECK_EQ(rc, 0);
	profev_writer_free(w);
	rewind(f);
	struct profev_reader *r = profev_reader_new(f, NULL);
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
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	CHECK_EQ(profev_leaks_write(s, r, out), 0);
	fclose(out);
	CHECK(strstr(text, "596 bytes in 7 blocks still allocated at the end, in 3 groups") != NULL);
	CHECK(strstr(text, "500 bytes in 1 blocks, pool gpu, allocated at:\n        #0  x+0x10\n        #1  x+0x20") != NULL);
	free(text);
	profev_stats_free(s);
	profev_reader_free(r);
	fclose(f);
}

/* Memory events from the SECURE macros say so in both listings. */
static void test_dump_secure(void)
{
	FILE *f = tmpfile();
	struct profev_writer *w = profev_writer_new(fileno(f), NULL, NULL);
	struct profev_event e = synth_event(PROFEV_EV_MEM_ALLOC, 5, 1, 0, 8);
	e.addr = 0x10;
	e.flags = PROFEV_EVF_SECURE;
	CHECK_EQ(profev_writer_event(w, &e), 0);
	CHECK_EQ(profev_writer_close(w), 0);
	profev_writer_free(w);
	for (int format = PROFEV_DUMP_TEXT; format <= PROFEV_DUMP_JSONL; format++) {
		rewind(f);
		struct profev_reader *r = profev_reader_new(f, NULL);
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		CHECK_EQ(profev_dump_events(r, out, (enum profev_dump_format)format), 0);
		fclose(out);
		CHECK(strstr(text, format == PROFEV_DUMP_TEXT ? "0x10 8 bytes (secure)" : "\"secure\":true") != NULL);
		free(text);
		profev_reader_free(r);
	}
	fclose(f);
}

static void test_zone_track(void)
{
	struct zone_track *z = zone_track_new();
	uint32_t name;
	uint64_t ts;
	CHECK_EQ(zone_track_end(z, 5, &name, &ts), 0);
	for (uint32_t t = 0; t < 1000; t++) /* forces the table to grow */
		CHECK_EQ(zone_track_begin(z, t, t + 1, t * 10), 0);
	CHECK_EQ(zone_track_begin(z, 7, 99, 12345), 0);
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

static void test_interning(void)
{
	struct strtab *t = strtab_new();
	int is_new;
	char buf[32];
	for (int i = 0; i < 10000; i++) {
		int n = snprintf(buf, sizeof(buf), "name %d", i);
		CHECK_EQ(strtab_intern(t, buf, (size_t)n, &is_new), i + 1);
		CHECK(is_new);
	}
	CHECK_EQ(strtab_intern(t, "name 42", 7, &is_new), 43);
	CHECK(!is_new);
	CHECK_EQ(strtab_append(t, "name 42", 7), 10001); /* a forced copy gets a new id */
	CHECK_EQ(strtab_intern(t, "name 42", 7, &is_new), 43);
	CHECK_EQ(strtab_intern(t, "", 0, &is_new), 10002);
	CHECK_EQ(strtab_count(t), 10002);
	strtab_free(t);

	struct cstack *c = cstack_new();
	struct profev_frame f[3] = { { 1, 0, 10 }, { 1, 0, 20 }, { 2, 1, 30 } };
	uint32_t a = cstack_intern(c, f, 3, &is_new);
	CHECK(is_new);
	CHECK_EQ(cstack_intern(c, f, 3, &is_new), a);
	CHECK(!is_new);
	CHECK(cstack_intern(c, f, 2, &is_new) != a);
	CHECK(cstack_intern(c, f + 1, 2, &is_new) != a);
	CHECK_EQ(cstack_append(c, f, 3), 4);
	CHECK_EQ(cstack_count(c), 4);
	cstack_free(c);
}

int main(void)
{
	test_stats();
	test_dump();
	test_leaks();
	test_dump_secure();
	test_zone_track();
	test_interning();
	return CHECK_DONE();
}
