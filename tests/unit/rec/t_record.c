/* The recorder against hand-made wire streams (formats/wire.md): a shell
 * stands in for the traced program and copies the bytes to PROFEV_FD, so
 * every message and record kind, and broken streams, can be checked
 * exactly. Also programs without the client and programs that cannot start. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "profev_record.h"
#include "profev_trace.h"
#include "wire/wire.h"

struct bytes {
	unsigned char b[1 << 16];
	size_t n;
};

static void put(struct bytes *s, const void *p, size_t n)
{
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void msg(struct bytes *s, uint16_t type, uint32_t tid, const void *body, uint32_t len)
{
	struct pfw_header h = { PFW_MAGIC, type, 0, len, tid };
	put(s, &h, sizeof h);
	if (len)
		put(s, body, len);
}

static void hello(struct bytes *s)
{
	/* Ticks are nanoseconds here: what a record says is what the trace says. */
	struct pfw_hello h = { PFW_VERSION, 777, PFW_CLOCK_MONOTONIC, 0, 1.0, 1000, 1000, 0,
			       1 << 20, 2000 };
	msg(s, PFW_HELLO, 0, &h, sizeof h);
}

static void string(struct bytes *s, uint32_t id, const char *str)
{
	unsigned char b[256];
	memcpy(b, &id, 4);
	memcpy(b + 4, str, strlen(str));
	msg(s, PFW_STRING, 0, b, 4 + (uint32_t)strlen(str));
}

static void category(struct bytes *s, uint32_t index, const char *name)
{
	unsigned char b[256];
	struct pfw_category c = { index, 1, (uint32_t)strlen(name), 0 };
	memcpy(b, &c, sizeof c);
	memcpy(b + sizeof c, name, c.name_len);
	memcpy(b + sizeof c + c.name_len, "desc", 4);
	msg(s, PFW_CATEGORY, 0, b, (uint32_t)sizeof c + c.name_len + 4);
}

/* Records build up in r, then go out as one EVENTS message. */
static void rec(struct bytes *r, uint64_t ts, unsigned type, unsigned cat, uint32_t arg)
{
	uint64_t w = pfw_word(type, cat, arg);
	put(r, &ts, 8);
	put(r, &w, 8);
}

static void rec_long(struct bytes *r, uint64_t ts, unsigned type, uint32_t arg, uint64_t extra)
{
	uint64_t zero = 0;
	rec(r, ts, type, 0, arg);
	put(r, &extra, 8);
	put(r, &zero, 8);
}

static void rec_text(struct bytes *r, uint64_t ts, unsigned type, unsigned cat, const char *t)
{
	uint32_t len = (uint32_t)strlen(t);
	static const unsigned char zero[16];
	rec(r, ts, type, cat, len);
	put(r, t, len);
	put(r, zero, pfw_var_size(len) - PFW_REC_HEAD - len);
}

/* The fixture: a client's stream (s) and the records of its next EVENTS
 * message (r). */
struct stream {
	struct bytes s, r;
};

/* Starts x over with the client's HELLO. */
static struct stream *stream_new(struct stream *x)
{
	x->s.n = x->r.n = 0;
	hello(&x->s);
	return x;
}

/* The records so far go out as one EVENTS message from thread tid. */
static void events(struct stream *x, uint32_t tid)
{
	msg(&x->s, PFW_EVENTS, tid, x->r.b, (uint32_t)x->r.n);
	x->r.n = 0;
}

struct result {
	struct profev_record_result res;
	int rc;
	char warnings[1024];
	struct profev_event ev[64];
	char names[64][32], cats[64][16], texts[64][32], threads[64][16];
	int n, complete;
	uint64_t lost_meta;
	char clock[48];
	struct profev_frame frames[64][4]; /* each event's callstack, first 4 frames */
	unsigned nframes[64];
	uint32_t nmods;
	char mod_path[8][32];
	uint8_t mod_id[8][8];
	uint32_t mod_idlen[8];
	uint64_t mod_bias[8], mod_size[8];
};

