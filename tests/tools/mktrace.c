/* mktrace: writes traces for tests and benchmarks.
 *
 *   mktrace game OUT [EVENTS] [THREADS]  game-shaped synthetic trace
 *   mktrace game-args OUT [EVENTS] [THREADS]  the same with two arguments per zone
 *   mktrace allkinds OUT                 every event kind and chunk kind once
 *   mktrace unknown OUT                  allkinds with a chunk of an unknown
 *                                        kind (a newer writer's) in the middle
 *   mktrace nested OUT                   one thread, known nesting, for exact checks
 *   mktrace ties OUT                     one thread whose zones begin and end at
 *                                        each other's times, in every way
 *   mktrace images OUT                   12 frame images of 64 x 48 DXT1 blocks made
 *                                        by formula (not by the encoder, so the
 *                                        same on every build): moving, standing
 *                                        still, flat areas, another size between
 *   mktrace frames OUT                   frames of known lengths with known zones, the
 *                                        render thread's events ahead of the marks
 *                                        and behind them in turn (see frames())
 *   mktrace lost-samples OUT             samples and switches of one thread, with
 *                                        17 records the kernel dropped between
 *   mktrace window OUT                   a flight recorder's snapshot: the window 10 s
 *                                        to 13 s of a run, 600 frames before it, zones
 *                                        begun before it and open after it, a trigger
 *   mktrace hostile KIND OUT             a few hundred bytes that once broke a reader:
 *                                        argv-cut, strings-count, stacks-count,
 *                                        symbols-empty (see hostile() below)
 *
 * OUT may be "-" for stdout. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace/trace_internal.h"
#include "synth.h"

static int die(const char *what, const struct profev_error *err)
{
	fprintf(stderr, "mktrace: %s: %s\n", what, err ? err->message : strerror(errno));
	return 1;
}

static int emit(struct profev_writer *w, uint8_t type, uint64_t ts, uint32_t tid, uint32_t name,
		uint64_t payload, uint64_t frame_or_addr, uint32_t stack)
{
	struct profev_event e = synth_event(type, ts, tid, name, payload);
	e.frame = frame_or_addr;
	e.stack = stack;
	return profev_writer_event(w, &e);
}

/* A chunk of kind 99 that no reader of format 1.0 knows. */
static int write_unknown_chunk(struct profev_writer *w)
{
	static const char body[] = "a future chunk kind";
	uint8_t bytes[CHUNK_HEADER_SIZE + sizeof(body)];
	struct chunk_header h = { 99, 0, 1, sizeof(body), sizeof(body), 0 };
	chunk_header_encode(bytes, &h);
	h.checksum = chunk_checksum(bytes, body, sizeof(body));
	chunk_header_encode(bytes, &h);
	memcpy(bytes + CHUNK_HEADER_SIZE, body, sizeof(body));
	struct profev_chunk c = { .kind = 99, .count = 1, .stored = bytes, .stored_total = sizeof(bytes) };
	return profev_writer_copy_chunk(w, &c);
}

