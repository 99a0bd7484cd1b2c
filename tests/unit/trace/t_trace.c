/* The trace format: round trips of every event and chunk kind, dedup, cut
 * and corrupted files, unknown chunks, version and magic checks. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "synth.h"
#include "tracemem.h"
#include "trace/trace_internal.h"
#include "profev_trace.h"

/* Runs fill() on a writer over a temporary file and returns the bytes. */
static struct tracemem write_trace(int (*fill)(struct profev_writer *), const struct profev_writer_opts *opts)
{
	struct tracemem m;
	struct profev_error err;
	int rc = tracemem_write(&m, fill, opts, &err);
	CHECK_EQ(rc, 0);
	if (rc)
		fprintf(stderr, "writer: %s\n", err.message);
	return m;
}

/* Reads all events; returns the count, *rc the final status. */
static uint64_t read_all(const void *data, size_t len, int *rc, int *open_code)
{
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(data, len, &f, &err);
	uint64_t n = 0;
	*open_code = 0;
	if (!r) {
		*open_code = err.code;
		*rc = err.code;
		fclose(f);
		return 0;
	}
	struct profev_event ev;
	struct profev_event_info info;
	while ((*rc = profev_reader_next_event(r, &ev, &info)) > 0)
		n++;
	profev_reader_free(r);
	fclose(f);
	return n;
}

/* ---- every kind ---- */

static const uint8_t build_id[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
static uint32_t stack_a, stack_b;

static int fill_all(struct profev_writer *w)
{
	static const char *const argv[] = { "game", "-x", "" };
	struct profev_meta m = { .program = "game", .argv = argv, .argc = 3, .pid = 77, .host = "h",
				 .wall_start_ns = -5, .mono_start_ns = 1000, .ticks_per_ns = 2.75,
				 .tick_base = 99, .clock = "tsc", .recorder = "unit" };
	int rc = profev_writer_meta(w, &m);
	rc |= profev_writer_thread(w, 10, 77, "main");
	rc |= profev_writer_thread(w, 11, 77, NULL);
	struct profev_module mod = { "/bin/game", build_id, 20, 0x400000, 0x1000 };
	rc |= profev_writer_module(w, &mod);
	struct profev_frame f[2] = { { 0, PROFEV_FRAMEF_RETURN, 0x10 }, { 0, 0, UINT64_MAX } };
	stack_a = profev_writer_stack(w, f, 2);
	stack_b = profev_writer_stack(w, f, 1);
	struct profev_symframe sf[2] = { { "inl", "a.c", 3, 4 }, { "outer", NULL, 9, 0 } };
	rc |= profev_writer_symbol(w, 0, 0x10, sf, 2);
	uint32_t zone = profev_writer_cstring(w, "zone"), cat = profev_writer_cstring(w, "cat");
	uint32_t ctr = profev_writer_cstring(w, "ctr");
	struct profev_event e = synth_event(PROFEV_EV_FRAME_MARK, 1000, 10, 0, 0);
	e.frame = 5;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_ZONE_BEGIN, 1100, 10, zone, cat);
	e.frame = 5;
	e.stack = stack_a;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_COUNTER, 1150, 11, ctr, 0);
	profev_event_set_double(&e, -0.1);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_COUNTER, 1160, 11, ctr, 0);
	profev_event_set_double(&e, NAN);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_INSTANT, 1170, 11, zone, cat);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_MESSAGE, 1180, 11, 0, cat);
	rc |= profev_writer_message(w, &e, "hi\0there", 8);
	e = synth_event(PROFEV_EV_THREAD_NAME, 1190, 11, profev_writer_cstring(w, "worker"), 0);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_MEM_ALLOC, 1200, 11, 0, 1u << 30);
	e.addr = 0xffff800000000000ull;
	e.stack = stack_b;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_MEM_FREE, 1210, 11, 0, 0);
	e.addr = 0x1000;
	e.flags = PROFEV_EVF_SECURE;
	rc |= profev_writer_event(w, &e);
	static const uint8_t px[4] = { 1, 2, 3, 4 };
	struct profev_image img = { 3, 1, 1, PROFEV_IMG_RGBA8, 5, 1220, px, 4 };
	rc |= profev_writer_image(w, &img);
	e = synth_event(PROFEV_EV_FRAME_IMAGE, 1220, 10, 0, 3);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_LOST, 1230, 11, 0, 12345);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_ZONE_END, 900, 10, zone, cat); /* clocks may step back */
	rc |= profev_writer_event(w, &e);
	struct profev_meta end = { .exit_kind = PROFEV_EXIT_SIGNALED, .exit_code = 6, .end_ns = 5000,
				   .lost_events = 12345 };
	rc |= profev_writer_meta(w, &end);
	return rc | profev_writer_close(w);
}