static void on_warn(void *ctx, const char *m)
{
	struct result *r = ctx;
	size_t n = strlen(r->warnings);
	snprintf(r->warnings + n, sizeof r->warnings - n, "%s\n", m);
}

/* Record argv (a program), then read the trace back into *out. */
static void run(struct result *out, char **argv)
{
	memset(out, 0, sizeof *out);
	FILE *t = tmpfile();
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = fileno(t);
	o.child_stdout = -1;
	o.warn = on_warn;
	o.ctx = out;
	struct profev_error err;
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	out->rc = profev_recorder_run(r, &out->res);
	profev_recorder_free(r);
	rewind(t);
	struct profev_reader *rd = profev_reader_new(t, &err);
	CHECK(rd != NULL);
	if (!rd) {
		fclose(t);
		return;
	}
	struct profev_event e;
	struct profev_event_info in;
	int k;
	while ((k = profev_reader_next_event(rd, &e, &in)) == 1 && out->n < 64) {
		out->ev[out->n] = e;
		snprintf(out->names[out->n], 32, "%s", in.name);
		snprintf(out->cats[out->n], 16, "%s", in.category);
		snprintf(out->threads[out->n], 16, "%s", in.thread);
		if (in.text)
			snprintf(out->texts[out->n], 32, "%.*s", (int)in.text_len, in.text);
		unsigned nf = 0;
		const struct profev_frame *f = profev_reader_stack(rd, e.stack, &nf);
		out->nframes[out->n] = nf;
		for (unsigned i = 0; f && i < nf && i < 4; i++)
			out->frames[out->n][i] = f[i];
		out->n++;
	}
	out->nmods = profev_reader_module_count(rd);
	for (uint32_t i = 0; i < out->nmods && i < 8; i++) {
		const struct profev_module *m = profev_reader_module(rd, i);
		snprintf(out->mod_path[i], 32, "%s", m->path);
		out->mod_idlen[i] = m->build_id_len;
		if (m->build_id_len <= 8 && m->build_id)
			memcpy(out->mod_id[i], m->build_id, m->build_id_len);
		out->mod_bias[i] = m->load_bias;
		out->mod_size[i] = m->size;
	}
	out->complete = k == 0;
	out->lost_meta = profev_reader_meta(rd)->lost_events;
	const char *clk = profev_reader_meta(rd)->clock;
	snprintf(out->clock, sizeof out->clock, "%s", clk ? clk : "");
	profev_reader_free(rd);
	fclose(t);
}

/* Play s as the program's stream. */
static void play(struct result *out, const struct bytes *s)
{
	char path[] = "/tmp/t_record.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, s->b, s->n), (long long)s->n);
	close(fd);
	char *argv[] = { "sh", "-c", "cat \"$0\" >&\"$PROFEV_FD\"", path, NULL };
	run(out, argv);
	unlink(path);
}