static int allkinds(struct profev_writer *w, int with_unknown)
{
	static const char *const argv[] = { "./game", "--fast" };
	struct profev_meta m = { .program = "./game", .argv = argv, .argc = 2, .pid = 4242,
				 .host = "testhost", .wall_start_ns = 1750000000123456789ll,
				 .mono_start_ns = 5000000, .ticks_per_ns = 2.5, .tick_base = 12500000,
				 .clock = "tsc", .recorder = "mktrace" };
	int rc = profev_writer_meta(w, &m);
	rc |= profev_writer_thread(w, 4242, 4242, "main");
	rc |= profev_writer_thread(w, 4243, 4242, "loader");
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct profev_module mod0 = { "/usr/bin/game", bid, 20, 0x555555554000ull, 0x20000 };
	struct profev_module mod1 = { "/usr/lib/libfoo.so", bid, 4, 0x7ffff7dc0000ull, 0x8000 };
	rc |= profev_writer_module(w, &mod0) != 0;
	rc |= profev_writer_module(w, &mod1) != 1;
	struct profev_frame f[3] = { { 0, PROFEV_FRAMEF_RETURN, 0x1234 }, { 1, PROFEV_FRAMEF_RETURN, 0x42 },
				     { 0, PROFEV_FRAMEF_RETURN, 0x1000 } };
	uint32_t s1 = profev_writer_stack(w, f, 3);
	uint32_t s2 = profev_writer_stack(w, f + 1, 2);
	uint32_t s1again = profev_writer_stack(w, f, 3);
	rc |= !s1 || !s2 || s1 != s1again;
	struct profev_symframe sym[2] = { { "inner_inlined", "src/game.c", 10, 3 }, { "main", "src/game.c", 42, 5 } };
	rc |= profev_writer_symbol(w, 0, 0x1234, sym, 2);
	uint32_t cat = profev_writer_cstring(w, "game");
	uint32_t update = profev_writer_cstring(w, "Update");
	uint32_t physics = profev_writer_cstring(w, "Physics");
	uint32_t fps = profev_writer_cstring(w, "fps");
	uint32_t spawn = profev_writer_cstring(w, "spawn");
	uint32_t pool = profev_writer_cstring(w, "textures");
	uint32_t vsync = profev_writer_cstring(w, "vsync");
	uint32_t loader = profev_writer_cstring(w, "asset loader");
	uint64_t t = 5000000;
	struct profev_event e;
	rc |= emit(w, PROFEV_EV_FRAME_MARK, t, 4242, 0, 0, 1, 0);
	rc |= emit(w, PROFEV_EV_ZONE_BEGIN, t + 100, 4242, update, cat, 1, s1);
	rc |= emit(w, PROFEV_EV_ZONE_BEGIN, t + 250, 4242, physics, cat, 1, 0);
	e = synth_event(PROFEV_EV_COUNTER, t + 300, 4242, fps, 0);
	e.frame = 1;
	profev_event_set_double(&e, 59.94);
	rc |= profev_writer_event(w, &e);
	rc |= emit(w, PROFEV_EV_ZONE_END, t + 1250, 4242, physics, cat, 1, 0);
	rc |= emit(w, PROFEV_EV_INSTANT, t + 1300, 4242, spawn, cat, 1, 0);
	static const char text[] = "player \"one\" joined\n\ttab \xc3\xa9 bad:\xff";
	rc |= profev_writer_message(w, (e = synth_event(PROFEV_EV_MESSAGE, t + 1400, 4243, 0, cat), e.frame = 1, &e),
				    text, sizeof(text) - 1);
	rc |= emit(w, PROFEV_EV_THREAD_NAME, t + 1450, 4243, loader, 0, 0, 0);
	rc |= emit(w, PROFEV_EV_MEM_ALLOC, t + 1500, 4243, pool, 4096, 0x7f0000001000ull, s2);
	rc |= emit(w, PROFEV_EV_MEM_ALLOC, t + 1510, 4243, 0, 64, 0x7f0000002000ull, 0);
	if (with_unknown)
		rc |= write_unknown_chunk(w);
	rc |= emit(w, PROFEV_EV_MEM_FREE, t + 1600, 4243, pool, 0, 0x7f0000001000ull, 0);
	rc |= emit(w, PROFEV_EV_ZONE_END, t + 2000, 4242, update, cat, 1, 0);
	static const uint8_t pixels[8] = { 0x1f, 0x00, 0xe0, 0x07, 0x00, 0x00, 0x00, 0x00 }; /* one DXT1 block */
	struct profev_image img = { 1, 4, 4, PROFEV_IMG_DXT1, 1, t + 2050, pixels, sizeof(pixels) };
	rc |= profev_writer_image(w, &img);
	rc |= emit(w, PROFEV_EV_FRAME_IMAGE, t + 2050, 4242, 0, 1, 1, 0);
	rc |= emit(w, PROFEV_EV_LOST, t + 2060, 4243, 0, 17, 0, 0);
	rc |= emit(w, PROFEV_EV_FRAME_MARK, t + 2100, 4242, vsync, 0, 2, 0);
	rc |= emit(w, PROFEV_EV_FRAME_MARK, t + 2200, 4242, 0, 0, 2, 0);
	struct profev_meta end = { .exit_kind = PROFEV_EXIT_SIGNALED, .exit_code = 11, .end_ns = t + 3000,
				   .lost_events = 17 };
	rc |= profev_writer_meta(w, &end);
	return rc;
}

/* main: A(0..1000) { B(100..400) { C(150..200) } D(500..900) }, then a
 * zone E left open, as if the program crashed inside it. */
