/* The client runtime end to end: this program records itself. Run with a
 * scenario name as argument (by the recorder) it is the traced program;
 * run without, it records each scenario with the recorder library and
 * checks the trace through the reader. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "profev.h"
#include "profev_record.h"
#include "profev_trace.h"

PROFEV_CATEGORY(render, "drawing");
PROFEV_CATEGORY(audio, "sound");
PROFEV_CATEGORY(physics, "simulation");

#define MANY_THREADS 16
#define PFW_MAX_ID 64
static long many_zones = 1000000;

/* ---- the traced side ---------------------------------------------------- */

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void nested(int depth)
{
	PROFEV_ZONE(render, "nested");
	if (depth > 1)
		nested(depth - 1);
}

static void *macros_thread(void *arg)
{
	(void)arg;
	profev_thread_name("mixer");
	for (int i = 0; i < 10; i++) {
		PROFEV_ZONE(audio, "mix");
		PROFEV_COUNTER(audio, "voices", i * 0.5);
	}
	return NULL;
}

static int child_macros(void)
{
	if (!profev_active())
		return 90;
	pthread_t t;
	pthread_create(&t, NULL, macros_thread, NULL);
	pthread_join(t, NULL);
	profev_thread_name("main loop");
	for (int f = 0; f < 3; f++) {
		PROFEV_ZONE(render, "frame");
		nested(4);
		PROFEV_ZONE_BEGIN(physics, "step");
		PROFEV_INSTANT(physics, "contact");
		PROFEV_ZONE_END(physics);
		char name[32];
		int n = snprintf(name, sizeof name, "entity %dxxx", f);
		{
			PROFEV_ZONE_DYN(render, name, (size_t)n - 3);
			PROFEV_MESSAGE(render, "frame %d of %s", f, "three");
		}
		PROFEV_COUNTER(render, "fps", 60.25 + f);
		PROFEV_FRAME_MARK();
	}
	PROFEV_FRAME_MARK_NAMED("physics");
	return 7;
}

static void *many_thread(void *arg)
{
	(void)arg;
	for (long i = 0; i < many_zones; i++) {
		PROFEV_ZONE_BEGIN(render, "z");
		PROFEV_ZONE_END(render);
	}
	return NULL;
}