static void every_record(struct stream *x)
{
	struct bytes *s = &stream_new(x)->s, *r = &x->r;
	category(s, 1, "render");
	category(s, 2, "audio");
	string(s, 1, "draw");
	string(s, 2, "fps");
	string(s, 3, "vsync");
	msg(s, PFW_THREAD, 42, "main", 4);
	rec(r, 2000, PFW_R_ZONE_BEGIN, 1, 1);
	rec_text(r, 2100, PFW_R_ZONE_DYN, 2, "dynamic name");
	rec_long(r, 2200, PFW_R_COUNTER, 2, 0x404e000000000000ull); /* 60.0 */
	rec(r, 2300, PFW_R_ZONE_END, 2, 0);
	rec_text(r, 2400, PFW_R_MESSAGE, 1, "hello there");
	rec(r, 2500, PFW_R_INSTANT, 2, 3);
	rec(r, 2600, PFW_R_ZONE_END, 1, 0);
	rec(r, 2700, PFW_R_FRAME_MARK, 0, 0);
	rec(r, 1500, PFW_R_FRAME_MARK, 0, 3); /* earlier than the last: clamped */
	rec_text(r, 2800, PFW_R_THREAD_NAME, 0, "renamed");
	rec_long(r, 2900, PFW_R_LOST, 0, 17);
	rec(r, 0, PFW_R_PAD, 0, 48);
	memset(r->b + r->n, 0xee, 32); /* a PAD's body is not looked at */
	r->n += 32;
	rec(r, 3000, PFW_R_ZONE_END, 1, 0); /* nothing open: name 0 */
	events(x, 42);
	msg(s, 99, 0, "future", 6); /* unknown message: skipped */
	struct pfw_sync sy = { 5000, 5000 };
	msg(s, PFW_SYNC, 0, &sy, sizeof sy);
	msg(s, PFW_THREAD_EXIT, 42, NULL, 0);
	struct pfw_bye bye = { 5 };
	msg(s, PFW_BYE, 0, &bye, sizeof bye);

}

static void test_every_record(void)
{
	static struct stream x;
	every_record(&x);
	struct result o;
	play(&o, &x.s);
	CHECK_EQ(o.rc, 0);
	CHECK_EQ(o.res.client, 1);
	CHECK_EQ(o.res.status, 0);
	CHECK_STR(o.warnings, "");
	CHECK(o.complete);
	CHECK_EQ(o.n, 13);
	static const struct {
		int type;
		uint64_t ts;
		const char *name, *cat, *thread;
	} want[] = {
		{ PROFEV_EV_ZONE_BEGIN, 2000, "draw", "render", "main" },
		{ PROFEV_EV_ZONE_BEGIN, 2100, "dynamic name", "audio", "main" },
		{ PROFEV_EV_COUNTER, 2200, "fps", "", "main" },
		{ PROFEV_EV_ZONE_END, 2300, "dynamic name", "audio", "main" },
		{ PROFEV_EV_MESSAGE, 2400, "", "render", "main" },
		{ PROFEV_EV_INSTANT, 2500, "vsync", "audio", "main" },
		{ PROFEV_EV_ZONE_END, 2600, "draw", "render", "main" },
		{ PROFEV_EV_FRAME_MARK, 2700, "", "", "main" },
		{ PROFEV_EV_FRAME_MARK, 2700, "vsync", "", "main" },
		{ PROFEV_EV_THREAD_NAME, 2800, "renamed", "", "renamed" },
		{ PROFEV_EV_LOST, 2900, "", "", "renamed" },
		{ PROFEV_EV_ZONE_END, 3000, "", "render", "renamed" },
	};
	for (int i = 0; i < 12 && i < o.n; i++) {
		CHECK_EQ(o.ev[i].type, want[i].type);
		CHECK_EQ_U64(o.ev[i].ts, want[i].ts);
		CHECK_EQ(o.ev[i].tid, 42);
		CHECK_STR(o.names[i], want[i].name);
		CHECK_STR(o.cats[i], want[i].cat);
	}
	/* The thread is known under its last name by the end. */
	CHECK_STR(o.threads[11], "renamed");
	CHECK(profev_event_double(&o.ev[2]) == 60.0);
	CHECK_STR(o.texts[4], "hello there");
	CHECK_EQ(o.ev[10].payload, 17);
	/* BYE's 5: placed at the end, on the main thread (the HELLO's pid),
	 * after the last event of the thread that exited */
	CHECK_EQ(o.ev[12].type, PROFEV_EV_LOST);
	CHECK_EQ_U64(o.ev[12].ts, 3000);
	CHECK_EQ(o.ev[12].tid, 777);
	CHECK_EQ(o.ev[12].payload, 5);
	/* Frame numbers: one default mark at 2700. */
	CHECK_EQ(o.ev[7].frame, 0);
	CHECK_EQ(o.ev[11].frame, 1);
	CHECK_EQ(o.res.stats.lost, 22);
	CHECK_EQ(o.lost_meta, 22);
	CHECK_EQ(o.res.stats.threads, 1);
}