static int nested(struct profev_writer *w, int unused)
{
	(void)unused;
	int rc = profev_writer_thread(w, 7, 7, "main");
	uint32_t cat = profev_writer_cstring(w, "test");
	uint32_t id[5];
	static const char *const names[5] = { "A", "B", "C", "D", "E" };
	for (int i = 0; i < 5; i++)
		id[i] = profev_writer_cstring(w, names[i]);
	static const struct { uint8_t type; int name; uint64_t ts; } seq[] = {
		{ PROFEV_EV_ZONE_BEGIN, 0, 0 }, { PROFEV_EV_ZONE_BEGIN, 1, 100 }, { PROFEV_EV_ZONE_BEGIN, 2, 150 },
		{ PROFEV_EV_ZONE_END, 2, 200 }, { PROFEV_EV_ZONE_END, 1, 400 }, { PROFEV_EV_ZONE_BEGIN, 3, 500 },
		{ PROFEV_EV_ZONE_END, 3, 900 }, { PROFEV_EV_ZONE_END, 0, 1000 }, { PROFEV_EV_ZONE_BEGIN, 4, 1100 },
	};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct profev_event e = synth_event(seq[i].type, 1000000 + seq[i].ts, 7, id[seq[i].name], cat);
		rc |= profev_writer_event(w, &e);
	}
	struct profev_event last = synth_event(PROFEV_EV_INSTANT, 1001200, 7, profev_writer_cstring(w, "last"), cat);
	rc |= profev_writer_event(w, &last);
	return rc;
}

/*
 * Frames of exactly known lengths, from 1 ms (the trace's start):
 * the default set's 20 frames, numbered 1..20 (marks 1..21), of 10 ms but
 * frame 5 (20 ms), 11 (30 ms), 17 (40 ms) and 20 (50 ms). In a frame of
 * length D from s, main runs Frame [s, s+D) { Update [s, s+0.7D)
 * { Physics [s+0.1D, s+0.3D) } } and render runs Render [s+0.2D, s+0.6D):
 * self times Update 0.5D, Render 0.4D, Frame 0.3D, Physics 0.2D. The
 * events come in blocks of five frames, render's before main's in even
 * blocks and after them in odd ones. Then the discontinuous set "loading":
 * frames 0, 1, 2 of 5, 7 and 9 ms at 310, 320 and 330 ms after the start,
 * each all Load on main.
 */
static int frames(struct profev_writer *w, int unused)
{
	(void)unused;
	static const unsigned ms[20] = { 10, 10, 10, 10, 20, 10, 10, 10, 10, 10,
					 30, 10, 10, 10, 10, 10, 40, 10, 10, 50 };
	const uint64_t t0 = 1000000;
	struct profev_meta m = { .program = "./frames", .pid = 1, .host = "test", .mono_start_ns = t0,
				 .clock = "monotonic", .recorder = "mktrace" };
	int rc = profev_writer_meta(w, &m);
	rc |= profev_writer_thread(w, 1, 1, "main");
	rc |= profev_writer_thread(w, 2, 1, "render");
	uint32_t cat = profev_writer_cstring(w, "game");
	uint32_t frame = profev_writer_cstring(w, "Frame"), update = profev_writer_cstring(w, "Update");
	uint32_t physics = profev_writer_cstring(w, "Physics"), render = profev_writer_cstring(w, "Render");
	uint32_t load = profev_writer_cstring(w, "Load"), loading = profev_writer_cstring(w, "loading");
	enum { B = PROFEV_EV_ZONE_BEGIN, E = PROFEV_EV_ZONE_END };
	uint64_t start[21];
	start[0] = t0;
	for (int i = 0; i < 20; i++)
		start[i + 1] = start[i] + ms[i] * 1000000ull;
	for (int block = 0; block < 4; block++) {
		for (int side = 0; side < 2; side++) {
			int main_side = block % 2 ? side == 0 : side == 1;
			for (int i = block * 5; i < block * 5 + 5; i++) {
				uint64_t s = start[i], d = ms[i] * 1000000ull, n = (uint64_t)i + 1;
				if (!main_side) {
					rc |= emit(w, B, s + d / 5 * 1, 2, render, cat, n, 0);
					rc |= emit(w, E, s + d / 5 * 3, 2, render, cat, n, 0);
					continue;
				}
				rc |= emit(w, PROFEV_EV_FRAME_MARK, s, 1, 0, 0, n, 0);
				rc |= emit(w, B, s, 1, frame, cat, n, 0);
				rc |= emit(w, B, s, 1, update, cat, n, 0);
				rc |= emit(w, B, s + d / 10, 1, physics, cat, n, 0);
				rc |= emit(w, E, s + d / 10 * 3, 1, physics, cat, n, 0);
				rc |= emit(w, E, s + d / 10 * 7, 1, update, cat, n, 0);
				rc |= emit(w, E, s + d, 1, frame, cat, n, 0);
			}
		}
	}
	rc |= emit(w, PROFEV_EV_FRAME_MARK, start[20], 1, 0, 0, 21, 0);
	for (int i = 0; i < 3; i++) {
		uint64_t s = t0 + (310 + 10 * (uint64_t)i) * 1000000ull, d = (5 + 2 * (uint64_t)i) * 1000000ull;
		rc |= emit(w, PROFEV_EV_FRAME_START, s, 1, loading, 0, 21, 0);
		rc |= emit(w, B, s, 1, load, cat, 21, 0);
		rc |= emit(w, E, s + d, 1, load, cat, 21, 0);
		rc |= emit(w, PROFEV_EV_FRAME_END, s + d, 1, loading, 0, 21, 0);
	}
	struct profev_meta end = { .exit_kind = PROFEV_EXIT_EXITED, .end_ns = t0 + 340000000ull };
	rc |= profev_writer_meta(w, &end);
	return rc;
}