static int child_many(void)
{
	pthread_t t[MANY_THREADS];
	for (int i = 0; i < MANY_THREADS; i++)
		pthread_create(&t[i], NULL, many_thread, NULL);
	for (int i = 0; i < MANY_THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int child_categories(void)
{
	for (int i = 0; i < 5; i++) {
		PROFEV_INSTANT(render, "r");
		PROFEV_INSTANT(audio, "a");
		PROFEV_INSTANT(physics, "p");
	}
	return 0;
}

static void some_zones(int n)
{
	for (int i = 0; i < n; i++) {
		PROFEV_ZONE(render, "before");
	}
}

static int child_segv(void)
{
	some_zones(100);
	/* Not NULL: a sanitizer would report a null store before the fault. */
	volatile int *volatile p = (volatile int *)(uintptr_t)16;
	*p = 1;
	return 0;
}

#pragma GCC diagnostic ignored "-Winfinite-recursion"
__attribute__((noinline)) static int recurse(volatile char *up)
{
	volatile char buf[1024];
	buf[0] = up ? up[0] : 1;
	return recurse(buf) + buf[1];
}

static void *overflow_thread(void *arg)
{
	(void)arg;
	some_zones(100);
	recurse(NULL);
	return NULL;
}

/* On a small stack the overflow comes long before the flush thread's next
 * pass: only the crash handler, on the alternate stack, can send the zones. */
static int child_overflow(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 128 << 10);
	pthread_t t;
	pthread_create(&t, &a, overflow_thread, NULL);
	pthread_join(t, NULL);
	return 0;
}

static int child_abort(void)
{
	some_zones(100);
	abort();
}

static int child_kill(void)
{
	some_zones(1000);
	/* Longer than the flush thread's age limit (2 ms). */
	sleep_ms(50);
	raise(SIGKILL);
	return 0;
}

static void program_handler(int sig)
{
	(void)sig;
	_exit(42);
}

/* Installed before the client's constructor runs: the client must chain to it. */
__attribute__((constructor(101))) static void early_handler(void)
{
	const char *s = getenv("T_CLIENT_OWN_HANDLER");
	if (s)
		signal(SIGSEGV, program_handler);
}

static int child_chain(void)
{
	return child_segv();
}

static void *exit_thread(void *arg)
{
	(void)arg;
	some_zones(10);
	exit(5);
}

static int child_thread_exit(void)
{
	some_zones(10);
	pthread_t t;
	pthread_create(&t, NULL, exit_thread, NULL);
	for (;;)
		pause();
	return 0;
}

static int child_fork(void)
{
	some_zones(5);
	pid_t p = fork();
	if (p == 0) {
		/* Inherited state must not write into the parent's stream. */
		PROFEV_INSTANT(render, "in forked child");
		if (profev_active())
			_exit(1);
		execl("/proc/self/exe", "t_client", "grandchild", (char *)NULL);
		_exit(2);
	}
	int st;
	waitpid(p, &st, 0);
	PROFEV_COUNTER(render, "child status", WIFEXITED(st) ? WEXITSTATUS(st) : 100);
	some_zones(5);
	return 0;
}

static int child_grandchild(void)
{
	PROFEV_INSTANT(render, "in exec'd child");
	/* PROFEV_FD was taken out of the environment and the pipe closed on exec. */
	return profev_active() || getenv("PROFEV_FD") ? 3 : 0;
}

static int child_drop(void)
{
	for (int i = 0; i < 200000; i++) {
		PROFEV_ZONE(render, "burst");
	}
	return 0;
}

static int child_env(void)
{
	return getenv("PROFEV_FD") || getenv("PROFEV_CATEGORIES") ? 1 : 0;
}

static void *churn_thread(void *arg)
{
	(void)arg;
	some_zones(100);
	return NULL;
}

/* Short-lived threads: buffers are recycled and thread ids come back. */
static int child_churn(void)
{
	for (int i = 0; i < 300; i++) {
		pthread_t t[3];
		for (int k = 0; k < 3; k++)
			pthread_create(&t[k], NULL, churn_thread, NULL);
		for (int k = 0; k < 3; k++)
			pthread_join(t[k], NULL);
	}
	return 0;
}

static void *busy_thread(void *arg)
{
	(void)arg;
	for (;;)
		some_zones(1000);
	return NULL;
}

/* exit() while other threads produce as fast as they can. */
static int child_busy_exit(void)
{
	pthread_t t[4];
	for (int k = 0; k < 4; k++)
		pthread_create(&t[k], NULL, busy_thread, NULL);
	sleep_ms(100);
	some_zones(7);
	exit(6);
}

/* Memory macros at made-up addresses, each from its own function so that
 * the callstacks can be checked by function. */
#define NOINLINE __attribute__((noinline))
#define A(n) ((void *)(uintptr_t)(0x100000 + (n)))
void site_alloc_s(void);
void site_free_s(void);
void site_named_s(void);
void site_free_named_s(void);
void site_zone_s(int n);
void memory_calls(void);
NOINLINE void site_alloc_s(void) { PROFEV_ALLOC_S(A(2), 200, 16); }
NOINLINE void site_free_s(void) { PROFEV_FREE_S(A(2), 16); }
NOINLINE void site_named_s(void) { PROFEV_ALLOC_NAMED_S(A(4), 400, "meshes", 8); }
NOINLINE void site_free_named_s(void) { PROFEV_FREE_NAMED_S(A(4), "meshes", 3); }
NOINLINE void site_zone_s(int n)
{
	if (n > 0) {
		site_zone_s(n - 1);
		__asm__ __volatile__("");
		return;
	}
	PROFEV_ZONE_S(render, "deep", 100); /* more than 62: cut to 62 */
	PROFEV_INSTANT(render, "inside deep");
}

NOINLINE void memory_calls(void)
{
	PROFEV_ALLOC(A(1), 100);
	PROFEV_FREE(A(1));
	site_alloc_s();
	site_free_s();
	PROFEV_ALLOC_NAMED(A(3), 300, "textures");
	PROFEV_FREE_NAMED(A(3), "textures");
	site_named_s();
	site_free_named_s();
	PROFEV_SECURE_ALLOC(A(5), 500);
	PROFEV_SECURE_FREE(A(5));
	PROFEV_ALLOC_S(A(6), 600, 0); /* depth 0: no callstack */
	{
		PROFEV_ZONE_S(render, "shallow", 1);
	}
	site_zone_s(70);
}

static int child_memory(void)
{
	memory_calls();
	return 0;
}

/* Before the client starts and after it shut down, the SECURE macros (and
 * the others) do nothing, and do not crash. */
static void after_shutdown(void)
{
	PROFEV_SECURE_ALLOC(A(9), 9);
	PROFEV_SECURE_FREE(A(9));
	PROFEV_ALLOC(A(9), 9);
	PROFEV_FREE_S(A(9), 8);
}

__attribute__((constructor(101))) static void before_start(void)
{
	PROFEV_SECURE_ALLOC(A(8), 8);
	PROFEV_SECURE_FREE(A(8));
	PROFEV_ALLOC_S(A(8), 8, 4);
	/* Registered before the client's own handler: runs after it. */
	atexit(after_shutdown);
}

__attribute__((destructor)) static void in_destructor(void)
{
	PROFEV_SECURE_FREE(A(10));
}

static int child_secure(void)
{
	PROFEV_SECURE_ALLOC(A(7), 7);
	return 0;
}

/* Threads capture while the main thread loads a library with dlopen and
 * captures through it: libbz2 (which dpkg needs, so it is everywhere)
 * calls our allocator back from BZ2_bzCompressInit. */
#define STACK_THREADS 4
#define STACK_EVENTS 2000
struct bz_stream {
	char *next_in;
	unsigned avail_in, total_in_lo32, total_in_hi32;
	char *next_out;
	unsigned avail_out, total_out_lo32, total_out_hi32;
	void *state;
	void *(*bzalloc)(void *, int, int);
	void (*bzfree)(void *, void *);
	void *opaque;
};

static void *bz_alloc(void *opaque, int n, int m)
{
	(void)opaque;
	void *p = malloc((size_t)n * (size_t)m);
	PROFEV_ALLOC_NAMED_S(p, (size_t)n * (size_t)m, "bz", 8);
	return p;
}

static void bz_free(void *opaque, void *p)
{
	(void)opaque;
	PROFEV_FREE_NAMED(p, "bz");
	free(p);
}

static void *stack_thread(void *arg)
{
	uintptr_t base = 0x200000 + (uintptr_t)arg * 0x100000;
	for (int i = 0; i < STACK_EVENTS; i++) {
		PROFEV_ZONE_S(physics, "captured", 16);
		PROFEV_ALLOC_S((void *)(base + (uintptr_t)i), 16, 16);
		PROFEV_FREE_S((void *)(base + (uintptr_t)i), 16);
	}
	return NULL;
}

static int child_dlopen(void)
{
	pthread_t t[STACK_THREADS];
	for (uintptr_t i = 0; i < STACK_THREADS; i++)
		pthread_create(&t[i], NULL, stack_thread, (void *)i);
	void *h = dlopen("libbz2.so.1.0", RTLD_NOW);
	int (*init)(struct bz_stream *, int, int, int) = h ? (int (*)(struct bz_stream *, int, int, int))
		dlsym(h, "BZ2_bzCompressInit") : NULL;
	int (*end)(struct bz_stream *) = h ? (int (*)(struct bz_stream *))dlsym(h, "BZ2_bzCompressEnd")
					  : NULL;
	int rc = 0;
	if (init && end) {
		struct bz_stream z;
		memset(&z, 0, sizeof z);
		z.bzalloc = bz_alloc;
		z.bzfree = bz_free;
		rc = init(&z, 1, 0, 0) == 0 && end(&z) == 0 ? 0 : 4;
	} else {
		rc = 3;
	}
	for (int i = 0; i < STACK_THREADS; i++)
		pthread_join(t[i], NULL);
	return rc;
}

/* Code outside every module, as a JIT makes it: a stub that calls its
 * argument. Captures through it keep its pc as it is. */
static void jit_callback(void)
{
	PROFEV_ALLOC_S(A(20), 20, 8);
}

static int child_jit(void)
{
#if defined(__x86_64__)
	static const unsigned char stub[] = {
		0x48, 0x83, 0xec, 0x08, /* sub $8, %rsp */
		0xff, 0xd7,             /* call *%rdi */
		0x48, 0x83, 0xc4, 0x08, /* add $8, %rsp */
		0xc3,                   /* ret */
	};
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED)
		return 3;
	memcpy(p, stub, sizeof stub);
	void (*call)(void (*)(void));
	memcpy(&call, &p, sizeof call);
	for (int i = 0; i < 3; i++)
		call(jit_callback);
	/* The stub's return address, exactly, for the check. */
	PROFEV_COUNTER(render, "stub", (double)((uintptr_t)p + 6));
	return 0;
#elif defined(__aarch64__)
	static const uint32_t stub[] = {
		0xa9bf7bfd, /* stp x29, x30, [sp, #-16]! */
		0x910003fd, /* mov x29, sp */
		0xd63f0000, /* blr x0 */
		0xa8c17bfd, /* ldp x29, x30, [sp], #16 */
		0xd65f03c0, /* ret */
	};
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED)
		return 3;
	memcpy(p, stub, sizeof stub);
	__builtin___clear_cache((char *)p, (char *)p + sizeof stub);
	void (*call)(void (*)(void));
	memcpy(&call, &p, sizeof call);
	for (int i = 0; i < 3; i++)
		call(jit_callback);
	PROFEV_COUNTER(render, "stub", (double)((uintptr_t)p + 12));
	return 0;