static void module(struct bytes *s, uint64_t bias, uint64_t lo, uint64_t hi, const char *id,
		   const char *path)
{
	unsigned char b[256];
	struct pfw_module m = { bias, lo, hi, (uint32_t)strlen(id), (uint32_t)strlen(path) };
	memcpy(b, &m, sizeof m);
	memcpy(b + sizeof m, id, m.build_id_len);
	memcpy(b + sizeof m + m.build_id_len, path, m.path_len);
	msg(s, PFW_MODULE, 0, b, (uint32_t)sizeof m + m.build_id_len + m.path_len);
}

/* A callstack of n pcs after a record head. */
static void rec_stack(struct bytes *r, int exact, unsigned n, const uint64_t *pc)
{
	uint64_t head = n | (exact ? PFW_STACK_EXACT : 0), zero = 0;
	put(r, &head, 8);
	put(r, pc, 8 * n);
	if (!(n & 1))
		put(r, &zero, 8);
}

static void rec_mem(struct bytes *r, uint64_t ts, unsigned type, unsigned flags, uint32_t pool,
		    uint64_t addr, uint64_t size)
{
	uint64_t w = pfw_word(type, 0, pool) | (uint64_t)flags << 8;
	put(r, &ts, 8);
	put(r, &w, 8);
	put(r, &addr, 8);
	put(r, &size, 8);
}

#define LIB 0x7f0000000000ull

static void stacks_stream(struct stream *x)
{
	struct bytes *s = &stream_new(x)->s, *r = &x->r;
	module(s, 0x10000, 0, 0x5000, "\x01\x02\xab\xcd", "/bin/a");
	module(s, LIB, 0x1000, 0x3000, "", "libb.so");
	category(s, 1, "render");
	string(s, 1, "draw");
	string(s, 2, "pool x");
	msg(s, PFW_THREAD, 9, "t", 1);
	uint64_t pc[3] = { 0x10100, LIB + 0x1500, 0x999 };
	rec(r, 2000, PFW_R_ZONE_BEGIN_S, 1, 1);
	rec_stack(r, 0, 3, pc);
	rec(r, 2100, PFW_R_ZONE_END, 1, 0);
	rec_mem(r, 2200, PFW_R_MEM_ALLOC_S, PFW_RF_SECURE, 2, 0xabc0, 48);
	rec_stack(r, 0, 2, pc);
	rec_mem(r, 2300, PFW_R_MEM_FREE, 0, 2, 0xabc0, 0);
	rec_mem(r, 2400, PFW_R_MEM_ALLOC, 0, 0, 0x5000, 7);
	rec_mem(r, 2500, PFW_R_MEM_FREE_S, 0, 0, 0x5000, 0);
	rec_stack(r, 1, 1, pc);
	rec(r, 2600, PFW_R_ZONE_BEGIN_S, 1, 1);
	rec_stack(r, 0, 3, pc); /* the same stack: the same id */
	rec_mem(r, 2700, PFW_R_MEM_ALLOC_S, 0, 0, 0x6000, 1);
	rec_stack(r, 0, 0, pc);
	events(x, 9);
	/* libb.so was unloaded and libc.so took part of its place. */
	module(s, LIB, 0x1000, 0x2000, "\xee", "libc.so");
	uint64_t pc2[2] = { LIB + 0x1500, LIB + 0x2800 };
	rec_mem(r, 2800, PFW_R_MEM_ALLOC_S, 0, 0, 0x7000, 2);
	rec_stack(r, 0, 2, pc2);
	events(x, 9);
}