/*
 * main, times in ns from 1 ms:
 *   P(0..100) { C(0..40) { G(0..40) } D(40..100) }   ends with a child's, a
 *                                                    chain of three, a sibling
 *                                                    beginning at an end
 *   Q(200..300) { R(210..250) }  S(300..350)         nothing shared but Q's end
 *   T(400..500) { U(400..450) }                      a shared begin only
 *   V(600..) { W(600..) }                            left open, as if crashed
 */
static int ties(struct profev_writer *w, int unused)
{
	(void)unused;
	int rc = profev_writer_thread(w, 7, 7, "main");
	uint32_t cat = profev_writer_cstring(w, "test");
	static const char names[] = "PCGDQRSTUVW";
	uint32_t id[sizeof(names) - 1];
	for (size_t i = 0; i < sizeof(names) - 1; i++) {
		char n[2] = { names[i], 0 };
		id[i] = profev_writer_cstring(w, n);
	}
	enum { B = PROFEV_EV_ZONE_BEGIN, E = PROFEV_EV_ZONE_END };
	static const struct { uint8_t type; char name; uint64_t ts; } seq[] = {
		{ B, 'P', 0 }, { B, 'C', 0 }, { B, 'G', 0 }, { E, 'G', 40 }, { E, 'C', 40 },
		{ B, 'D', 40 }, { E, 'D', 100 }, { E, 'P', 100 },
		{ B, 'Q', 200 }, { B, 'R', 210 }, { E, 'R', 250 }, { E, 'Q', 300 }, { B, 'S', 300 }, { E, 'S', 350 },
		{ B, 'T', 400 }, { B, 'U', 400 }, { E, 'U', 450 }, { E, 'T', 500 },
		{ B, 'V', 600 }, { B, 'W', 600 },
	};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		uint32_t name = id[strchr(names, seq[i].name) - names];
		struct profev_event e = synth_event(seq[i].type, 1000000 + seq[i].ts, 7, name, cat);
		rc |= profev_writer_event(w, &e);
	}
	struct profev_event last = synth_event(PROFEV_EV_INSTANT, 1000700, 7, profev_writer_cstring(w, "last"), cat);
	rc |= profev_writer_event(w, &last);
	return rc;
}

/* pfrec --sample --sched as it records a ring that overflowed: a thread
 * sampled and switched on CPU 1, and 17 records the kernel dropped. */