#else
	return 4;
#endif
}

/* Four threads send frame images at once (the slots' compare-and-swap,
 * waits for a free slot, wakes): thread t's image i is one color that
 * RGB565 holds exactly, (5 t + 8, 60 - 2 i, 31 - i) in 5, 6, 5 bits, in
 * every pixel, 32 x 16, odd ones bottom-up. */
#define IMG_THREADS 4
#define IMG_EACH 24
static void img_color(unsigned t, unsigned i, uint8_t c[3])
{
	unsigned r = 5 * t + 8, g = 60 - 2 * i, b = 31 - i;
	c[0] = (uint8_t)(r << 3 | r >> 2);
	c[1] = (uint8_t)(g << 2 | g >> 4);
	c[2] = (uint8_t)(b << 3 | b >> 2);
}

static void *images_thread(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	static __thread uint8_t px[32 * 16 * 4];
	for (unsigned i = 0; i < IMG_EACH; i++) {
		uint8_t c[3];
		img_color(t, i, c);
		for (size_t k = 0; k < sizeof px; k += 4) {
			memcpy(px + k, c, 3);
			px[k + 3] = 255;
		}
		PROFEV_FRAME_IMAGE(px, 32, 16, 0, (int)(i & 1));
		memset(px, 0, sizeof px); /* the call copied them */
	}
	return NULL;
}

static int child_images(void)
{
	pthread_t th[IMG_THREADS];
	for (uintptr_t t = 0; t < IMG_THREADS; t++)
		pthread_create(&th[t], NULL, images_thread, (void *)t);
	for (int t = 0; t < IMG_THREADS; t++)
		pthread_join(th[t], NULL);
	PROFEV_FRAME_IMAGE(NULL, 6, 4, 0, 0); /* refused, counted */
	return 0;
}

static const struct {
	const char *name;
	int (*run)(void);
} children[] = {
	{ "images", child_images },
	{ "memory", child_memory }, { "secure", child_secure }, { "dlopen", child_dlopen },
	{ "jit", child_jit },
	{ "churn", child_churn }, { "busy-exit", child_busy_exit },
	{ "macros", child_macros }, { "many", child_many }, { "categories", child_categories },
	{ "segv", child_segv }, { "overflow", child_overflow }, { "abort", child_abort }, { "kill", child_kill },
	{ "chain", child_chain }, { "thread-exit", child_thread_exit }, { "fork", child_fork },
	{ "grandchild", child_grandchild }, { "drop", child_drop }, { "env", child_env },
};

/* ---- the recording side ------------------------------------------------- */

struct rec {
	struct profev_record_result res;
	int rc;
	char path[64];
};

static void record(struct rec *out, const char *scenario, const char *categories, int drop,
		   uint32_t buffer)
{
	char *argv[] = { "/proc/self/exe", (char *)scenario, NULL };
	strcpy(out->path, "/tmp/t_client.XXXXXX");
	int fd = mkstemp(out->path);
	CHECK(fd >= 0);
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = fd;
	o.categories = categories;
	o.drop = drop;
	o.buffer_bytes = buffer;
	o.child_stdout = -1;
	struct profev_error err;
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "start: %s\n", err.message);
		out->rc = -1;
		close(fd);
		return;
	}
	out->rc = profev_recorder_run(r, &out->res);
	if (out->rc)
		fprintf(stderr, "%s: %s\n", scenario, profev_recorder_error(r)->message);
	profev_recorder_free(r);
	close(fd);
}

/* Events of a trace, reduced to what the checks compare. */
struct ev {
	struct profev_event e;
	char name[48], cat[16], thread[16], text[48];
	unsigned nframes;
	struct profev_frame fr[4]; /* the innermost frames */
	uint64_t stack_hash;       /* of every frame */
};

struct trace {
	struct ev *ev;
	size_t n, cap;
	int complete;
	struct profev_meta meta;
	char clock[16];
	uint64_t lost;
	int keep;           /* store events (else only count per type) */
	uint64_t by_type[16];
	uint32_t tids[64];
	uint64_t per_tid[64];
	unsigned ntids;
	unsigned nmods;
	char mod_path[64][256];
	uint8_t mod_id[64][PFW_MAX_ID];
	uint32_t mod_idlen[64];
};