static void test_every_kind(void)
{
	struct tracemem m = write_trace(fill_all, NULL);
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	unsigned seen_kinds = 0;
	struct profev_chunk c;
	struct profev_event evs[32];
	uint32_t nev = 0;
	int rc;
	const char *texts[32] = { 0 };
	while ((rc = profev_reader_next_chunk(r, &c)) > 0) {
		seen_kinds |= 1u << c.kind;
		if (c.kind == PROFEV_CHUNK_IMAGE) {
			CHECK_EQ(c.image->id, 3);
			CHECK_EQ(c.image->format, PROFEV_IMG_RGBA8);
			CHECK_EQ(c.image->size, 4);
			CHECK(c.image->size == 4 && memcmp(c.image->data, "\1\2\3\4", 4) == 0);
		}
		struct profev_event ev;
		struct profev_event_info info;
		for (uint32_t i = 0; i < c.nevents; i++) {
			CHECK_EQ(profev_reader_next_event(r, &ev, &info), 1);
			CHECK(memcmp(&ev, &c.events[i], sizeof(ev)) == 0);
			if (ev.type == PROFEV_EV_MESSAGE)
				CHECK(info.text_len == 8 && memcmp(info.text, "hi\0there", 8) == 0);
			if (ev.type == PROFEV_EV_ZONE_BEGIN) {
				CHECK_STR(info.name, "zone");
				CHECK_STR(info.category, "cat");
				CHECK_STR(info.thread, "main");
			}
			texts[nev] = info.name;
			evs[nev++] = ev;
		}
	}
	(void)texts;
	CHECK_EQ(rc, 0);
	for (unsigned k = PROFEV_CHUNK_META; k <= PROFEV_CHUNK_IMAGE; k++)
		CHECK(seen_kinds & (1u << k));
	CHECK_EQ(nev, 12);
	CHECK_EQ(evs[0].type, PROFEV_EV_FRAME_MARK);
	CHECK_EQ(evs[0].frame, 5);
	CHECK_EQ(evs[1].stack, stack_a);
	CHECK_EQ(evs[2].flags, PROFEV_EVF_DOUBLE);
	CHECK(profev_event_double(&evs[2]) == -0.1);
	CHECK(isnan(profev_event_double(&evs[3])));
	CHECK_EQ(evs[7].addr, 0xffff800000000000ull);
	CHECK_EQ(evs[7].payload, 1u << 30);
	CHECK_EQ(evs[8].flags, PROFEV_EVF_SECURE);
	CHECK_EQ(evs[10].payload, 12345);
	CHECK_EQ(evs[11].ts, 900);
	CHECK_EQ(evs[11].type, PROFEV_EV_ZONE_END);

	const struct profev_meta *mt = profev_reader_meta(r);
	CHECK_STR(mt->program, "game");
	CHECK_EQ(mt->argc, 3);
	CHECK_STR(mt->argv[1], "-x");
	CHECK_STR(mt->argv[2], "");
	CHECK_EQ(mt->pid, 77);
	CHECK_STR(mt->host, "h");
	CHECK_EQ(mt->wall_start_ns, -5);
	CHECK_EQ(mt->mono_start_ns, 1000);
	CHECK(mt->ticks_per_ns == 2.75);
	CHECK_EQ(mt->tick_base, 99);
	CHECK_STR(mt->clock, "tsc");
	CHECK_STR(mt->recorder, "unit");
	CHECK_EQ(mt->exit_kind, PROFEV_EXIT_SIGNALED);
	CHECK_EQ(mt->exit_code, 6);
	CHECK_EQ(mt->end_ns, 5000);
	CHECK_EQ(mt->lost_events, 12345);

	CHECK_STR(profev_reader_thread_name(r, 10), "main");
	CHECK_STR(profev_reader_thread_name(r, 11), "worker"); /* renamed by its event */
	CHECK_EQ(profev_reader_thread_pid(r, 11), 77);
	CHECK_EQ(profev_reader_module_count(r), 1);
	const struct profev_module *mod = profev_reader_module(r, 0);
	CHECK(mod && strcmp(mod->path, "/bin/game") == 0 && mod->build_id_len == 20 &&
	      memcmp(mod->build_id, build_id, 20) == 0 && mod->load_bias == 0x400000 && mod->size == 0x1000);
	unsigned n;
	const struct profev_frame *fr = profev_reader_stack(r, stack_a, &n);
	CHECK_EQ(n, 2);
	CHECK(fr && fr[0].offset == 0x10 && fr[0].flags == PROFEV_FRAMEF_RETURN && fr[1].offset == UINT64_MAX);
	const struct profev_symframe *sf = profev_reader_symbol(r, 0, 0x10, &n);
	CHECK_EQ(n, 2);
	CHECK(sf && !strcmp(sf[0].function, "inl") && !strcmp(sf[0].file, "a.c") && sf[0].line == 3 &&
	      sf[0].column == 4 && !strcmp(sf[1].function, "outer") && sf[1].file == NULL);
	CHECK(profev_reader_symbol(r, 0, 0x11, &n) == NULL);
	const struct profev_totals *t = profev_reader_totals(r);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ(t->events, 12);
		CHECK_EQ(t->stacks, 2);
		CHECK_EQ(t->modules, 1);
		CHECK_EQ(t->images, 1);
		CHECK_EQ(t->lost_events, 12345);
		CHECK_EQ(t->bytes + CHUNK_HEADER_SIZE + (m.len - t->bytes - CHUNK_HEADER_SIZE), m.len);
	}
	profev_reader_free(r);
	fclose(f);
	free(m.data);
}