static void check_frame(const struct profev_frame *f, uint32_t module, uint32_t flags,
			uint64_t offset, int line)
{
	if (f->module != module || f->flags != flags || f->offset != offset) {
		fprintf(stderr, "t_record.c:%d: frame {%u, %u, 0x%llx} != {%u, %u, 0x%llx}\n", line,
			f->module, f->flags, (unsigned long long)f->offset, module, flags,
			(unsigned long long)offset);
		check_failures++;
	}
}
#define FRAME(f, m, fl, off) check_frame(f, m, fl, off, __LINE__)

static void test_stacks_and_memory(void)
{
	static struct stream x;
	stacks_stream(&x);
	struct result o;
	play(&o, &x.s);
	CHECK_EQ(o.rc, 0);
	CHECK_STR(o.warnings, "");
	CHECK(o.complete);
	CHECK_EQ(o.n, 9);
	CHECK_EQ(o.nmods, 3);
	CHECK_STR(o.mod_path[0], "/bin/a");
	CHECK_EQ(o.mod_idlen[0], 4);
	CHECK(memcmp(o.mod_id[0], "\x01\x02\xab\xcd", 4) == 0);
	CHECK_EQ_U64(o.mod_bias[0], 0x10000);
	CHECK_EQ_U64(o.mod_size[0], 0x5000);
	CHECK_STR(o.mod_path[1], "libb.so");
	CHECK_EQ(o.mod_idlen[1], 0);
	CHECK_EQ_U64(o.mod_size[1], 0x2000);
	CHECK_STR(o.mod_path[2], "libc.so");

	const unsigned R = PROFEV_FRAMEF_RETURN, N = PROFEV_FRAMEF_NOMODULE;
	CHECK_EQ(o.ev[0].type, PROFEV_EV_ZONE_BEGIN);
	CHECK_STR(o.names[0], "draw");
	CHECK_STR(o.cats[0], "render");
	CHECK(o.ev[0].stack != 0);
	CHECK_EQ(o.nframes[0], 3);
	FRAME(&o.frames[0][0], 0, R, 0x100);
	FRAME(&o.frames[0][1], 1, R, 0x1500);
	FRAME(&o.frames[0][2], 0, R | N, 0x999);
	CHECK_EQ(o.ev[1].type, PROFEV_EV_ZONE_END);
	CHECK_STR(o.names[1], "draw");

	CHECK_EQ(o.ev[2].type, PROFEV_EV_MEM_ALLOC);
	CHECK_EQ_U64(o.ev[2].addr, 0xabc0);
	CHECK_EQ_U64(o.ev[2].payload, 48);
	CHECK_STR(o.names[2], "pool x");
	CHECK_EQ(o.ev[2].flags, PROFEV_EVF_SECURE);
	CHECK_EQ(o.nframes[2], 2);
	CHECK(o.ev[2].stack != o.ev[0].stack);
	FRAME(&o.frames[2][1], 1, R, 0x1500);

	CHECK_EQ(o.ev[3].type, PROFEV_EV_MEM_FREE);
	CHECK_EQ_U64(o.ev[3].addr, 0xabc0);
	CHECK_STR(o.names[3], "pool x");
	CHECK_EQ(o.ev[3].flags, 0);
	CHECK_EQ(o.ev[3].stack, 0);

	CHECK_EQ(o.ev[4].type, PROFEV_EV_MEM_ALLOC);
	CHECK_EQ_U64(o.ev[4].payload, 7);
	CHECK_STR(o.names[4], "");
	CHECK_EQ(o.ev[4].stack, 0);

	/* An exact first pc is not a return address. */
	CHECK_EQ(o.ev[5].type, PROFEV_EV_MEM_FREE);
	CHECK_EQ(o.nframes[5], 1);
	FRAME(&o.frames[5][0], 0, 0, 0x100);

	CHECK_EQ(o.ev[6].type, PROFEV_EV_ZONE_BEGIN);
	CHECK_EQ(o.ev[6].stack, o.ev[0].stack);
	CHECK_EQ(o.ev[7].stack, 0);
	CHECK_EQ_U64(o.ev[7].payload, 1);

	/* After the overlap: the new module, and nothing where only the old
	 * one was. */
	CHECK_EQ(o.nframes[8], 2);
	FRAME(&o.frames[8][0], 2, R, 0x1500);
	FRAME(&o.frames[8][1], 0, R | N, LIB + 0x2800);

	/* Damaged: too many frames, reserved bits, a bad module. */
	static const struct {
		unsigned n;
		uint64_t extra;
		const char *warning;
	} bad[] = {
		{ 63, 0, "malformed event record" },
		{ 1, 1ull << 20, "malformed event record" },
		{ 40, 0, "record crosses the end of its message" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		stream_new(&x);
		rec(&x.r, 2000, PFW_R_INSTANT, 0, 0);
		rec(&x.r, 2000, PFW_R_ZONE_BEGIN_S, 0, 0);
		uint64_t head = bad[i].n | bad[i].extra;
		put(&x.r, &head, 8);
		for (unsigned k = 0; k < 7; k++)
			put(&x.r, &head, 8);
		events(&x, 7);
		play(&o, &x.s);
		CHECK(o.complete);
		CHECK_EQ(o.n, 1);
		CHECK(strstr(o.warnings, bad[i].warning) != NULL);
	}
	stream_new(&x);
	module(&x.s, 0x1000, 0x500, 0x500, "", "empty");
	play(&o, &x.s);
	CHECK(strstr(o.warnings, "malformed message") != NULL);
	CHECK_EQ(o.nmods, 0);
}

/* CRASH: after the thread's records, a crash event at the handler's tick
 * with the faulting thread's callstack (frame 0 exact); one too short for
 * its callstack is a malformed message. */
static void test_crash(void)
{
	static struct stream x;
	struct bytes *s = &stream_new(&x)->s, *r = &x.r;
	module(s, 0x10000, 0, 0x5000, "\x01\x02", "/bin/a");
	msg(s, PFW_THREAD, 9, "worker", 6);
	rec(r, 2000, PFW_R_INSTANT, 0, 0);
	events(&x, 9);
	unsigned char b[128];
	struct pfw_crash c = { 11, 1, 0x8, 2500 };
	uint64_t pc[2] = { 0x10200, 0x10300 };
	memcpy(b, &c, sizeof c);
	struct bytes st = { .n = 0 };
	rec_stack(&st, 1, 2, pc);
	memcpy(b + sizeof c, st.b, st.n);
	msg(s, PFW_CRASH, 9, b, (uint32_t)(sizeof c + st.n));
	struct result o;
	play(&o, &x.s);
	CHECK_EQ(o.rc, 0);
	CHECK_STR(o.warnings, "");
	CHECK_EQ(o.n, 2);
	CHECK_EQ(o.ev[1].type, PROFEV_EV_CRASH);
	CHECK_EQ(o.ev[1].tid, 9);
	CHECK_EQ_U64(o.ev[1].ts, 2500);
	CHECK_EQ_U64(o.ev[1].payload, 0x8);
	CHECK_STR(o.names[1], "SIGSEGV");
	CHECK_STR(o.threads[1], "worker");
	CHECK_EQ(o.nframes[1], 2);
	FRAME(&o.frames[1][0], 0, 0, 0x200);
	FRAME(&o.frames[1][1], 0, PROFEV_FRAMEF_RETURN, 0x300);

	stream_new(&x);
	msg(&x.s, PFW_CRASH, 9, b, (uint32_t)(sizeof c + st.n - 8));
	play(&o, &x.s);
	CHECK(strstr(o.warnings, "malformed message") != NULL);
	CHECK_EQ(o.n, 0);
}

static void test_broken_streams(void)
{
	struct result o;
	static struct stream x;

	/* Events before HELLO. */
	rec(&x.r, 2000, PFW_R_ZONE_BEGIN, 0, 0);
	events(&x, 42);
	play(&o, &x.s);
	CHECK_EQ(o.rc, 0);
	CHECK(o.complete);
	CHECK_EQ(o.n, 0);
	CHECK(strstr(o.warnings, "client stream at byte 0: events before the client's hello") != NULL);

	/* Good events, then garbage: the good ones stay. */
	stream_new(&x);
	string(&x.s, 1, "a");
	rec(&x.r, 2000, PFW_R_INSTANT, 0, 1);
	events(&x, 7);
	size_t at = x.s.n;
	put(&x.s, "garbage garbage garbage", 23);
	play(&o, &x.s);
	CHECK(o.complete);
	CHECK_EQ(o.n, 1);
	char want[128];
	snprintf(want, sizeof want, "client stream at byte %zu: bad message header", at);
	CHECK(strstr(o.warnings, want) != NULL);

	/* An unknown record type. */
	stream_new(&x);
	rec(&x.r, 2000, PFW_R_FRAME_MARK, 0, 0);
	rec(&x.r, 2000, 200, 0, 0);
	events(&x, 7);
	play(&o, &x.s);
	CHECK_EQ(o.n, 1);
	CHECK(strstr(o.warnings, "malformed event record") != NULL);

	/* A variable record longer than its message. */
	stream_new(&x);
	rec(&x.r, 2000, PFW_R_MESSAGE, 0, 40);
	events(&x, 7);
	play(&o, &x.s);
	CHECK_EQ(o.n, 0);
	CHECK(strstr(o.warnings, "record crosses the end of its message") != NULL);

	/* Cut inside a message, as SIGKILL may leave it: what arrived stays. */
	stream_new(&x);
	for (int i = 0; i < 4; i++)
		rec(&x.r, 2000 + (uint64_t)i, PFW_R_FRAME_MARK, 0, 0);
	events(&x, 7);
	x.s.n -= 24;
	play(&o, &x.s);
	CHECK(o.complete);
	CHECK_EQ(o.n, 2);
	CHECK(strstr(o.warnings, "client stream ends inside a message") != NULL);

	/* A MODULE shorter than its header and build-id: the path's length
	 * was once checked against a length that had wrapped around, and the
	 * path and build-id copied from the bytes after the message. */
	stream_new(&x);
	{
		unsigned char b[64];
		memset(b, 'x', sizeof b);
		struct pfw_module m = { 0x1000, 0x0, 0x500, 10, 5 };
		memcpy(b, &m, sizeof m);
		msg(&x.s, PFW_MODULE, 0, b, (uint32_t)sizeof m + 2);
		put(&x.s, "/etc/passwd-after", 17);
	}
	play(&o, &x.s);
	CHECK_EQ(o.rc, 0);
	CHECK(o.complete);
	CHECK_EQ(o.nmods, 0);
	CHECK(strstr(o.warnings, "malformed message") != NULL);

	/* A calibration that makes a tick infinitely long (or zero): refused,
	 * a tick counts as a nanosecond and the trace says the times are
	 * unreliable. The tick length was once infinity, and its conversion to
	 * fixed point undefined. */
	static const double rates[] = { 1e-310, 1e300, 0.0 };
	for (int i = 0; i < 3; i++) {
		x.s.n = x.r.n = 0;
		struct pfw_hello th = { PFW_VERSION, 777, PFW_CLOCK_TSC, 0, rates[i], 1000, 1000, 0,
					1 << 20, 2000 };
		msg(&x.s, PFW_HELLO, 0, &th, sizeof th);
		rec(&x.r, 2000, PFW_R_FRAME_MARK, 0, 0);
		rec(&x.r, 5000, PFW_R_FRAME_MARK, 0, 0);
		events(&x, 7);
		play(&o, &x.s);
		CHECK_EQ(o.rc, 0);
		CHECK(o.complete);
		CHECK_EQ(o.n, 2);
		CHECK_EQ_U64(o.ev[0].ts, 2000);
		CHECK_EQ_U64(o.ev[1].ts, 5000);
		CHECK(strstr(o.warnings, "clock calibration") != NULL);
		CHECK_STR(o.clock, "tsc (unreliable calibration)");
	}

	/* Another wire version is refused. */
	x.s.n = 0;
	struct pfw_hello h = { 9, 1, PFW_CLOCK_MONOTONIC, 0, 1.0, 0, 0, 0, 0, 0 };
	msg(&x.s, PFW_HELLO, 0, &h, sizeof h);
	play(&o, &x.s);
	CHECK_EQ(o.res.client, 0);
	CHECK(strstr(o.warnings, "client speaks wire version 9") != NULL);
}

/* Damaged copies of a good stream: the recorder must never crash, and the
 * trace must stay complete whatever the stream holds. */
static void test_mutations(void)
{
	static struct stream good, good2;
	static struct bytes bad;
	every_record(&good);
	stacks_stream(&good2);
	unsigned seed = 12345;
	int incomplete = 0;
	for (int i = 0; i < 300; i++) {
		bad = i % 2 ? good2.s : good.s;
		int flips = 1 + i % 4;
		for (int k = 0; k < flips; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % bad.n;
			seed = seed * 1103515245u + 12345u;
			bad.b[at] = (unsigned char)(seed >> 16);
		}
		if (i % 5 == 0) {
			seed = seed * 1103515245u + 12345u;
			bad.n = (seed >> 8) % bad.n;
		}
		struct result o;
		play(&o, &bad);
		CHECK_EQ(o.rc, 0);
		incomplete += !o.complete;
	}
	CHECK_EQ(incomplete, 0);
}

static void test_programs(void)
{
	struct result o;
	char *no_client[] = { "sh", "-c", "exit 9", NULL };
	run(&o, no_client);
	CHECK_EQ(o.rc, 0);
	CHECK_EQ(o.res.client, 0);
	CHECK_EQ(o.res.exit_kind, PROFEV_EXIT_EXITED);
	CHECK_EQ(o.res.status, 9);
	CHECK(o.complete);
	CHECK_EQ(o.n, 0);

	char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };
	run(&o, killed);
	CHECK_EQ(o.res.exit_kind, PROFEV_EXIT_SIGNALED);
	CHECK_EQ(o.res.exit_code, 15);
	CHECK_EQ(o.res.status, 143);

	char *missing[] = { "/nonexistent/program", NULL };
	run(&o, missing);
	CHECK_EQ(o.rc, 0);
	CHECK_EQ(o.res.exit_kind, PROFEV_EXIT_NOSTART);
	CHECK_EQ(o.res.exit_code, ENOENT);
	CHECK_EQ(o.res.status, 127);
	CHECK(o.complete);

	char path[] = "/tmp/t_record.XXXXXX";
	int fd = mkstemp(path); /* mode 0600: not executable */
	CHECK(fd >= 0);
	close(fd);
	char *notexec[] = { path, NULL };
	run(&o, notexec);
	unlink(path);
	CHECK_EQ(o.res.exit_kind, PROFEV_EXIT_NOSTART);
	CHECK_EQ(o.res.exit_code, EACCES);
	CHECK_EQ(o.res.status, 126);

	struct profev_error err;
	struct profev_record_opts bad = { 0 };
	bad.out_fd = 1;
	CHECK(profev_recorder_start(&bad, &err) == NULL);
	CHECK_EQ(err.code, PROFEV_E_ARG);
	profev_recorder_free(NULL);
}

int main(void)
{
	test_every_record();
	test_stacks_and_memory();
	test_crash();
	test_broken_streams();
	test_mutations();
	test_programs();
	return CHECK_DONE();
}