static void load(struct trace *t, const char *path, int keep)
{
	memset(t, 0, sizeof *t);
	t->keep = keep;
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(f, &err);
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "%s: %s\n", path, err.message);
		fclose(f);
		return;
	}
	struct profev_event e;
	struct profev_event_info in;
	int rc;
	uint64_t last_ts[64] = { 0 };
	while ((rc = profev_reader_next_event(r, &e, &in)) == 1) {
		if (e.type < 16)
			t->by_type[e.type]++;
		unsigned k = 0;
		while (k < t->ntids && t->tids[k] != e.tid)
			k++;
		if (k == t->ntids && k < 64)
			t->tids[t->ntids++] = e.tid;
		if (k < 64) {
			t->per_tid[k]++;
			CHECK(e.ts >= last_ts[k]); /* monotonic per thread */
			last_ts[k] = e.ts;
		}
		if (e.type == PROFEV_EV_LOST)
			t->lost += e.payload;
		if (!keep)
			continue;
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 256;
			t->ev = realloc(t->ev, t->cap * sizeof *t->ev);
		}
		struct ev *v = &t->ev[t->n++];
		memset(v, 0, sizeof *v);
		v->e = e;
		snprintf(v->name, sizeof v->name, "%s", in.name);
		snprintf(v->cat, sizeof v->cat, "%s", in.category);
		snprintf(v->thread, sizeof v->thread, "%s", in.thread);
		if (in.text)
			snprintf(v->text, sizeof v->text, "%.*s", (int)in.text_len, in.text);
		const struct profev_frame *fr = profev_reader_stack(r, e.stack, &v->nframes);
		for (unsigned i = 0; fr && i < v->nframes && i < 4; i++)
			v->fr[i] = fr[i];
		v->stack_hash = v->nframes;
		for (unsigned i = 0; fr && i < v->nframes; i++)
			v->stack_hash = (v->stack_hash * 1099511628211ull) ^
					(fr[i].offset + ((uint64_t)fr[i].module << 48) +
					 ((uint64_t)fr[i].flags << 40));
	}
	t->nmods = profev_reader_module_count(r);
	for (unsigned i = 0; i < t->nmods && i < 64; i++) {
		const struct profev_module *m = profev_reader_module(r, i);
		snprintf(t->mod_path[i], sizeof t->mod_path[i], "%s", m->path);
		t->mod_idlen[i] = m->build_id_len <= PFW_MAX_ID ? m->build_id_len : 0;
		if (m->build_id)
			memcpy(t->mod_id[i], m->build_id, t->mod_idlen[i]);
	}
	CHECK_EQ(rc, 0);
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", path, profev_reader_error(r)->message);
	t->complete = rc == 0;
	t->meta = *profev_reader_meta(r);
	if (t->meta.clock)
		snprintf(t->clock, sizeof t->clock, "%s", t->meta.clock);
	t->meta.clock = t->meta.program = t->meta.host = t->meta.recorder = NULL;
	t->meta.argv = NULL;
	profev_reader_free(r);
	fclose(f);
}

static void unload(struct trace *t, struct rec *rc)
{
	free(t->ev);
	unlink(rc->path);
}

/* How a scenario is recorded (record()) and loaded (load()). */
struct setup {
	const char *categories;
	int drop;
	uint32_t buffer;
	int keep;
};

/* The fixture: records scenario and loads its trace, checking that the
 * recording worked, the program ended with status and the trace is whole. */
static void recorded(struct rec *rc, struct trace *t, const char *scenario, int status, struct setup s)
{
	int failures = check_failures;
	record(rc, scenario, s.categories, s.drop, s.buffer);
	CHECK_EQ(rc->rc, 0);
	CHECK_EQ(rc->res.status, status);
	load(t, rc->path, s.keep);
	CHECK(t->complete);
	if (check_failures != failures)
		fprintf(stderr, "    (recording scenario '%s')\n", scenario);
}

static size_t count(const struct trace *t, int type, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].e.type == type && (!name || strcmp(t->ev[i].name, name) == 0))
			n++;
	return n;
}

static const struct ev *find(const struct trace *t, int type, const char *name, size_t nth)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].e.type == type && (!name || strcmp(t->ev[i].name, name) == 0) && !nth--)
			return &t->ev[i];
	return NULL;
}

/* Every image of every thread arrives, decodes to its one color exactly
 * (the recorder's lossy steps keep a flat picture flat), and the refused
 * one is counted. */
static void test_images(void)
{
	struct rec rc;
	record(&rc, "images", NULL, 0, 0);
	CHECK_EQ(rc.rc, 0);
	CHECK_EQ(rc.res.status, 0);
	FILE *f = fopen(rc.path, "rb");
	struct profev_error err;
	struct profev_reader *r = f ? profev_reader_new(f, &err) : NULL;
	CHECK(r != NULL);
	if (!r) {
		if (f)
			fclose(f);
		unlink(rc.path);
		return;
	}
	struct profev_event e;
	struct profev_event_info in;
	unsigned seen[IMG_THREADS][IMG_EACH] = { { 0 } }, images = 0;
	static uint8_t px[32 * 16 * 4];
	int got;
	while ((got = profev_reader_next_event(r, &e, &in)) == 1) {
		if (e.type != PROFEV_EV_FRAME_IMAGE)
			continue;
		images++;
		const struct profev_image *im = profev_reader_image(r, (uint32_t)e.payload);
		CHECK(im != NULL);
		if (!im)
			continue;
		CHECK_EQ(im->width, 32);
		CHECK_EQ(im->height, 16);
		CHECK_EQ(profev_image_rgba(im, px, 32 * 4), 0);
		/* Which thread and image: from the color. */
		unsigned t = ((unsigned)(px[0] >> 3) - 8) / 5, i = (60 - (unsigned)(px[1] >> 2)) / 2;
		if (t >= IMG_THREADS || i >= IMG_EACH) {
			CHECK(!"image of an unknown color");
			continue;
		}
		seen[t][i]++;
		uint8_t c[3];
		img_color(t, i, c);
		for (size_t k = 0; k < sizeof px; k += 4)
			CHECK(memcmp(px + k, c, 3) == 0);
	}
	CHECK_EQ(got, 0);
	CHECK_EQ(images, IMG_THREADS * IMG_EACH);
	for (unsigned t = 0; t < IMG_THREADS; t++)
		for (unsigned i = 0; i < IMG_EACH; i++)
			CHECK_EQ(seen[t][i], 1);
	CHECK_EQ(profev_reader_lost_images(r), 0);
	const struct profev_meta *m = profev_reader_meta(r);
	CHECK_EQ(m->refused_images, 1);
	profev_reader_free(r);
	fclose(f);
	unlink(rc.path);
}