/* ---- dedup ---- */

static int fill_dedup(struct profev_writer *w)
{
	uint32_t a = profev_writer_cstring(w, "alpha"), b = profev_writer_cstring(w, "beta");
	CHECK(a != b);
	CHECK_EQ(profev_writer_cstring(w, "alpha"), a);
	CHECK_EQ(profev_writer_string(w, "alphabet", 5), a);
	CHECK(profev_writer_string(w, "al\0ha", 5) != a);
	struct profev_frame f[3] = { { 0, 0, 1 }, { 0, 0, 2 }, { 1, 0, 1 } };
	uint32_t s1 = profev_writer_stack(w, f, 3), s2 = profev_writer_stack(w, f, 2);
	CHECK(s1 && s2 && s1 != s2);
	struct profev_frame g[3] = { { 0, 0, 1 }, { 0, 0, 2 }, { 1, 0, 1 } };
	CHECK_EQ(profev_writer_stack(w, g, 3), s1);
	g[2].flags = PROFEV_FRAMEF_RETURN;
	CHECK(profev_writer_stack(w, g, 3) != s1);
	/* Many distinct stacks force the table to grow; ids stay stable. */
	for (uint64_t i = 0; i < 5000; i++) {
		struct profev_frame h = { 2, 0, i };
		uint32_t id = profev_writer_stack(w, &h, 1);
		CHECK(id && profev_writer_stack(w, &h, 1) == id);
	}
	CHECK_EQ(profev_writer_stack(w, f, 3), s1);
	return profev_writer_close(w);
}

static void test_dedup(void)
{
	struct tracemem m = write_trace(fill_dedup, NULL);
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	struct profev_chunk c;
	while (r && profev_reader_next_chunk(r, &c) > 0)
		;
	CHECK(r && profev_reader_string_count(r) == 3);
	CHECK(r && profev_reader_stack_count(r) == 5003);
	CHECK_STR(profev_reader_string(r, 1), "alpha");
	profev_reader_free(r);
	fclose(f);
	free(m.data);
}

/* ---- many events across chunks, deltas per thread ---- */

#define MANY 100000
static struct profev_event *many;

static int fill_many(struct profev_writer *w)
{
	uint64_t x = 12345;
	int rc = 0;
	for (uint32_t i = 0; i < MANY && !rc; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		struct profev_event *e = &many[i];
		memset(e, 0, sizeof(*e));
		e->tid = (uint32_t)(x % 5) + (x % 97 == 0 ? 4000000000u : 0);
		e->type = (uint8_t)(1 + x % 11);
		if (e->type == PROFEV_EV_MESSAGE)
			e->type = PROFEV_EV_INSTANT;
		e->ts = (x % 1000 == 0) ? UINT64_MAX - (x % 77) : i * 1000 + (x >> 50);
		e->frame = x >> 40;
		e->payload = x % 3 ? x : x % 1000;
		e->stack = (uint32_t)(x >> 33);
		e->name = (uint32_t)(x >> 20) % 1000;
		if (x % 7 == 0)
			e->flags = PROFEV_EVF_DOUBLE;
		rc = profev_writer_event(w, e);
	}
	return rc | profev_writer_close(w);
}

static void test_many(void)
{
	many = malloc(MANY * sizeof(*many));
	struct profev_writer_opts opts = { .zstd_level = 1, .chunk_events = 3000 };
	struct tracemem m = write_trace(fill_many, &opts);
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	struct profev_event ev;
	uint32_t i = 0, bad = 0;
	int rc;
	while (r && (rc = profev_reader_next_event(r, &ev, NULL)) > 0) {
		if (i < MANY && memcmp(&ev, &many[i], sizeof(ev)) != 0 && bad++ < 3)
			fprintf(stderr, "event %u differs\n", i);
		i++;
	}
	CHECK_EQ(i, MANY);
	CHECK_EQ(bad, 0);
	CHECK(r && profev_reader_totals(r) && profev_reader_totals(r)->events == MANY);
	profev_reader_free(r);
	fclose(f);
	free(m.data);
	free(many);
}