static int lost_samples(struct profev_writer *w, int unused)
{
	(void)unused;
	struct profev_meta meta = { .program = "./prog", .pid = 7, .mono_start_ns = 1000000, .ticks_per_ns = 1,
				    .clock = "monotonic", .recorder = "mktrace" };
	int rc = profev_writer_meta(w, &meta);
	rc |= profev_writer_thread(w, 7, 7, "main");
	struct profev_module m = { "/bin/prog", NULL, 0, 0x400000, 0x1000 };
	rc |= profev_writer_module(w, &m);
	struct profev_frame f[2] = { { 0, 0, 0x10 }, { 0, PROFEV_FRAMEF_RETURN, 0x50 } };
	uint32_t stack = profev_writer_stack(w, f, 2);
	static const struct { uint8_t type; uint64_t ts, payload; } seq[] = {
		{ PROFEV_EV_SWITCH_IN, 1000000, 1 },  { PROFEV_EV_SAMPLE, 1001000, 1 },
		{ PROFEV_EV_SAMPLE_LOST, 1002000, 17 }, { PROFEV_EV_SAMPLE, 1003000, 1 },
		{ PROFEV_EV_SWITCH_OUT, 1004000, 1 },
	};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct profev_event e = synth_event(seq[i].type, seq[i].ts, 7, 0, seq[i].payload);
		if (seq[i].type == PROFEV_EV_SAMPLE)
			e.stack = stack;
		rc |= profev_writer_event(w, &e);
	}
	return rc;
}

/* One uncompressed chunk with a valid checksum around a crafted body. */
/* Block (bx, by) of frame f: a gradient that moves a block every other
 * frame, flat on the left, noisy indices on the right; frames 4..6 stand
 * still. */
static void image_blocks(uint8_t *b, uint32_t bw, uint32_t bh, uint32_t f)
{
	uint32_t m = f >= 4 && f <= 6 ? 4 : f;
	for (uint32_t by = 0; by < bh; by++)
		for (uint32_t bx = 0; bx < bw; bx++, b += 8) {
			uint32_t x = bx + m / 2, h = (x * 2654435761u) ^ (by * 40503u) ^ (m & 1) * 0x9e3779b9u;
			unsigned r = (x * 2 + by) & 31, g = (by * 3 + x) & 63, bl = (31 - r + f / 8) & 31;
			unsigned c0 = r << 11 | g << 5 | bl;
			unsigned c1 = (r > 3 ? r - 3 : 0) << 11 | (g > 5 ? g - 5 : 0) << 5 | (bl > 2 ? bl - 2 : 0);
			uint32_t ix = bx < bw / 4 ? 0 : h * 2246822519u;
			if (bx < bw / 4 || c1 >= c0)
				c1 = c0, ix = 0;
			b[0] = (uint8_t)c0, b[1] = (uint8_t)(c0 >> 8), b[2] = (uint8_t)c1, b[3] = (uint8_t)(c1 >> 8);
			b[4] = (uint8_t)ix, b[5] = (uint8_t)(ix >> 8), b[6] = (uint8_t)(ix >> 16), b[7] = (uint8_t)(ix >> 24);
		}
}

static int images(struct profev_writer *w, int unused)
{
	(void)unused;
	struct profev_meta meta = { .program = "./game", .pid = 7, .mono_start_ns = 1000000, .ticks_per_ns = 1,
				    .clock = "monotonic", .recorder = "mktrace" };
	int rc = profev_writer_meta(w, &meta);
	rc |= profev_writer_thread(w, 7, 7, "main");
	static uint8_t blocks[16 * 12 * 8], small[2 * 3 * 8];
	uint32_t id = 0;
	for (uint32_t f = 0; f < 12; f++) {
		uint64_t t = 1000000 + 16000000ull * f;
		image_blocks(blocks, 16, 12, f);
		struct profev_image img = { ++id, 64, 48, PROFEV_IMG_DXT1, f, t, blocks, sizeof blocks };
		rc |= profev_writer_image(w, &img);
		struct profev_event e = synth_event(PROFEV_EV_FRAME_IMAGE, t, 7, 0, id);
		e.frame = f;
		rc |= profev_writer_event(w, &e);
		if (f == 5) {
			image_blocks(small, 2, 3, f);
			struct profev_image s = { ++id, 8, 12, PROFEV_IMG_DXT1, 50, t + 1, small, sizeof small };
			rc |= profev_writer_image(w, &s);
			e.ts = t + 1;
			e.frame = 50;
			e.payload = id;
			rc |= profev_writer_event(w, &e);
		}
		struct profev_event fm = synth_event(PROFEV_EV_FRAME_MARK, t + 2, 7, 0, 0);
		fm.frame = f + 1;
		rc |= profev_writer_event(w, &fm);
	}
	return rc;
}