static void test_macros(void)
{
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "macros", 7, (struct setup){ .keep = 1 });
	CHECK_EQ(rc.res.exit_kind, PROFEV_EXIT_EXITED);
	CHECK_EQ(rc.res.exit_code, 7);
	CHECK_EQ(rc.res.client, 1);
	CHECK_EQ(t.meta.exit_kind, PROFEV_EXIT_EXITED);
	CHECK_EQ(t.meta.exit_code, 7);
	CHECK(t.meta.ticks_per_ns > 0);
	CHECK(t.clock[0] != 0);

	/* Zones: 3 frames + 3*4 nested + 3 step + 3 dyn on main; 10 mix. */
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "frame"), 3);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "nested"), 12);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "step"), 3);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "mix"), 10);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "entity 0"), 1);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "entity 2"), 1);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, NULL), 31);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_END, NULL), 31);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_END, "step"), 3); /* named from the open zone */
	CHECK_EQ(count(&t, PROFEV_EV_INSTANT, "contact"), 3);
	CHECK_EQ(count(&t, PROFEV_EV_COUNTER, "voices"), 10);
	CHECK_EQ(count(&t, PROFEV_EV_COUNTER, "fps"), 3);
	CHECK_EQ(count(&t, PROFEV_EV_MESSAGE, NULL), 3);
	CHECK_EQ(count(&t, PROFEV_EV_FRAME_MARK, ""), 3);
	CHECK_EQ(count(&t, PROFEV_EV_FRAME_MARK, "physics"), 1);
	CHECK_EQ(count(&t, PROFEV_EV_THREAD_NAME, "mixer"), 1);
	CHECK_EQ(count(&t, PROFEV_EV_THREAD_NAME, "main loop"), 1);

	const struct ev *e = find(&t, PROFEV_EV_COUNTER, "voices", 3);
	CHECK(e && profev_event_double(&e->e) == 1.5);
	CHECK(e && strcmp(e->thread, "mixer") == 0);
	e = find(&t, PROFEV_EV_COUNTER, "fps", 2);
	CHECK(e && profev_event_double(&e->e) == 62.25);
	e = find(&t, PROFEV_EV_MESSAGE, NULL, 1);
	CHECK(e && strcmp(e->text, "frame 1 of three") == 0);
	CHECK(e && strcmp(e->cat, "render") == 0);
	CHECK(e && strcmp(e->thread, "main loop") == 0);
	e = find(&t, PROFEV_EV_ZONE_BEGIN, "step", 0);
	CHECK(e && strcmp(e->cat, "physics") == 0);
	e = find(&t, PROFEV_EV_ZONE_BEGIN, "mix", 0);
	CHECK(e && strcmp(e->cat, "audio") == 0);
	const struct ev *m0 = find(&t, PROFEV_EV_ZONE_BEGIN, "mix", 0);
	const struct ev *f0 = find(&t, PROFEV_EV_ZONE_BEGIN, "frame", 0);
	CHECK(m0 && f0 && m0->e.tid != f0->e.tid);
	CHECK(f0 && (uint32_t)t.meta.pid == f0->e.tid);

	/* Nesting: on each thread begins and ends pair up like brackets, and
	 * an end carries the name of the zone it closes. */
	char stack[2][16][48];
	int depth[2] = { 0, 0 }, maxdepth = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct ev *v = &t.ev[i];
		int th = v->e.tid == f0->e.tid ? 0 : 1;
		if (v->e.type == PROFEV_EV_ZONE_BEGIN) {
			CHECK(depth[th] < 16);
			if (depth[th] < 16)
				strcpy(stack[th][depth[th]++], v->name);
			if (depth[th] > maxdepth)
				maxdepth = depth[th];
		} else if (v->e.type == PROFEV_EV_ZONE_END) {
			CHECK(depth[th] > 0);
			if (depth[th] > 0)
				CHECK_STR(v->name, stack[th][--depth[th]]);
		}
	}
	CHECK_EQ(depth[0], 0);
	CHECK_EQ(depth[1], 0);
	/* frame > nested x4 (a dynamic zone and step reach only depth 2) */
	CHECK_EQ(maxdepth, 5);

	/* Frame numbers: events of frame k follow k default marks. */
	e = find(&t, PROFEV_EV_ZONE_BEGIN, "frame", 2);
	CHECK(e && e->e.frame == 2);
	e = find(&t, PROFEV_EV_FRAME_MARK, "", 1);
	CHECK(e && e->e.frame == 1);
	unload(&t, &rc);
}

static void test_many_threads(void)
{
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "many", 0, (struct setup){ 0 });
	CHECK_EQ_U64(t.by_type[PROFEV_EV_ZONE_BEGIN], (uint64_t)MANY_THREADS * many_zones);
	CHECK_EQ_U64(t.by_type[PROFEV_EV_ZONE_END], (uint64_t)MANY_THREADS * many_zones);
	CHECK_EQ(t.lost, 0);
	CHECK_EQ(t.meta.lost_events, 0);
	CHECK_EQ(t.ntids, MANY_THREADS);
	for (unsigned i = 0; i < t.ntids; i++)
		CHECK_EQ_U64(t.per_tid[i], 2 * (uint64_t)many_zones);
	CHECK_EQ_U64(rc.res.stats.events, 2 * (uint64_t)MANY_THREADS * many_zones);
	unload(&t, &rc);
}

static void test_categories(void)
{
	static const struct {
		const char *list;
		size_t r, a, p;
	} cases[] = {
		{ NULL, 5, 5, 5 },
		{ "render,-audio", 5, 0, 0 },
		{ "-audio", 5, 0, 5 },
		{ "-*,physics", 0, 0, 5 },
		{ "*,-render", 0, 5, 5 },
		{ "nosuch", 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rec rc;
		struct trace t;
		record(&rc, "categories", cases[i].list, 0, 0);
		load(&t, rc.path, 1);
		CHECK_EQ(count(&t, PROFEV_EV_INSTANT, "r"), cases[i].r);
		CHECK_EQ(count(&t, PROFEV_EV_INSTANT, "a"), cases[i].a);
		CHECK_EQ(count(&t, PROFEV_EV_INSTANT, "p"), cases[i].p);
		unload(&t, &rc);
	}
}

static void test_crashes(void)
{
	static const struct {
		const char *name;
		int kind, code, status;
		size_t zones;
	} cases[] = {
		{ "segv", PROFEV_EXIT_SIGNALED, SIGSEGV, 128 + SIGSEGV, 100 },
		{ "abort", PROFEV_EXIT_SIGNALED, SIGABRT, 128 + SIGABRT, 100 },
		{ "overflow", PROFEV_EXIT_SIGNALED, SIGSEGV, 128 + SIGSEGV, 100 },
		{ "kill", PROFEV_EXIT_SIGNALED, SIGKILL, 128 + SIGKILL, 1000 },
		{ "chain", PROFEV_EXIT_EXITED, 42, 42, 100 },
		{ "thread-exit", PROFEV_EXIT_EXITED, 5, 5, 20 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rec rc;
		struct trace t;
		if (strcmp(cases[i].name, "chain") == 0)
			setenv("T_CLIENT_OWN_HANDLER", "1", 1);
		/* Under ASan its own SIGSEGV handler would end the program first. */
		setenv("ASAN_OPTIONS", "handle_segv=0:handle_abort=0", 1);
		setenv("TSAN_OPTIONS", "handle_segv=0", 1);
		recorded(&rc, &t, cases[i].name, cases[i].status, (struct setup){ .keep = 1 });
		unsetenv("T_CLIENT_OWN_HANDLER");
		unsetenv("ASAN_OPTIONS");
		unsetenv("TSAN_OPTIONS");
		CHECK_EQ(rc.res.exit_kind, cases[i].kind);
		CHECK_EQ(rc.res.exit_code, cases[i].code);
		if (count(&t, PROFEV_EV_ZONE_END, "before") != cases[i].zones)
			fprintf(stderr, "case %s\n", cases[i].name);
		CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "before"), cases[i].zones);
		CHECK_EQ(count(&t, PROFEV_EV_ZONE_END, "before"), cases[i].zones);
		CHECK_EQ(t.meta.exit_kind, cases[i].kind);
		CHECK_EQ(t.meta.exit_code, cases[i].code);
		unload(&t, &rc);
	}
}