/* ---- cut at every byte, flipped bytes ---- */

static int fill_small(struct profev_writer *w)
{
	uint32_t name = profev_writer_cstring(w, "z");
	int rc = profev_writer_thread(w, 1, 1, "t");
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 20; i++) {
			struct profev_event e = synth_event(i % 2 ? PROFEV_EV_ZONE_END : PROFEV_EV_ZONE_BEGIN,
						   (uint64_t)(k * 100 + i), 1, name, 0);
			rc |= profev_writer_event(w, &e);
		}
		rc |= profev_writer_flush(w); /* three events chunks */
	}
	return rc | profev_writer_close(w);
}

static void test_cut_everywhere(void)
{
	struct tracemem m = write_trace(fill_small, NULL);
	uint64_t last = 0;
	int rc, open_code;
	for (size_t len = 0; len <= m.len; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, m.data, len);
		uint64_t n = read_all(copy, len, &rc, &open_code);
		free(copy);
		if (len == m.len) {
			CHECK_EQ(rc, 0);
			CHECK_EQ(n, 60);
		} else if (len == 0) {
			CHECK_EQ(open_code, PROFEV_E_EMPTY);
		} else if (len < FILE_HEADER_SIZE) {
			CHECK_EQ(open_code, PROFEV_E_TRUNCATED);
		} else {
			CHECK(rc == PROFEV_E_TRUNCATED || rc == PROFEV_E_NOEND);
			CHECK(n % 20 == 0 && n < 60 + 1);
		}
		CHECK(n >= last); /* a longer prefix never reads fewer events */
		last = n;
	}
	free(m.data);
}

static void test_flipped(void)
{
	struct tracemem m = write_trace(fill_small, NULL);
	int rc, open_code;
	for (size_t i = 0; i < m.len; i++) {
		for (int bit = 0; bit < 8; bit += 3) {
			m.data[i] ^= (uint8_t)(1u << bit);
			uint64_t n = read_all(m.data, m.len, &rc, &open_code);
			m.data[i] ^= (uint8_t)(1u << bit);
			if (i < 8)
				CHECK_EQ(open_code, PROFEV_E_MAGIC);
			else if (i < 10)
				CHECK_EQ(open_code, PROFEV_E_VERSION);
			else if (i >= FILE_HEADER_SIZE)
				CHECK(rc < 0 || n == 60); /* never silently different */
			(void)n;
		}
	}
	/* A flipped body byte of the first events chunk is a checksum error. */
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	struct profev_chunk c;
	uint64_t at = 0;
	while (profev_reader_next_chunk(r, &c) > 0)
		if (c.kind == PROFEV_CHUNK_EVENTS && !at)
			at = c.offset;
	profev_reader_free(r);
	fclose(f);
	m.data[at + CHUNK_HEADER_SIZE + 3] ^= 0x10;
	uint64_t n = read_all(m.data, m.len, &rc, &open_code);
	CHECK_EQ(rc, PROFEV_E_CHECKSUM);
	CHECK_EQ(n, 0);
	r = tracemem_reader(m.data, m.len, &f, &err);
	while (profev_reader_next_chunk(r, &c) > 0)
		;
	const struct profev_error *e = profev_reader_error(r);
	CHECK_EQ(e->offset, at);
	char want[64];
	snprintf(want, sizeof(want), "at offset %llu: checksum mismatch", (unsigned long long)at);
	CHECK(strstr(e->message, want) != NULL);
	profev_reader_free(r);
	fclose(f);
	free(m.data);
}

/* ---- unknown chunks, versions, garbage ---- */

static int fill_unknown(struct profev_writer *w)
{
	uint32_t name = profev_writer_cstring(w, "z");
	struct profev_event e = synth_event(PROFEV_EV_INSTANT, 1, 1, name, 0);
	int rc = profev_writer_event(w, &e);
	static const char body[] = "future";
	uint8_t bytes[CHUNK_HEADER_SIZE + sizeof(body)];
	/* Unknown kind with unknown flags: still skipped. */
	struct chunk_header h = { 200, 0x8000, 1, sizeof(body), 1000, 0 };
	chunk_header_encode(bytes, &h);
	h.checksum = chunk_checksum(bytes, body, sizeof(body));
	chunk_header_encode(bytes, &h);
	memcpy(bytes + CHUNK_HEADER_SIZE, body, sizeof(body));
	struct profev_chunk c = { .kind = 200, .stored = bytes, .stored_total = sizeof(bytes) };
	rc |= profev_writer_copy_chunk(w, &c);
	e.ts = 2;
	rc |= profev_writer_event(w, &e);
	return rc | profev_writer_close(w);
}