static int raw_chunk(int fd, unsigned kind, uint32_t count, const uint8_t *body, size_t len)
{
	uint8_t hdr[CHUNK_HEADER_SIZE];
	struct chunk_header h = { (uint16_t)kind, 0, count, (uint32_t)len, (uint32_t)len, 0 };
	chunk_header_encode(hdr, &h);
	h.checksum = chunk_checksum(hdr, body, len);
	chunk_header_encode(hdr, &h);
	return write(fd, hdr, sizeof hdr) == (ssize_t)sizeof hdr &&
			       write(fd, body, len) == (ssize_t)len ? 0 : -1;
}

/*
 * Traces whose chunks are whole (checksums right) but whose bodies lie,
 * each the regression input of a reader defect:
 *   argv-cut       a program name, then a metadata argv list of 3 whose
 *                  second string runs past the body
 *                  (argc 1 with argv NULL crashed pfdump --stats, pfconv)
 *   strings-count  a strings chunk claiming 2^31 - 16 strings in 3 bytes
 *                  (the reader allocated and zeroed 16 GiB first)
 *   stacks-count   the same for callstacks
 *   symbols-empty  a valid symbols entry with no frames, then the end
 *                  (NULL + 0 in the symbols parser)
 */
static int hostile(const char *kind, int fd)
{
	uint8_t hdr[FILE_HEADER_SIZE] = { 0 };
	memcpy(hdr, FILE_MAGIC, 8);
	put_le16(hdr + 8, PROFEV_FORMAT_MAJOR);
	put_le16(hdr + 10, PROFEV_FORMAT_MINOR);
	if (write(fd, hdr, sizeof hdr) != (ssize_t)sizeof hdr)
		return die("write", NULL);
	static const uint8_t meta_argv[] = { 7, 'p', 'r', 'o', 'g', 'r', 'a', 'm', 1, 1, 'p',
					     4, 'a', 'r', 'g', 'v', 5, 3, 1, 'a', 100 };
	static const uint8_t strings[] = { 1, 1, 'x' };
	static const uint8_t stacks[] = { 1, 0 };
	static const uint8_t symbols[] = { 0, 0, 0 };
	/* The end chunk's ten totals, all 0. */
	static const uint8_t end[10] = { 0 };
	int rc;
	if (strcmp(kind, "argv-cut") == 0)
		rc = raw_chunk(fd, PROFEV_CHUNK_META, 2, meta_argv, sizeof meta_argv);
	else if (strcmp(kind, "strings-count") == 0)
		rc = raw_chunk(fd, PROFEV_CHUNK_STRINGS, 0x7ffffff0u, strings, sizeof strings);
	else if (strcmp(kind, "stacks-count") == 0)
		rc = raw_chunk(fd, PROFEV_CHUNK_STACKS, 0x7ffffff0u, stacks, sizeof stacks);
	else if (strcmp(kind, "symbols-empty") == 0)
		rc = raw_chunk(fd, PROFEV_CHUNK_SYMBOLS, 1, symbols, sizeof symbols) ||
		     raw_chunk(fd, PROFEV_CHUNK_END, 0, end, sizeof end);
	else {
		fprintf(stderr, "mktrace: unknown hostile kind '%s'\n", kind);
		return 2;
	}
	return rc ? die("write", NULL) : 0;
}

/* A snapshot of the window 10 s .. 13 s of a run that started at 1 s
 * (CLOCK_MONOTONIC), 600 frames in. Thread 100 "main" is inside "frame"
 * and "update" when the window starts; "update" and "frame" end at 10.5 s,
 * frame 601 runs whole, a trigger "hitch" comes at 11 s, and "render" is
 * still open at 13 s. Thread 101 "loader" is inside "load" the whole window. */