static void test_fork(void)
{
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "fork", 0, (struct setup){ .keep = 1 });
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "before"), 10);
	CHECK_EQ(count(&t, PROFEV_EV_INSTANT, NULL), 0);
	const struct ev *e = find(&t, PROFEV_EV_COUNTER, "child status", 0);
	CHECK(e && profev_event_double(&e->e) == 0);
	CHECK_EQ(t.ntids, 1);
	unload(&t, &rc);
}

static void test_churn(void)
{
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "churn", 0, (struct setup){ .buffer = 64 << 10 });
	CHECK_EQ_U64(t.by_type[PROFEV_EV_ZONE_BEGIN], 900 * 100);
	CHECK_EQ_U64(t.by_type[PROFEV_EV_ZONE_END], 900 * 100);
	CHECK_EQ_U64(rc.res.stats.threads, 900);
	unload(&t, &rc);

	/* The trace ends properly even though threads were mid-burst. */
	recorded(&rc, &t, "busy-exit", 6, (struct setup){ .buffer = 64 << 10 });
	CHECK(t.by_type[PROFEV_EV_ZONE_END] > 7);
	CHECK_EQ(t.meta.exit_code, 6);
	unload(&t, &rc);
}

static void test_drop(void)
{
	/* A 16 KiB buffer, so the burst outruns the flush thread now and then;
	 * whatever was dropped is accounted for, in place. */
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "drop", 0, (struct setup){ .drop = 1, .buffer = 16 << 10 });
	CHECK_EQ_U64(t.by_type[PROFEV_EV_ZONE_BEGIN] + t.by_type[PROFEV_EV_ZONE_END] + t.lost
		     + (t.meta.lost_events - t.lost), 400000);
	CHECK_EQ_U64(rc.res.stats.lost, t.meta.lost_events);
	fprintf(stderr, "drop: %llu of 400000 events dropped\n",
		(unsigned long long)t.meta.lost_events);
	unload(&t, &rc);
}

static void test_monotonic_clock(void)
{
	struct rec rc;
	struct trace t;
	setenv("PROFEV_CLOCK", "monotonic", 1);
	recorded(&rc, &t, "macros", 7, (struct setup){ .keep = 1 });
	unsetenv("PROFEV_CLOCK");
	CHECK_STR(t.clock, "monotonic");
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, NULL), 31);
	CHECK_EQ(count(&t, PROFEV_EV_COUNTER, "voices"), 10);
	unload(&t, &rc);
}

static void test_env_removed(void)
{
	struct rec rc;
	record(&rc, "env", "render", 0, 0);
	CHECK_EQ(rc.res.status, 0);
	unlink(rc.path);
}

/* The timestamps are CLOCK_MONOTONIC: they fall between start and end. */
static void test_clock(void)
{
	struct timespec a;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t before = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
	struct rec rc;
	struct trace t;
	record(&rc, "kill", NULL, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t after = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
	load(&t, rc.path, 1);
	CHECK(t.n > 0);
	if (t.n) {
		CHECK(t.ev[0].e.ts > before);
		CHECK(t.ev[t.n - 1].e.ts < after);
		/* 1000 zones take well under the 50 ms sleep that follows. */
		CHECK(t.ev[t.n - 1].e.ts - t.ev[0].e.ts < 50000000);
	}
	unload(&t, &rc);
}

static const char *id_of; /* own_id: the module wanted, NULL = the program */

/* A module's GNU build-id, read as the loader mapped it. */
static int own_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct trace *t = arg; /* mod_id[63] receives it */
	if (id_of && !strstr(info->dlpi_name, id_of))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const char *name = p + sizeof *nh;
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_descsz <= PFW_MAX_ID) {
				memcpy(t->mod_id[63], desc, nh->n_descsz);
				t->mod_idlen[63] = nh->n_descsz;
				return 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1; /* the first object is the program */
}

/*
 * The function that contains each frame, by llvm-symbolizer on this very
 * executable (the traced child is this program): names[i] gets the
 * outermost function at offset[i] - 1 (return addresses).
 */
static void functions(const uint64_t *offset, unsigned n, char names[][48])
{
	char self[256] = "";
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	self[len > 0 ? len : 0] = 0;
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "llvm-symbolizer --no-inlines --obj='%s'", self);
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(cmd);
		snprintf(cmd + l, sizeof cmd - l, " 0x%llx", (unsigned long long)offset[i] - 1);
		names[i][0] = 0;
	}
	FILE *p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		return;
	char line[512];
	unsigned i = 0, in_block = 0;
	while (fgets(line, sizeof line, p)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0]) {
			in_block = 0;
			continue;
		}
		if (!in_block && i < n)
			snprintf(names[i++], 48, "%.47s", line);
		in_block = 1;
		if (fgets(line, sizeof line, p) == NULL) /* file:line */
			break;
	}
	pclose(p);
}