static void test_unknown_and_versions(void)
{
	struct tracemem m = write_trace(fill_unknown, NULL);
	int rc, open_code;
	CHECK_EQ(read_all(m.data, m.len, &rc, &open_code), 2);
	CHECK_EQ(rc, 0);
	/* A newer minor version reads; a newer major does not. */
	m.data[10] = 9;
	CHECK_EQ(read_all(m.data, m.len, &rc, &open_code), 2);
	m.data[8] = 2;
	read_all(m.data, m.len, &rc, &open_code);
	CHECK_EQ(open_code, PROFEV_E_VERSION);
	free(m.data);
	static const char garbage[] = "this is not a trace at all, just some text\n";
	read_all(garbage, sizeof(garbage) - 1, &rc, &open_code);
	CHECK_EQ(open_code, PROFEV_E_MAGIC);
}

/* A hostile header asking for huge sizes is refused before allocation. */
static void test_hostile_sizes(void)
{
	uint8_t file[FILE_HEADER_SIZE + CHUNK_HEADER_SIZE] = { 0 };
	memcpy(file, FILE_MAGIC, 8);
	file[8] = 1;
	struct chunk_header h = { PROFEV_CHUNK_EVENTS, CHUNK_F_ZSTD, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0 };
	chunk_header_encode(file + FILE_HEADER_SIZE, &h);
	int rc, open_code;
	read_all(file, sizeof(file), &rc, &open_code);
	CHECK_EQ(rc, PROFEV_E_LIMIT);
	/* A checksummed events chunk whose count exceeds what its body holds. */
	uint8_t body[4] = { 0xff, 0xff, 0x03, 0 };
	uint8_t file2[FILE_HEADER_SIZE + CHUNK_HEADER_SIZE + 4];
	memcpy(file2, file, FILE_HEADER_SIZE);
	h = (struct chunk_header){ PROFEV_CHUNK_EVENTS, 0, 1u << 28, 4, 4, 0 };
	chunk_header_encode(file2 + FILE_HEADER_SIZE, &h);
	h.checksum = chunk_checksum(file2 + FILE_HEADER_SIZE, body, 4);
	chunk_header_encode(file2 + FILE_HEADER_SIZE, &h);
	memcpy(file2 + FILE_HEADER_SIZE + CHUNK_HEADER_SIZE, body, 4);
	read_all(file2, sizeof(file2), &rc, &open_code);
	CHECK_EQ(rc, PROFEV_E_CORRUPT);
}

/* copy_chunk continues the copied numbering. */
static struct tracemem source;

static int fill_copy(struct profev_writer *w)
{
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(source.data, source.len, &f, &err);
	struct profev_chunk c;
	int rc = 0;
	while (profev_reader_next_chunk(r, &c) > 0)
		rc |= profev_writer_copy_chunk(w, &c);
	uint32_t old = profev_writer_cstring(w, "alpha");
	CHECK_EQ(old, 1); /* interned against the copied strings */
	uint32_t fresh = profev_writer_cstring(w, "gamma");
	CHECK_EQ(fresh, 4);
	struct profev_frame fr = { 0, 0, 1 };
	CHECK_EQ(profev_writer_stack(w, &fr, 1), 5003 + 1);
	profev_reader_free(r);
	fclose(f);
	return rc | profev_writer_close(w);
}

static void test_copy(void)
{
	source = write_trace(fill_dedup, NULL);
	struct tracemem m = write_trace(fill_copy, NULL);
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	struct profev_chunk c;
	int rc;
	while ((rc = profev_reader_next_chunk(r, &c)) > 0)
		;
	CHECK_EQ(rc, 0);
	CHECK_STR(profev_reader_string(r, 4), "gamma");
	CHECK_EQ(profev_reader_stack_count(r), 5004);
	profev_reader_free(r);
	fclose(f);
	free(m.data);
	free(source.data);
}

static void test_errors_api(void)
{
	CHECK_STR(profev_strerror(PROFEV_E_CHECKSUM), "checksum mismatch");
	CHECK_STR(profev_event_type_name(PROFEV_EV_ZONE_BEGIN), "zone_begin");
	CHECK_STR(profev_event_type_name(200), "unknown");
	CHECK_STR(profev_chunk_kind_name(PROFEV_CHUNK_SYMBOLS), "symbols");
	profev_writer_free(NULL);
	profev_reader_free(NULL);
	/* Writing to a closed fd fails with an error value, not a crash. */
	struct profev_error err;
	CHECK(profev_writer_new(-1, NULL, &err) == NULL);
	CHECK_EQ(err.code, PROFEV_E_IO);
}