static int window(struct profev_writer *w, int variant)
{
	(void)variant;
	const uint64_t s = 1000000000ull, start = 11 * s, end = 14 * s;
	struct profev_meta m = { .program = "./game", .pid = 100, .mono_start_ns = s,
				 .recorder = "mktrace", .ring_window_start_ns = start,
				 .ring_window_end_ns = end, .ring_let_go_events = 123456, .ring_snapshot = 1 };
	int rc = profev_writer_meta(w, &m);
	rc |= profev_writer_thread(w, 100, 100, "main");
	rc |= profev_writer_thread(w, 101, 100, "loader");
	uint32_t cat = profev_writer_cstring(w, "game");
	uint32_t frame = profev_writer_cstring(w, "frame");
	uint32_t update = profev_writer_cstring(w, "update");
	uint32_t render = profev_writer_cstring(w, "render");
	uint32_t load = profev_writer_cstring(w, "load");
	uint32_t hitch = profev_writer_cstring(w, "hitch");
	rc |= emit(w, PROFEV_EV_ZONE_BEFORE, start, 100, frame, cat, 600, 0);
	rc |= emit(w, PROFEV_EV_ZONE_BEFORE, start, 100, update, cat, 600, 0);
	rc |= emit(w, PROFEV_EV_ZONE_BEFORE, start, 101, load, cat, 600, 0);
	rc |= emit(w, PROFEV_EV_ZONE_END, start + s / 2, 100, update, cat, 600, 0);
	rc |= emit(w, PROFEV_EV_ZONE_END, start + s / 2 + 1000, 100, frame, cat, 600, 0);
	rc |= emit(w, PROFEV_EV_FRAME_MARK, start + s / 2 + 2000, 100, 0, 0, 601, 0);
	rc |= emit(w, PROFEV_EV_ZONE_BEGIN, start + s / 2 + 3000, 100, frame, cat, 601, 0);
	rc |= emit(w, PROFEV_EV_ZONE_BEGIN, start + s / 2 + 4000, 100, update, cat, 601, 0);
	rc |= emit(w, PROFEV_EV_ZONE_END, start + s, 100, update, cat, 601, 0);
	rc |= emit(w, PROFEV_EV_TRIGGER, start + s, 100, hitch, 1, 601, 0);
	rc |= emit(w, PROFEV_EV_ZONE_END, start + s + 1000, 100, frame, cat, 601, 0);
	rc |= emit(w, PROFEV_EV_FRAME_MARK, start + s + 2000, 100, 0, 0, 602, 0);
	rc |= emit(w, PROFEV_EV_ZONE_BEGIN, start + s + 3000, 100, render, cat, 602, 0);
	rc |= emit(w, PROFEV_EV_ZONE_AFTER, end, 100, render, cat, 602, 0);
	rc |= emit(w, PROFEV_EV_ZONE_AFTER, end, 101, load, cat, 602, 0);
	m = (struct profev_meta){ .exit_kind = PROFEV_EXIT_EXITED, .end_ns = end };
	rc |= profev_writer_meta(w, &m);
	return rc;
}

/* A writer on fd, given to fill(w, variant), then closed: 0, or 1 after
 * saying what failed. */
static int write_kind(int fd, const char *kind, int (*fill)(struct profev_writer *w, int variant),
		      int variant)
{
	struct profev_error err;
	struct profev_writer *w = profev_writer_new(fd, NULL, &err);
	if (!w)
		return die("writer", &err);
	int rc = fill(w, variant);
	rc |= profev_writer_close(w);
	if (rc)
		die(kind, profev_writer_error(w));
	profev_writer_free(w);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "hostile") == 0) {
		int fd = strcmp(argv[3], "-") == 0 ? 1 : open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return die(argv[3], NULL);
		int rc = hostile(argv[2], fd);
		if (fd != 1)
			close(fd);
		return rc;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: mktrace game|game-args|allkinds|unknown|nested|ties|images|lost-samples|frames|window OUT [EVENTS] [THREADS]\n"
				"       mktrace hostile KIND OUT\n");
		return 2;
	}
	int fd = strcmp(argv[2], "-") == 0 ? 1 : open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return die(argv[2], NULL);
	static const struct {
		const char *kind;
		int (*fill)(struct profev_writer *w, int variant);
		int variant;
	} kinds[] = {
		{ "allkinds", allkinds, 0 }, { "unknown", allkinds, 1 }, { "nested", nested, 0 },
		{ "ties", ties, 0 },         { "images", images, 0 },
		{ "lost-samples", lost_samples, 0 }, { "frames", frames, 0 },
		{ "window", window, 0 },
	};
	int rc = 2;
	if (strcmp(argv[1], "game") == 0 || strcmp(argv[1], "game-args") == 0) {
		uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 10) : 100000;
		uint32_t threads = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 8;
		struct profev_error err;
		rc = synth_write_args(fd, n, threads, 1, argv[1][4] == '-', &err) ? die(argv[1], &err) : 0;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(argv[1], kinds[i].kind) != 0)
			continue;
		rc = write_kind(fd, kinds[i].kind, kinds[i].fill, kinds[i].variant);
	}
	if (rc == 2)
		fprintf(stderr, "mktrace: unknown kind '%s'\n", argv[1]);
	if (fd != 1)
		close(fd);
	return rc;
}