static void test_memory(void)
{
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "memory", 0, (struct setup){ .keep = 1 });
	CHECK_EQ(count(&t, PROFEV_EV_MEM_ALLOC, NULL), 6);
	CHECK_EQ(count(&t, PROFEV_EV_MEM_FREE, NULL), 5);

	/* Every event in order: address, size, pool, flags, stack depth. */
	static const struct {
		int type;
		uintptr_t addr;
		uint64_t size;
		const char *pool;
		int flags;
		unsigned frames;
		const char *fn0, *fn1; /* innermost functions, by llvm-symbolizer */
	} want[] = {
		{ PROFEV_EV_MEM_ALLOC, 0x100001, 100, "", 0, 0, NULL, NULL },
		{ PROFEV_EV_MEM_FREE, 0x100001, 0, "", 0, 0, NULL, NULL },
		{ PROFEV_EV_MEM_ALLOC, 0x100002, 200, "", 0, 5, "site_alloc_s", "memory_calls" },
		{ PROFEV_EV_MEM_FREE, 0x100002, 0, "", 0, 5, "site_free_s", "memory_calls" },
		{ PROFEV_EV_MEM_ALLOC, 0x100003, 300, "textures", 0, 0, NULL, NULL },
		{ PROFEV_EV_MEM_FREE, 0x100003, 0, "textures", 0, 0, NULL, NULL },
		{ PROFEV_EV_MEM_ALLOC, 0x100004, 400, "meshes", 0, 5, "site_named_s", "memory_calls" },
		{ PROFEV_EV_MEM_FREE, 0x100004, 0, "meshes", 0, 3, "site_free_named_s", "memory_calls" },
		{ PROFEV_EV_MEM_ALLOC, 0x100005, 500, "", PROFEV_EVF_SECURE, 0, NULL, NULL },
		{ PROFEV_EV_MEM_FREE, 0x100005, 0, "", PROFEV_EVF_SECURE, 0, NULL, NULL },
		{ PROFEV_EV_MEM_ALLOC, 0x100006, 600, "", 0, 0, NULL, NULL },
		{ PROFEV_EV_ZONE_BEGIN, 0, 0, "shallow", 0, 1, "memory_calls", NULL },
		{ PROFEV_EV_ZONE_END, 0, 0, "shallow", 0, 0, NULL, NULL },
		{ PROFEV_EV_ZONE_BEGIN, 0, 0, "deep", 0, 62, "site_zone_s", "site_zone_s" },
		{ PROFEV_EV_INSTANT, 0, 0, "inside deep", 0, 0, NULL, NULL },
		{ PROFEV_EV_ZONE_END, 0, 0, "deep", 0, 0, NULL, NULL },
	};
	size_t nwant = sizeof want / sizeof want[0];
	uint64_t offs[64];
	unsigned noffs = 0;
	size_t first = 0;
	while (first < t.n && t.ev[first].e.type != PROFEV_EV_MEM_ALLOC)
		first++;
	CHECK(first + nwant <= t.n);
	for (size_t i = 0; i < nwant && first + i < t.n; i++) {
		const struct ev *v = &t.ev[first + i];
		if (v->e.type != want[i].type)
			fprintf(stderr, "event %zu\n", i);
		CHECK_EQ(v->e.type, want[i].type);
		if (want[i].addr)
			CHECK_EQ_U64(v->e.addr, want[i].addr);
		if (want[i].type == PROFEV_EV_MEM_ALLOC)
			CHECK_EQ_U64(v->e.payload, want[i].size);
		CHECK_STR(v->name, want[i].pool);
		CHECK_EQ(v->e.flags, want[i].flags);
		/* The stacks go as deep as asked, or to the bottom of the stack
		 * (main, __libc_start_call_main, __libc_start_main, _start). */
		if (want[i].frames == 5)
			CHECK(v->nframes >= 5 && v->nframes <= 16);
		else
			CHECK_EQ(v->nframes, want[i].frames);
		for (unsigned k = 0; k < v->nframes && k < 2; k++) {
			CHECK_EQ(v->fr[k].flags, PROFEV_FRAMEF_RETURN);
			CHECK_STR(t.mod_path[v->fr[k].module], t.mod_path[v->fr[0].module]);
			if (noffs < 64)
				offs[noffs++] = v->fr[k].offset;
		}
	}
	char names[64][48];
	functions(offs, noffs, names);
	unsigned k = 0;
	for (size_t i = 0; i < nwant && k < noffs; i++) {
		const struct ev *v = &t.ev[first + i];
		for (unsigned f = 0; f < v->nframes && f < 2; f++, k++) {
			const char *fn = f == 0 ? want[i].fn0 : want[i].fn1;
			if (fn)
				CHECK_STR(names[k], fn);
		}
	}

	/* Frames are in this program, whose path and build-id pfrec recorded. */
	const struct ev *e = find(&t, PROFEV_EV_ZONE_BEGIN, "deep", 0);
	CHECK(e && e->nframes == 62);
	if (e) {
		char self[256] = "";
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		self[n > 0 ? n : 0] = 0;
		uint32_t m = e->fr[0].module;
		CHECK(m < t.nmods);
		CHECK_STR(t.mod_path[m], self);
		dl_iterate_phdr(own_id, &t);
		CHECK(t.mod_idlen[63] >= 16);
		CHECK_EQ(t.mod_idlen[m], t.mod_idlen[63]);
		CHECK(memcmp(t.mod_id[m], t.mod_id[63], t.mod_idlen[63]) == 0);
		CHECK_EQ(e->fr[2].offset, e->fr[3].offset); /* recursion: the same return address */
	}
	/* libc is there too. */
	int libc = 0;
	for (unsigned i = 0; i < t.nmods && i < 63; i++)
		libc |= strstr(t.mod_path[i], "libc.so") != NULL;
	CHECK(libc);
	unload(&t, &rc);
}