/* ---- a recording window: its event types and metadata keys ---- */

static int fill_window(struct profev_writer *w)
{
	uint32_t cat = profev_writer_cstring(w, "game"), zone = profev_writer_cstring(w, "frame");
	uint32_t why = profev_writer_cstring(w, "hitch");
	struct profev_meta meta = { .ring_window_start_ns = 100, .ring_window_end_ns = 900,
				    .ring_let_go_events = 77, .ring_snapshot = 3 };
	int rc = profev_writer_meta(w, &meta);
	struct profev_event in[3] = {
		{ .ts = 100, .tid = 1, .name = zone, .payload = cat, .type = PROFEV_EV_ZONE_BEFORE },
		{ .ts = 500, .tid = 1, .name = why, .payload = 3, .type = PROFEV_EV_TRIGGER },
		{ .ts = 900, .tid = 1, .name = zone, .payload = cat, .type = PROFEV_EV_ZONE_AFTER },
	};
	for (int i = 0; i < 3; i++)
		rc |= profev_writer_event(w, &in[i]);
	return rc | profev_writer_close(w);
}

static void test_window(void)
{
	CHECK_STR(profev_event_type_name(PROFEV_EV_TRIGGER), "trigger");
	CHECK_STR(profev_event_type_name(PROFEV_EV_ZONE_BEFORE), "zone_before");
	CHECK_STR(profev_event_type_name(PROFEV_EV_ZONE_AFTER), "zone_after");
	struct profev_event ev = { .ts = 5, .name = 3, .payload = 2, .type = PROFEV_EV_ZONE_BEFORE };
	CHECK_EQ(profev_event_window_view(&ev), 1);
	CHECK_EQ(ev.type, PROFEV_EV_ZONE_BEGIN);
	CHECK_EQ(ev.flags, PROFEV_EVF_WINDOW_EDGE);
	CHECK_EQ(ev.name, 3);
	CHECK_EQ(ev.payload, 2);
	ev.type = PROFEV_EV_ZONE_AFTER;
	ev.flags = 0;
	CHECK_EQ(profev_event_window_view(&ev), 1);
	CHECK_EQ(ev.type, PROFEV_EV_ZONE_END);
	CHECK_EQ(ev.flags, PROFEV_EVF_WINDOW_EDGE);
	CHECK_EQ(profev_event_window_view(&ev), 0); /* a zone end stays one */
	ev.type = PROFEV_EV_TRIGGER;
	ev.flags = 0;
	CHECK_EQ(profev_event_window_view(&ev), 0);
	CHECK_EQ(ev.type, PROFEV_EV_TRIGGER);

	/* Written and read back: the types, their payloads (category ids in
	 * the value column) and the ring_ metadata keys. */
	struct tracemem m = write_trace(fill_window, NULL);
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	struct profev_event out;
	struct profev_event_info info;
	static const uint8_t types[3] = { PROFEV_EV_ZONE_BEFORE, PROFEV_EV_TRIGGER, PROFEV_EV_ZONE_AFTER };
	static const uint64_t ts[3] = { 100, 500, 900 }, payload[3] = { 1, 3, 1 };
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(profev_reader_next_event(r, &out, &info), 1);
		CHECK_EQ(out.type, types[i]);
		CHECK_EQ(out.ts, ts[i]);
		CHECK_EQ(out.payload, payload[i]);
		CHECK_STR(info.name, i == 1 ? "hitch" : "frame");
		CHECK_STR(info.category, i == 1 ? "" : "game");
	}
	CHECK_EQ(profev_reader_next_event(r, &out, NULL), 0);
	const struct profev_meta *rm = profev_reader_meta(r);
	CHECK_EQ(rm->ring_window_start_ns, 100);
	CHECK_EQ(rm->ring_window_end_ns, 900);
	CHECK_EQ(rm->ring_let_go_events, 77);
	CHECK_EQ(rm->ring_snapshot, 3);
	profev_reader_free(r);
	fclose(f);
	free(m.data);
}

/* ---- rich events: call sites, arguments, flows, the dropped count ---- */

static uint32_t rich_plain, rich_site, rich_other, rich_key, rich_str;

static int fill_rich(struct profev_writer *w)
{
	uint32_t cat = profev_writer_cstring(w, "app"), fn = profev_writer_cstring(w, "main");
	uint32_t file = profev_writer_cstring(w, "src/a.c");
	struct profev_srcloc loc = { 0, cat, fn, file, 42 };
	rich_site = profev_writer_site(w, "frame", 5, &loc);
	CHECK_EQ(profev_writer_site(w, "frame", 5, &loc), rich_site); /* the same site */
	loc.line = 43;
	rich_other = profev_writer_site(w, "frame", 5, &loc);
	rich_plain = profev_writer_cstring(w, "frame");
	rich_key = profev_writer_cstring(w, "k");
	rich_str = profev_writer_cstring(w, "a string");
	CHECK(rich_site && rich_other && rich_plain && rich_site != rich_other);
	CHECK(rich_plain != rich_site && rich_plain != rich_other);
	loc.file = 9999; /* undefined */
	CHECK_EQ(profev_writer_site(w, "x", 1, &loc), 0u);
	int rc = profev_writer_thread(w, 5, 5, "t");
	struct profev_event e = synth_event(PROFEV_EV_ZONE_BEGIN, 100, 5, rich_site, cat);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_ARG, 100, 5, rich_key, (uint64_t)-5);
	e.flags = PROFEV_AK_INT << 3;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_ARG, 100, 5, rich_key, 0x7ff8000000000123ull);
	e.flags = PROFEV_AK_DOUBLE << 3 | PROFEV_EVF_DOUBLE;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_ARG, 100, 5, rich_key, rich_str);
	e.flags = PROFEV_AK_STR << 3 | PROFEV_EVF_TRUNCATED;
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_FLOW_OUT, 100, 5, 0, 0xabcdef0123456789ull);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_ZONE_END, 200, 5, rich_site, cat);
	rc |= profev_writer_event(w, &e);
	e = synth_event(PROFEV_EV_ZONE_BEGIN, 300, 5, rich_other, cat);
	rc |= profev_writer_event(w, &e);
	struct profev_meta end = { .dropped_args = 3 };
	rc |= profev_writer_meta(w, &end);
	return rc | profev_writer_close(w);
}

static void test_rich(void)
{
	struct tracemem m = write_trace(fill_rich, NULL);
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	struct profev_event ev[8];
	struct profev_event_info in;
	int n = 0, rc;
	while (n < 8 && (rc = profev_reader_next_event(r, &ev[n], &in)) > 0)
		n++;
	CHECK_EQ(n, 7);
	CHECK_EQ(ev[0].name, rich_site);
	CHECK_STR(profev_reader_string(r, rich_site), "frame");
	const struct profev_srcloc *l = profev_reader_srcloc(r, rich_site);
	CHECK(l != NULL);
	if (l) {
		CHECK_EQ(l->name, rich_plain);
		CHECK_EQ(l->line, 42u);
		CHECK_STR(profev_reader_string(r, l->file), "src/a.c");
		CHECK_STR(profev_reader_string(r, l->function), "main");
		CHECK_STR(profev_reader_string(r, l->category), "app");
	}
	l = profev_reader_srcloc(r, rich_other);
	CHECK(l != NULL && l->line == 43 && l->name == rich_plain);
	CHECK(profev_reader_srcloc(r, rich_plain) == NULL);
	CHECK(profev_reader_srcloc(r, 0) == NULL);
	CHECK(profev_reader_srcloc(r, 1u << 30) == NULL);
	CHECK_EQ(ev[1].type, PROFEV_EV_ARG);
	CHECK_EQ(profev_event_arg_kind(&ev[1]), (unsigned)PROFEV_AK_INT);
	CHECK_EQ((int64_t)ev[1].payload, -5);
	CHECK_EQ(profev_event_arg_kind(&ev[2]), (unsigned)PROFEV_AK_DOUBLE);
	CHECK_EQ(ev[2].payload, 0x7ff8000000000123ull); /* a NaN's payload, bit-exact */
	CHECK_EQ(profev_event_arg_kind(&ev[3]), (unsigned)PROFEV_AK_STR);
	CHECK(ev[3].flags & PROFEV_EVF_TRUNCATED);
	CHECK_STR(profev_reader_string(r, (uint32_t)ev[3].payload), "a string");
	CHECK_EQ(ev[4].type, PROFEV_EV_FLOW_OUT);
	CHECK_EQ(ev[4].payload, 0xabcdef0123456789ull);
	CHECK_STR(profev_event_type_name(PROFEV_EV_LOCK_ACQUIRED), "lock_acquired");
	CHECK_STR(profev_chunk_kind_name(PROFEV_CHUNK_SRCLOCS), "source locations");
	CHECK_EQ(profev_reader_meta(r)->dropped_args, 3u);
	profev_reader_free(r);
	fclose(f);
	free(m.data);
}

/* Many symbols after a call site: the symbol table grows (twice) while a
 * source location is defined, and the source locations stay (the growth
 * once freed them too, and the reader freed them a second time). */
static uint32_t grow_site;