static void test_dlopen(void)
{
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "dlopen", 0, (struct setup){ .keep = 1 });
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "captured"), STACK_THREADS * STACK_EVENTS);
	size_t allocs = count(&t, PROFEV_EV_MEM_ALLOC, NULL), bz = 0;
	CHECK(allocs > STACK_THREADS * STACK_EVENTS);
	/* Every captured event of the threads has its stack down to the
	 * thread's start (stack_thread, start_thread, clone)... */
	size_t deep = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct ev *v = &t.ev[i];
		if (v->e.type == PROFEV_EV_MEM_ALLOC && strcmp(v->name, "bz") == 0) {
			bz++;
			/* ...and the allocations from libbz2 show it as the caller. */
			CHECK(v->nframes >= 3);
			CHECK(v->fr[1].module < t.nmods && strstr(t.mod_path[v->fr[1].module], "libbz2"));
			CHECK_EQ(v->fr[1].flags, PROFEV_FRAMEF_RETURN);
			uint32_t m = v->fr[1].module;
			if (bz == 1 && m < t.nmods) {
				CHECK(dlopen("libbz2.so.1.0", RTLD_NOW) != NULL);
				id_of = "libbz2";
				t.mod_idlen[63] = 0;
				dl_iterate_phdr(own_id, &t);
				id_of = NULL;
				CHECK(t.mod_idlen[63] >= 16);
				CHECK_EQ(t.mod_idlen[m], t.mod_idlen[63]);
				CHECK(memcmp(t.mod_id[m], t.mod_id[63], t.mod_idlen[63]) == 0);
			}
		} else if (v->e.stack && v->nframes >= 2 && v->nframes <= 16) {
			deep++;
		}
	}
	CHECK(bz > 0);
	CHECK_EQ(deep, 3 * STACK_THREADS * STACK_EVENTS);
	CHECK_EQ(count(&t, PROFEV_EV_MEM_FREE, NULL), STACK_THREADS * STACK_EVENTS + bz);
	unload(&t, &rc);
}

static void test_jit(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "jit", 0, (struct setup){ .keep = 1 });
	CHECK_EQ(count(&t, PROFEV_EV_MEM_ALLOC, NULL), 3);
	const struct ev *c = find(&t, PROFEV_EV_COUNTER, "stub", 0);
	CHECK(c != NULL);
	uint64_t stub = c ? (uint64_t)profev_event_double(&c->e) : 0;
	for (size_t i = 0; i < 3; i++) {
		const struct ev *e = find(&t, PROFEV_EV_MEM_ALLOC, NULL, i);
#if defined(__x86_64__)
		/* .eh_frame has no rule for the stub: the walk ends there. */
		CHECK(e && e->nframes == 2);
		if (!e || e->nframes != 2)
			continue;
#else
		/* The stub keeps a frame record: the frame-record walk goes on
		 * past it (the first capture, before the thread's ring, is
		 * libgcc's, which stops there). */
		CHECK(e && e->nframes >= 2);
		if (!e || e->nframes < 2)
			continue;
#endif
		CHECK_EQ(e->fr[0].flags, PROFEV_FRAMEF_RETURN);
		CHECK_EQ(e->fr[1].flags, PROFEV_FRAMEF_RETURN | PROFEV_FRAMEF_NOMODULE);
		CHECK_EQ_U64(e->fr[1].offset, stub);
	}
	unload(&t, &rc);
#endif
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The fast unwinder (cached .eh_frame rules) finds exactly the frames that
 * _Unwind_Backtrace finds. */
static void test_unwinders(void)
{
	static const char *const scenarios[] = { "memory", "dlopen" };
	for (size_t k = 0; k < 2; k++) {
		struct rec rc[2];
		struct trace t[2];
		uint64_t *h[2];
		size_t n[2];
		for (int i = 0; i < 2; i++) {
			if (i)
				setenv("PROFEV_UNWIND", "libgcc", 1);
			record(&rc[i], scenarios[k], NULL, 0, 0);
			unsetenv("PROFEV_UNWIND");
			load(&t[i], rc[i].path, 1);
			h[i] = malloc((t[i].n + 1) * sizeof *h[i]);
			n[i] = 0;
			for (size_t e = 0; e < t[i].n; e++)
				if (t[i].ev[e].nframes)
					h[i][n[i]++] = t[i].ev[e].stack_hash;
			/* Threads interleave differently from run to run. */
			qsort(h[i], n[i], sizeof *h[i], by_u64);
		}
		CHECK(n[0] >= 6);
		CHECK_EQ(n[0], n[1]);
		size_t differ = 0;
		for (size_t e = 0; e < n[0] && e < n[1]; e++)
			differ += h[0][e] != h[1][e];
		if (differ)
			fprintf(stderr, "%s: %zu of %zu stacks differ\n", scenarios[k], differ, n[0]);
		CHECK_EQ(differ, 0);
		for (int i = 0; i < 2; i++) {
			free(h[i]);
			unload(&t[i], &rc[i]);
		}
	}
}

static void test_secure(void)
{
	struct rec rc;
	struct trace t;
	recorded(&rc, &t, "secure", 0, (struct setup){ .keep = 1 });
	CHECK_EQ(rc.res.exit_kind, PROFEV_EXIT_EXITED);
	/* Only the one made while the client ran. */
	CHECK_EQ(count(&t, PROFEV_EV_MEM_ALLOC, NULL), 1);
	CHECK_EQ(count(&t, PROFEV_EV_MEM_FREE, NULL), 0);
	const struct ev *e = find(&t, PROFEV_EV_MEM_ALLOC, NULL, 0);
	CHECK(e && e->e.addr == 0x100007 && e->e.flags == PROFEV_EVF_SECURE);
	unload(&t, &rc);
	/* --categories=-memory: no memory events at all. */
	record(&rc, "memory", "-memory", 0, 0);
	load(&t, rc.path, 1);
	CHECK_EQ(count(&t, PROFEV_EV_MEM_ALLOC, NULL) + count(&t, PROFEV_EV_MEM_FREE, NULL), 0);
	CHECK_EQ(count(&t, PROFEV_EV_ZONE_BEGIN, "deep"), 1);
	unload(&t, &rc);
	/* Not recorded: nothing happens either. */
	/* The program's own path, not /proc/PID/exe: under qemu-user that
	 * link names the emulator. */
	char self[4096], cmd[4200];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	CHECK(len > 0);
	self[len > 0 ? len : 0] = 0;
	snprintf(cmd, sizeof cmd, "'%s' secure", self);
	CHECK_EQ(system(cmd), 0);
}

int main(int argc, char **argv)
{
	const char *s = getenv("T_CLIENT_ZONES");
	if (s)
		many_zones = atol(s);
	if (argc > 1) {
		for (size_t i = 0; i < sizeof children / sizeof children[0]; i++)
			if (strcmp(argv[1], children[i].name) == 0)
				return children[i].run();
		return 99;
	}
	test_macros();
	test_images();
	test_memory();
	test_dlopen();
	test_unwinders();
	test_jit();
	test_secure();
	test_categories();
	test_crashes();
	test_fork();
	test_churn();
	test_drop();
	test_monotonic_clock();
	test_env_removed();
	test_clock();
	test_many_threads();
	return CHECK_DONE();
}