static int fill_symbols_after_site(struct profev_writer *w)
{
	uint32_t fn = profev_writer_cstring(w, "main"), file = profev_writer_cstring(w, "a.c");
	struct profev_srcloc loc = { 0, 0, fn, file, 7 };
	grow_site = profev_writer_site(w, "site", 4, &loc);
	int rc = profev_writer_flush(w);
	struct profev_module m = { "/bin/x", build_id, sizeof(build_id), 0, 4096, 0, 0, 0 };
	rc |= profev_writer_module(w, &m) < 0;
	struct profev_symframe sf = { "f", "a.c", 1, 0 };
	for (uint32_t i = 0; i < 3000; i++)
		rc |= profev_writer_symbol(w, 0, 0x1000 + 16 * i, &sf, 1);
	return rc | profev_writer_close(w);
}

static void test_symbols_grow_after_sites(void)
{
	struct tracemem m = write_trace(fill_symbols_after_site, NULL);
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	struct profev_event ev;
	while (profev_reader_next_event(r, &ev, NULL) > 0)
		;
	const struct profev_srcloc *l = profev_reader_srcloc(r, grow_site);
	CHECK(l != NULL && l->line == 7);
	unsigned n;
	const struct profev_symframe *s = profev_reader_symbol(r, 0, 0x1000 + 16 * 2999, &n);
	CHECK(s != NULL && n == 1);
	CHECK(profev_reader_symbol(r, 0, 0x1008, &n) == NULL);
	profev_reader_free(r);
	fclose(f);
	free(m.data);
}

/* Modules' executable segments (kind 12): written for the modules that
 * have one, read back into their views; an older trace's modules (or one
 * without) have exec_size 0; an entry for a module not defined yet is an
 * error. */
static int fill_segments(struct profev_writer *w)
{
	struct profev_module a = { "/lib/a.so", build_id, 20, 0x7f0000000000, 0x9000,
				   0x40b0, 0x30b0, 0x5b30 };
	struct profev_module b = { "/lib/b.so", NULL, 0, 0x7f1000000000, 0x2000, 0, 0, 0 };
	int rc = profev_writer_module(w, &a) != 0;
	rc |= profev_writer_module(w, &b) != 1;
	uint32_t name = profev_writer_cstring(w, "z");
	struct profev_event e = synth_event(PROFEV_EV_INSTANT, 1, 1, name, 0);
	rc |= profev_writer_event(w, &e);
	return rc | profev_writer_close(w);
}

static int fill_bad_segment(struct profev_writer *w)
{
	/* module index 3 of none */
	static const uint8_t body[] = { 3, 1, 1, 1 };
	uint8_t bytes[CHUNK_HEADER_SIZE + sizeof(body)];
	struct chunk_header h = { PROFEV_CHUNK_SEGMENTS, 0, 1, sizeof(body), sizeof(body), 0 };
	chunk_header_encode(bytes, &h);
	h.checksum = chunk_checksum(bytes, body, sizeof(body));
	chunk_header_encode(bytes, &h);
	memcpy(bytes + CHUNK_HEADER_SIZE, body, sizeof(body));
	struct profev_chunk c = { .kind = PROFEV_CHUNK_SEGMENTS, .stored = bytes,
				  .stored_total = sizeof(bytes) };
	int rc = profev_writer_copy_chunk(w, &c);
	return rc | profev_writer_close(w);
}

static void test_segments(void)
{
	struct tracemem m = write_trace(fill_segments, NULL);
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	CHECK(r != NULL);
	if (r) {
		struct profev_chunk c;
		int rc, segs = 0;
		while ((rc = profev_reader_next_chunk(r, &c)) > 0)
			segs += c.kind == PROFEV_CHUNK_SEGMENTS;
		CHECK_EQ(rc, 0);
		CHECK_EQ(segs, 1);
		const struct profev_module *a = profev_reader_module(r, 0), *b = profev_reader_module(r, 1);
		CHECK(a && a->exec_vaddr == 0x40b0 && a->exec_offset == 0x30b0 && a->exec_size == 0x5b30);
		CHECK(a && a->load_bias == 0x7f0000000000 && a->size == 0x9000);
		CHECK(b && b->exec_vaddr == 0 && b->exec_offset == 0 && b->exec_size == 0);
		profev_reader_free(r);
		fclose(f);
	}
	free(m.data);
	m = write_trace(fill_bad_segment, NULL);
	int rc, open_code;
	read_all(m.data, m.len, &rc, &open_code);
	CHECK_EQ(rc, PROFEV_E_CORRUPT);
	free(m.data);
}

int main(void)
{
	test_every_kind();
	test_rich();
	test_symbols_grow_after_sites();
	test_dedup();
	test_many();
	test_cut_everywhere();
	test_flipped();
	test_unknown_and_versions();
	test_hostile_sizes();
	test_copy();
	test_errors_api();
	test_segments();
	test_window();
	return CHECK_DONE();
}
