/*
 * profev.h - instrument a program for profev (link with -lprofev-client).
 *
 * The macros record zones, instants, counters, messages and frame marks into
 * a per-thread buffer, which pfrec maps too; a flush thread inside the
 * program tells pfrec over a pipe how far each buffer is filled (or sends
 * the events down the pipe with pfrec --pipe). Without pfrec (no PROFEV_FD in the environment) every macro
 * costs one load and one predictable branch. With -DPROFEV_DISABLE every
 * macro compiles to nothing and the program need not link the client.
 * man profev(3) has the details; formats/wire.md describes the stream.
 *
 *   PROFEV_CATEGORY(render, "drawing");          // file scope, once per program
 *   void draw(void) {
 *       PROFEV_ZONE(render, "draw");             // ends with the scope
 *       PROFEV_COUNTER(render, "triangles", n);
 *   }
 *
 * Rules that matter:
 *   - Each thread writes only its own buffer: no locks, no allocation on the
 *     hot path. Zones nest per thread; a zone begun on one thread must end on
 *     the same thread.
 *   - Names given as string literals are sent once per call site, not per
 *     event; the macros reject anything else at compile time. For a name
 *     made at run time use PROFEV_ZONE_DYN (copied into the buffer).
 *   - Categories are all enabled by default; pfrec --categories (the client
 *     reads PROFEV_CATEGORIES) changes that when the program starts. A
 *     disabled category costs one relaxed atomic load and a branch.
 *   - By default no event is ever dropped: when the pipe cannot keep up, the
 *     producing thread waits. pfrec --drop drops instead and the trace says
 *     where and how many.
 *   - Callstacks (the _S macros) are program counters taken in the program
 *     from the unwind tables (.eh_frame; no frame pointers needed); pfrec
 *     stores them as (module, offset) and pfsym turns them into names
 *     later. A capture costs about 100 ns at depth 10, 140 ns at depth 16
 *     (tests/bench/bench_client.c); more the first time a thread
 *     unwinds through a function, whose unwind rules it then keeps.
 *   - Memory events belong to the built-in category "memory". The plain
 *     memory macros may be called from anywhere once main() runs; from
 *     inside an allocator (malloc hooks) and from static constructors or
 *     destructors use PROFEV_SECURE_ALLOC and PROFEV_SECURE_FREE, which do
 *     nothing when the client is not running or is itself allocating.
 *
 * The header compiles as C99 and later and as C++11 and later (GCC, Clang),
 * without a warning under -Wall -Wextra at any -O level.
 */
#ifndef PROFEV_H
#define PROFEV_H

#define PROFEV__CAT2(a, b) a##b
#define PROFEV__CAT(a, b) PROFEV__CAT2(a, b)

#ifdef PROFEV_DISABLE

/* Categories are still checked at compile time and arguments still count
 * as used (no warnings), but nothing is evaluated and nothing remains. */
#define PROFEV_CATEGORY(ident, description) extern char profev_cat_##ident
#define PROFEV_CATEGORY_EXTERN(ident) extern char profev_cat_##ident
#define PROFEV__USE(cat) ((void)sizeof(profev_cat_##cat))
#define PROFEV_ZONE(cat, name) PROFEV__USE(cat)
#define PROFEV_ZONE_BEGIN(cat, name) PROFEV__USE(cat)
#define PROFEV_ZONE_END(cat) PROFEV__USE(cat)
#define PROFEV_ZONE_DYN(cat, name, len) \
	(PROFEV__USE(cat), (void)sizeof(name), (void)sizeof(len))
#define PROFEV_INSTANT(cat, name) PROFEV__USE(cat)
#define PROFEV_COUNTER(cat, name, value) (PROFEV__USE(cat), (void)sizeof(value))
/* Never called: it lets the compiler check the format and see the arguments. */
static inline __attribute__((format(printf, 1, 2))) int profev__nop(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}
#define PROFEV_MESSAGE(cat, ...) (PROFEV__USE(cat), (void)sizeof(profev__nop(__VA_ARGS__)))
#define PROFEV_FRAME_MARK() ((void)0)
#define PROFEV_FRAME_MARK_NAMED(name) ((void)0)
#define PROFEV_FRAME_IMAGE(image, width, height, offset, flip) \
	((void)sizeof(image), (void)sizeof(width), (void)sizeof(height), (void)sizeof(offset), \
	 (void)sizeof(flip))
#define PROFEV_ZONE_S(cat, name, depth) (PROFEV__USE(cat), (void)sizeof(depth))
#define PROFEV_ALLOC(ptr, size) ((void)sizeof(ptr), (void)sizeof(size))
#define PROFEV_FREE(ptr) ((void)sizeof(ptr))
#define PROFEV_ALLOC_S(ptr, size, depth) \
	((void)sizeof(ptr), (void)sizeof(size), (void)sizeof(depth))
#define PROFEV_FREE_S(ptr, depth) ((void)sizeof(ptr), (void)sizeof(depth))
#define PROFEV_ALLOC_NAMED(ptr, size, pool) \
	((void)sizeof(ptr), (void)sizeof(size), (void)sizeof("" pool ""))
#define PROFEV_FREE_NAMED(ptr, pool) ((void)sizeof(ptr), (void)sizeof("" pool ""))
#define PROFEV_ALLOC_NAMED_S(ptr, size, pool, depth) \
	((void)sizeof(ptr), (void)sizeof(size), (void)sizeof("" pool ""), (void)sizeof(depth))
#define PROFEV_FREE_NAMED_S(ptr, pool, depth) \
	((void)sizeof(ptr), (void)sizeof("" pool ""), (void)sizeof(depth))
#define PROFEV_SECURE_ALLOC(ptr, size) ((void)sizeof(ptr), (void)sizeof(size))
#define PROFEV_SECURE_FREE(ptr) ((void)sizeof(ptr))
#define profev_thread_name(name) ((void)sizeof(name))
#define profev_active() 0
#define profev_listen() (-1)
#define PROFEV_TRIGGER(reason) ((void)sizeof(reason))
#define PROFEV_ARG_INT(key, value) ((void)sizeof("" key ""), (void)sizeof(value))
#define PROFEV_ARG_UINT(key, value) ((void)sizeof("" key ""), (void)sizeof(value))
#define PROFEV_ARG_DOUBLE(key, value) ((void)sizeof("" key ""), (void)sizeof(value))
#define PROFEV_ARG_BOOL(key, value) ((void)sizeof("" key ""), (void)sizeof(value))
#define PROFEV_ARG_PTR(key, ptr) ((void)sizeof("" key ""), (void)sizeof(ptr))
#define PROFEV_ARG_STR(key, str) ((void)sizeof("" key ""), (void)sizeof(str))
#define PROFEV_ARG_STRN(key, str, len) \
	((void)sizeof("" key ""), (void)sizeof(str), (void)sizeof(len))
#define PROFEV_NEXT_ARG_INT(key, value) PROFEV_ARG_INT(key, value)
#define PROFEV_NEXT_ARG_UINT(key, value) PROFEV_ARG_UINT(key, value)
#define PROFEV_NEXT_ARG_DOUBLE(key, value) PROFEV_ARG_DOUBLE(key, value)
#define PROFEV_NEXT_ARG_BOOL(key, value) PROFEV_ARG_BOOL(key, value)
#define PROFEV_NEXT_ARG_PTR(key, ptr) PROFEV_ARG_PTR(key, ptr)
#define PROFEV_NEXT_ARG_STR(key, str) PROFEV_ARG_STR(key, str)
#define PROFEV_NEXT_ARG_STRN(key, str, len) PROFEV_ARG_STRN(key, str, len)
#define PROFEV_ZONE_TEXT(str, len) ((void)sizeof(str), (void)sizeof(len))
#define PROFEV_ZONE_NAME(str, len) ((void)sizeof(str), (void)sizeof(len))
#define PROFEV_ZONE_VALUE(value) ((void)sizeof(value))
#define PROFEV_ZONE_COLOR(rgb) ((void)sizeof(rgb))
#define PROFEV_FLOW_OUT(id) ((void)sizeof(id))
#define PROFEV_FLOW_IN(id) ((void)sizeof(id))
#define PROFEV_ASYNC_BEGIN(cat, name, id) (PROFEV__USE(cat), (void)sizeof("" name ""), (void)sizeof(id))
#define PROFEV_ASYNC_END(cat, name, id) (PROFEV__USE(cat), (void)sizeof("" name ""), (void)sizeof(id))
#define PROFEV_LOCK_WAIT(lock, name) ((void)sizeof(lock), (void)sizeof("" name ""))
#define PROFEV_LOCK_ACQUIRED(lock) ((void)sizeof(lock))
#define PROFEV_LOCK_RELEASED(lock) ((void)sizeof(lock))
#define PROFEV_FRAME_START(name) ((void)sizeof("" name ""))
#define PROFEV_FRAME_END(name) ((void)sizeof("" name ""))
#define profev_app_info(text, len) ((void)sizeof(text), (void)sizeof(len))
#define profev_program_name(name) ((void)sizeof(name))

#else /* !PROFEV_DISABLE */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROFEV_API __attribute__((visibility("default")))
#define PROFEV__LIKELY(x) __builtin_expect(!!(x), 1)
#define PROFEV__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PROFEV__INLINE static inline __attribute__((always_inline))

/** A category. Define with PROFEV_CATEGORY; the fields are the runtime's. */
struct profev_category {
	unsigned char enabled;    /* read by every macro; set at start (release) */
	uint16_t index;           /* 1.. once registered; 0 = frame marks */
	uint64_t end_word;        /* ZONE_END record word for this category */
	const char *name;
	const char *description;
	struct profev_category *next;
};

/** One call site of a macro with a literal name. */
struct profev_site {
	uint64_t word;            /* record word, 0 until first use */
	struct profev_category *category;
	const char *name;
	unsigned type;            /* record type | flags << 8 | PROFEV__SITE_LOC */
	unsigned line;            /* the fields below exist with PROFEV__SITE_LOC */
	const char *function;
	const char *file;
};

/** The producer end of a thread's buffer (the runtime keeps the rest). */
struct profev__ring {
	unsigned char *pos;       /* next record; published with release */
	unsigned char *end;       /* records may be written below this */
};

/* Record types the inline paths write (formats/wire.md). */
enum {
	PROFEV__R_FRAME = 1,
	PROFEV__R_BEGIN = 2,
	PROFEV__R_END = 3,
	PROFEV__R_COUNTER = 4,
	PROFEV__R_INSTANT = 5,
	PROFEV__R_MEM_ALLOC = 8,
	PROFEV__R_MEM_FREE = 9,
	PROFEV__R_ZONE_BEGIN_S = 17,
	PROFEV__R_MEM_ALLOC_S = 18,
	PROFEV__R_MEM_FREE_S = 19,
	PROFEV__R_ARG = 12,
	PROFEV__R_ARG_STR = 13,
	PROFEV__R_FLOW_OUT = 14,
	PROFEV__R_FLOW_IN = 15,
	PROFEV__R_ASYNC_BEGIN = 32,
	PROFEV__R_ASYNC_END = 33,
	PROFEV__R_LOCK_WAIT = 34,
	PROFEV__R_LOCK_ACQUIRED = 35,
	PROFEV__R_LOCK_RELEASED = 36,
	PROFEV__R_FRAME_START = 37,
	PROFEV__R_FRAME_END = 38,
	PROFEV__R_MESSAGE_AT = 39,
	PROFEV__RF_SECURE = 1 << 8, /* in the record word */
	/* Kinds of PROFEV__R_ARG, in the word's flags byte. */
	PROFEV__AK_INT = 0 << 8,
	PROFEV__AK_UINT = 1 << 8,
	PROFEV__AK_DOUBLE = 2 << 8,
	PROFEV__AK_BOOL = 3 << 8,
	PROFEV__AK_PTR = 4 << 8,
	PROFEV__AF_POINT = 0x80 << 8, /* ARG, ARG_STR: of the next instant or message */
	PROFEV__AF_ZONE_NAME = 0x40 << 8, /* ARG_STR: renames the innermost open zone */
	PROFEV__SITE_LOC = 1 << 24, /* in profev_site.type: function, file, line are set */
};

/** Longest string argument kept, in bytes; longer ones are cut and marked. */
#define PROFEV_ARG_STR_MAX 1024

/* The runtime's side: not API, called by the macros below. */
extern PROFEV_API __thread struct profev__ring *profev__tls
	__attribute__((tls_model("initial-exec")));
extern PROFEV_API struct profev_category profev__frames;
extern PROFEV_API struct profev_category profev__memory;
extern PROFEV_API struct profev_category profev__rec;   /* on while recording: args, flows */
extern PROFEV_API struct profev__ring profev__no_ring;   /* the ring of a thread that has none */
extern PROFEV_API struct profev_category profev__locks; /* the built-in category "lock" */
PROFEV_API void profev__category_register(struct profev_category *c);
PROFEV_API uint64_t profev__site_register(struct profev_site *s);
PROFEV_API void profev__emit_slow(uint64_t word, uint64_t extra, unsigned size);
PROFEV_API uint64_t profev__zone_dyn(struct profev_category *c, const char *name, size_t len);
PROFEV_API void profev__message(struct profev_category *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
PROFEV_API uint64_t profev__ticks_slow(void);
PROFEV_API void profev__emit_mem_slow(uint64_t word, uint64_t addr, uint64_t size);
PROFEV_API void profev__frame_image(const void *image, uint32_t width, uint32_t height,
				    uint32_t offset, int flip);
PROFEV_API uint64_t profev__zone_s(struct profev_site *s, int depth);
PROFEV_API void profev__mem_s(uint64_t word, uint64_t addr, uint64_t size, int depth);
PROFEV_API void profev__mem_secure(uint64_t word, uint64_t addr, uint64_t size);
PROFEV_API void profev__emit_val_slow(uint64_t word, uint64_t value);
PROFEV_API void profev__emit_arg_slow(struct profev_site *s, uint64_t value);
PROFEV_API void profev__arg_str(struct profev_site *s, const char *str, size_t len);
PROFEV_API void profev__arg_cstr(struct profev_site *s, const char *str);
PROFEV_API void profev__message_at(struct profev_site *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Record the application's description (Tracy's TracyAppInfo): a message
 * of the built-in category "app_info", len bytes of text (at most 4080).
 */
PROFEV_API void profev_app_info(const char *text, size_t len);

/** Record the program's own name for it (Tracy's TracySetProgramName): a
 *  message of the built-in category "program_name". */
PROFEV_API void profev_program_name(const char *name);

/**
 * Name the calling thread in the trace (copied; at most 4080 bytes). May be
 * called any number of times; each call is recorded where it happens.
 */
PROFEV_API void profev_thread_name(const char *name);

/** 1 if this process is being recorded (started by pfrec, or attached
 *  to with pfrec --attach), else 0. */
PROFEV_API int profev_active(void);

/**
 * Let pfrec --attach record this program later, on demand (as
 * PROFEV_ON_DEMAND=1 in its environment does): the client starts one
 * thread that listens on the abstract Unix socket "profev-PID", which only
 * the program's own user and root may attach through. Until an attach,
 * and after each detach, macros record nothing and a zone costs what a
 * disabled category costs; frame marks are counted, so that a recording
 * numbers frames from the program's first. Call it early in main, before
 * the threads start. Without it (or PROFEV_ON_DEMAND) the client starts
 * no thread and opens no socket.
 * @return 0 (also when already listening), or -1: the program is already
 *         recorded by the pfrec that started it, or the socket or the
 *         thread could not be made.
 */
PROFEV_API int profev_listen(void);

/** PROFEV_TRIGGER's slow path: the message to pfrec. */
PROFEV_API void profev__trigger(const char *reason);

/**
 * The program asks for a snapshot of pfrec --ring's flight recorder, e.g.
 * when a frame took too long: PROFEV_TRIGGER("hitch"). reason is any
 * NUL-terminated string (copied, at most 1024 bytes kept); it names the
 * trigger event the trace holds at this moment, on the calling thread.
 * Under pfrec --ring a snapshot follows (after --after, at most one per
 * --min-interval); under a plain pfrec (or pfrec --attach) only the event
 * is recorded. Without pfrec it costs one load and a branch. Any thread
 * may call it; it takes a lock and wakes the flush thread, so it belongs
 * to rare moments, not to every frame.
 */
#define PROFEV_TRIGGER(reason) do { \
	if (profev__on(&profev__rec)) \
		profev__trigger(reason); } while (0)

PROFEV__INLINE uint64_t profev__ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return profev__ticks_slow();
#endif
}

/* Acquire: a category is switched on after its index, end word and
 * CATEGORY definition were written, and a thread that sees it on must see
 * those too (arm64, POWER). On x86-64 the load is the same mov. */
PROFEV__INLINE int profev__on(struct profev_category *c)
{
	return __atomic_load_n(&c->enabled, __ATOMIC_ACQUIRE);
}

/* A 16-byte record: the fast path is a bound check, the clock and two stores. */
PROFEV__INLINE void profev__emit(uint64_t word)
{
	struct profev__ring *r = profev__tls;
	unsigned char *p = r->pos;
	if (PROFEV__UNLIKELY((uintptr_t)p >= (uintptr_t)r->end)) {
		profev__emit_slow(word, 0, 16);
		return;
	}
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = profev__ticks();
	q[1] = word;
	__atomic_store_n(&r->pos, p + 16, __ATOMIC_RELEASE);
}

PROFEV__INLINE void profev__emit32(uint64_t word, uint64_t extra)
{
	struct profev__ring *r = profev__tls;
	unsigned char *p = r->pos;
	if (PROFEV__UNLIKELY((uintptr_t)p + 32 > (uintptr_t)r->end)) {
		profev__emit_slow(word, extra, 32);
		return;
	}
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = profev__ticks();
	q[1] = word;
	q[2] = extra;
	q[3] = 0;
	__atomic_store_n(&r->pos, p + 32, __ATOMIC_RELEASE);
}

/* A 32-byte memory record: the block's address and size after the head. */
PROFEV__INLINE void profev__emit_mem(uint64_t word, uint64_t addr, uint64_t size)
{
	struct profev__ring *r = profev__tls;
	unsigned char *p = r->pos;
	if (PROFEV__UNLIKELY((uintptr_t)p + 32 > (uintptr_t)r->end)) {
		profev__emit_mem_slow(word, addr, size);
		return;
	}
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = profev__ticks();
	q[1] = word;
	q[2] = addr;
	q[3] = size;
	__atomic_store_n(&r->pos, p + 32, __ATOMIC_RELEASE);
}

PROFEV__INLINE uint64_t profev__word(struct profev_site *s)
{
	uint64_t w = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
	if (PROFEV__UNLIKELY(!w))
		w = profev__site_register(s);
	return w;
}

/* On demand (profev_listen): frame marks are counted as well as recorded. */
extern PROFEV_API unsigned char profev__count_frames;
PROFEV_API int profev__frame_counted(void);

/* A default frame mark; on demand, counted, and recorded only while pfrec
 * is attached. */
PROFEV__INLINE void profev__frame_mark(void)
{
	if (PROFEV__UNLIKELY(__atomic_load_n(&profev__count_frames, __ATOMIC_RELAXED)) &&
	    !profev__frame_counted())
		return;
	profev__emit(PROFEV__R_FRAME);
}

/* Returns the word the matching end writes, 0 if nothing was begun. */
PROFEV__INLINE uint64_t profev__begin(struct profev_category *c, struct profev_site *s)
{
	if (!profev__on(c))
		return 0;
	uint64_t w = profev__word(s);
	if (PROFEV__UNLIKELY(!w))
		return 0;
	profev__emit(w);
	return w ^ (PROFEV__R_BEGIN ^ PROFEV__R_END);
}

PROFEV__INLINE void profev__end(uint64_t end_word)
{
	if (end_word)
		profev__emit(end_word);
}

PROFEV__INLINE void profev__point(struct profev_category *c, struct profev_site *s)
{
	if (profev__on(c)) {
		uint64_t w = profev__word(s);
		if (PROFEV__LIKELY(w != 0))
			profev__emit(w);
	}
}

PROFEV__INLINE void profev__counter(struct profev_category *c, struct profev_site *s, double v)
{
	if (profev__on(c)) {
		uint64_t w = profev__word(s), bits;
		__builtin_memcpy(&bits, &v, sizeof bits);
		if (PROFEV__LIKELY(w != 0))
			profev__emit32(w, bits);
	}
}

/*
 * Addresses (blocks, locks) reach the inline functions as integers, made by
 * PROFEV__ADDR in the macro: given a `const void *` parameter, GCC at -O0
 * takes the call for a read of the block, which malloc has just returned
 * uninitialized, and warns (-Wmaybe-uninitialized).
 */
#define PROFEV__ADDR(ptr) ((uint64_t)(uintptr_t)(const void *)(ptr))

/* Memory records; s names the pool, NULL for the default one. */
PROFEV__INLINE void profev__mem(struct profev_site *s, unsigned type, uint64_t addr, uint64_t size)
{
	if (profev__on(&profev__memory)) {
		uint64_t w = s ? profev__word(s) : type;
		if (PROFEV__LIKELY(w != 0))
			profev__emit_mem(w, addr, size);
	}
}

PROFEV__INLINE void profev__mem_stack(struct profev_site *s, unsigned type, uint64_t addr,
				      uint64_t size, int depth)
{
	if (profev__on(&profev__memory)) {
		uint64_t w = s ? profev__word(s) : type;
		if (PROFEV__LIKELY(w != 0))
			profev__mem_s(w, addr, size, depth);
	}
}

/*
 * A 16-byte record without a time, the value where the clock would be:
 * arguments and flow marks belong to the zone open before them.
 *
 * An argument of the innermost open zone: the ring's room and the site's
 * word in one test. A thread without a ring (a program pfrec did not
 * start, or a thread that recorded nothing yet, so has no zone open) goes
 * no further than one more comparison and a load.
 */
PROFEV__INLINE void profev__arg(struct profev_site *s, uint64_t v)
{
	struct profev__ring *r = profev__tls;
	unsigned char *p = r->pos;
	uint64_t w = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
	if (PROFEV__UNLIKELY((uintptr_t)p >= (uintptr_t)r->end || !w)) {
		if (r != &profev__no_ring || profev__on(&profev__rec))
			profev__emit_arg_slow(s, v);
		return;
	}
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = v;
	q[1] = w;
	__atomic_store_n(&r->pos, p + 16, __ATOMIC_RELEASE);
}

PROFEV__INLINE uint64_t profev__double_bits(double v)
{
	uint64_t bits;
	__builtin_memcpy(&bits, &v, sizeof bits);
	return bits;
}

/* Flow marks: a fixed word, no string; gated like arguments. */
PROFEV__INLINE void profev__flow(uint64_t word, uint64_t id)
{
	struct profev__ring *r = profev__tls;
	unsigned char *p = r->pos;
	if (PROFEV__UNLIKELY((uintptr_t)p >= (uintptr_t)r->end)) {
		if (r != &profev__no_ring || profev__on(&profev__rec))
			profev__emit_val_slow(word, id);
		return;
	}
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = id;
	q[1] = word;
	__atomic_store_n(&r->pos, p + 16, __ATOMIC_RELEASE);
}

/* Async spans and lock events: a 32-byte record with the 64-bit id. */
PROFEV__INLINE void profev__point64(struct profev_category *c, struct profev_site *s, uint64_t id)
{
	if (profev__on(c)) {
		uint64_t w = profev__word(s);
		if (PROFEV__LIKELY(w != 0))
			profev__emit32(w, id);
	}
}

PROFEV__INLINE void profev__lock(uint64_t word, uint64_t lock)
{
	if (profev__on(&profev__locks))
		profev__emit32(word, lock);
}

PROFEV__INLINE void profev__zone_cleanup(uint64_t *end_word)
{
	profev__end(*end_word);
}

#ifdef __cplusplus
} /* extern "C" */

/* The C++ spelling of a scoped zone: a destructor instead of cleanup. */
struct profev__scope {
	uint64_t end_word;
	~profev__scope() { profev__end(end_word); }
};
#define PROFEV__SCOPED(var, init) profev__scope var = { init }
#else
#define PROFEV__SCOPED(var, init) \
	__attribute__((cleanup(profev__zone_cleanup), unused)) uint64_t var = (init)
#endif

/* "" name "" only compiles for a string literal: that is what lets a name
 * cross the pipe once per call site. */
#define PROFEV__SITE(var, cat, name, type) \
	PROFEV__SITE_OF(var, &profev_cat_##cat, name, type)
/* A call site that knows where it is: the location crosses the pipe with
 * the name, once, so it costs nothing per event. */
#define PROFEV__SITE_OF(var, catp, name, type) \
	static struct profev_site var = { 0, catp, "" name "", (type) | PROFEV__SITE_LOC, \
					  __LINE__, __func__, __FILE__ }
/* A call site whose string is a key or a lock's name: no location. */
#define PROFEV__SITE_PLAIN(var, catp, name, type) \
	static struct profev_site var = { 0, catp, "" name "", type, 0, 0, 0 }

/** Define a category at file scope; use the identifier in the macros. */
#define PROFEV_CATEGORY(ident, description) \
	struct profev_category profev_cat_##ident = { \
		0, 0, 0, #ident, "" description "", 0 }; \
	__attribute__((constructor)) static void profev__catinit_##ident(void) \
	{ profev__category_register(&profev_cat_##ident); } \
	extern struct profev_category profev_cat_##ident

/** Declare a category defined in another file. */
#define PROFEV_CATEGORY_EXTERN(ident) extern struct profev_category profev_cat_##ident

/** A zone from here to the end of the enclosing scope. */
#define PROFEV_ZONE(cat, name) PROFEV__ZONE(cat, name, __COUNTER__)
#define PROFEV__ZONE(cat, name, n) \
	PROFEV__SITE(PROFEV__CAT(profev__site_, n), cat, name, PROFEV__R_BEGIN); \
	PROFEV__SCOPED(PROFEV__CAT(profev__zone_, n), \
		       profev__begin(&profev_cat_##cat, &PROFEV__CAT(profev__site_, n)))

/** Begin a zone that PROFEV_ZONE_END(cat) on the same thread ends. */
#define PROFEV_ZONE_BEGIN(cat, name) do { \
	PROFEV__SITE(profev__site, cat, name, PROFEV__R_BEGIN); \
	(void)profev__begin(&profev_cat_##cat, &profev__site); } while (0)

/** End the innermost zone of this thread begun with PROFEV_ZONE_BEGIN. */
#define PROFEV_ZONE_END(cat) do { \
	if (profev__on(&profev_cat_##cat)) \
		profev__emit(profev_cat_##cat.end_word); } while (0)

/** A scoped zone whose name (len bytes, not necessarily NUL-terminated) is
 *  made at run time; the name is copied, at most 4080 bytes. */
#define PROFEV_ZONE_DYN(cat, name, len) PROFEV__ZONE_DYN(cat, name, len, __COUNTER__)
#define PROFEV__ZONE_DYN(cat, name, len, n) \
	PROFEV__SCOPED(PROFEV__CAT(profev__zone_, n), \
		       profev__on(&profev_cat_##cat) \
		       ? profev__zone_dyn(&profev_cat_##cat, (name), (len)) : 0)

/** A point in time on this thread. */
#define PROFEV_INSTANT(cat, name) do { \
	PROFEV__SITE(profev__site, cat, name, PROFEV__R_INSTANT); \
	profev__point(&profev_cat_##cat, &profev__site); } while (0)

/** A counter's new value (converted to double). */
#define PROFEV_COUNTER(cat, name, value) do { \
	PROFEV__SITE(profev__site, cat, name, PROFEV__R_COUNTER); \
	profev__counter(&profev_cat_##cat, &profev__site, (double)(value)); } while (0)

/** A printf-style message (formatted in the program, at most 4080 bytes). */
#define PROFEV_MESSAGE(cat, ...) do { \
	PROFEV__SITE(profev__site, cat, "", PROFEV__R_MESSAGE_AT); \
	if (profev__on(&profev_cat_##cat)) \
		profev__message_at(&profev__site, __VA_ARGS__); } while (0)

/** The end of a frame of the default frame set. */
#define PROFEV_FRAME_MARK() do { \
	if (profev__on(&profev__frames)) \
		profev__frame_mark(); } while (0)

/** The end of a frame of the named frame set. */
#define PROFEV_FRAME_MARK_NAMED(name) do { \
	static struct profev_site profev__site = \
		{ 0, &profev__frames, "" name "", PROFEV__R_FRAME, 0, 0, 0 }; \
	profev__point(&profev__frames, &profev__site); } while (0)

/**
 * A screenshot of frame (current frame - offset): width x height RGBA8
 * pixels at image, rows top-down, or bottom-up when flip is non-zero (as
 * glReadPixels gives them). width and height are multiples of 4, each at
 * most 4096, width * height at most 4096 * 1024 (1920 x 1080 fits); other
 * sizes are refused and counted. The pixels are copied before the call
 * returns, straight into memory pfrec maps; pfrec encodes them (DXT1).
 * At most 4 images are in flight: a fifth waits for pfrec, or with pfrec
 * --drop is dropped and counted as lost. Any thread may call it; it costs
 * a copy of the image.
 */
#define PROFEV_FRAME_IMAGE(image, width, height, offset, flip) do { \
	if (profev__on(&profev__frames)) \
		profev__frame_image((image), (uint32_t)(width), (uint32_t)(height), \
				    (uint32_t)(offset), (flip) != 0); \
} while (0)

/*
 * Arguments. Each attaches key = value to the innermost zone open on the
 * calling thread, as recorded: a zone of a disabled category is not open
 * in the trace, so its arguments go to the enclosing recorded zone. With
 * no zone open the argument is dropped, and the trace counts it
 * (dropped_args). key is a string literal: it crosses the pipe once per
 * call site, and an argument costs one 16-byte record, without a clock
 * read (11 instructions); without pfrec, two loads and three branches.
 */
#define PROFEV__ARG(key, kind, bits) do { \
	PROFEV__SITE_PLAIN(profev__site, &profev__rec, key, PROFEV__R_ARG | (kind)); \
	profev__arg(&profev__site, (bits)); } while (0)

/* Each kind once, for both the zone's arguments (flag 0) and those of the
 * next instant or message (flag PROFEV__AF_POINT). */
#define PROFEV__ARG_INT(key, flag, value) \
	PROFEV__ARG(key, PROFEV__AK_INT | (flag), (uint64_t)(int64_t)(value))
#define PROFEV__ARG_UINT(key, flag, value) \
	PROFEV__ARG(key, PROFEV__AK_UINT | (flag), (uint64_t)(value))
#define PROFEV__ARG_DOUBLE(key, flag, value) \
	PROFEV__ARG(key, PROFEV__AK_DOUBLE | (flag), profev__double_bits((double)(value)))
#define PROFEV__ARG_BOOL(key, flag, value) \
	PROFEV__ARG(key, PROFEV__AK_BOOL | (flag), (uint64_t)!!(value))
#define PROFEV__ARG_PTR(key, flag, ptr) \
	PROFEV__ARG(key, PROFEV__AK_PTR | (flag), PROFEV__ADDR(ptr))
#define PROFEV__ARG_STRING(key, flag, call) do { \
	PROFEV__SITE_PLAIN(profev__site, &profev__rec, key, PROFEV__R_ARG_STR | (flag)); \
	if (profev__on(&profev__rec)) \
		call; } while (0)

/** A signed integer argument (int64_t). */
#define PROFEV_ARG_INT(key, value) PROFEV__ARG_INT(key, 0, value)
/** An unsigned integer argument (uint64_t). */
#define PROFEV_ARG_UINT(key, value) PROFEV__ARG_UINT(key, 0, value)
/** A double argument, kept bit-exactly. */
#define PROFEV_ARG_DOUBLE(key, value) PROFEV__ARG_DOUBLE(key, 0, value)
/** A boolean argument (any scalar; non-zero is true). */
#define PROFEV_ARG_BOOL(key, value) PROFEV__ARG_BOOL(key, 0, value)
/** A pointer argument (its address; shown in hex). */
#define PROFEV_ARG_PTR(key, ptr) PROFEV__ARG_PTR(key, 0, ptr)
/** A NUL-terminated string argument, copied; NULL records "". At most
 *  PROFEV_ARG_STR_MAX bytes are kept: a longer string is cut there and
 *  the argument is marked truncated. */
#define PROFEV_ARG_STR(key, str) \
	PROFEV__ARG_STRING(key, 0, profev__arg_cstr(&profev__site, (str)))
/** A string argument of len bytes (need not be NUL-terminated), copied;
 *  cut at PROFEV_ARG_STR_MAX bytes and marked, as PROFEV_ARG_STR. */
#define PROFEV_ARG_STRN(key, str, len) \
	PROFEV__ARG_STRING(key, 0, profev__arg_str(&profev__site, (str), (size_t)(len)))

/*
 * Arguments of the calling thread's next instant or message rather than of
 * its open zone: give them right before PROFEV_INSTANT or PROFEV_MESSAGE
 * (Tracy's colored messages use PROFEV_NEXT_ARG_UINT("color", rgb)). They
 * need no open zone; readers drop those that no instant or message
 * follows. Same kinds, costs and string limit as the arguments above.
 */
#define PROFEV_NEXT_ARG_INT(key, value) PROFEV__ARG_INT(key, PROFEV__AF_POINT, value)
#define PROFEV_NEXT_ARG_UINT(key, value) PROFEV__ARG_UINT(key, PROFEV__AF_POINT, value)
#define PROFEV_NEXT_ARG_DOUBLE(key, value) PROFEV__ARG_DOUBLE(key, PROFEV__AF_POINT, value)
#define PROFEV_NEXT_ARG_BOOL(key, value) PROFEV__ARG_BOOL(key, PROFEV__AF_POINT, value)
#define PROFEV_NEXT_ARG_PTR(key, ptr) PROFEV__ARG_PTR(key, PROFEV__AF_POINT, ptr)
#define PROFEV_NEXT_ARG_STR(key, str) \
	PROFEV__ARG_STRING(key, PROFEV__AF_POINT, profev__arg_cstr(&profev__site, (str)))
#define PROFEV_NEXT_ARG_STRN(key, str, len) \
	PROFEV__ARG_STRING(key, PROFEV__AF_POINT, profev__arg_str(&profev__site, (str), (size_t)(len)))

/*
 * Arguments with a meaning: what Tracy's ZoneText, ZoneName, ZoneValue and
 * ZoneColor keep. Each may be given several times; the converters show
 * them as the zone's arguments "text", "name", "value" and "color".
 */
/** Text for the innermost open zone: the string argument "text". */
#define PROFEV_ZONE_TEXT(str, len) PROFEV_ARG_STRN("text", str, len)
/** A name for the innermost open zone given at run time (Tracy's ZoneName):
 *  the zone shows under it from its begin in every output and in pfdump's
 *  statistics. Recorded as the string argument "name" flagged as the zone's
 *  name, which readers older than the flag show as an argument. */
#define PROFEV_ZONE_NAME(str, len) \
	PROFEV__ARG_STRING("name", PROFEV__AF_ZONE_NAME, profev__arg_str(&profev__site, (str), (size_t)(len)))
/** A number for the innermost open zone: the unsigned argument "value". */
#define PROFEV_ZONE_VALUE(value) PROFEV_ARG_UINT("value", value)
/** A color (0xRRGGBB) for the innermost open zone: the unsigned argument
 *  "color". Tracy's colored zones and messages use it. */
#define PROFEV_ZONE_COLOR(rgb) PROFEV_ARG_UINT("color", rgb)

/*
 * Flows: arrows between zones, across threads. id is any 64-bit value the
 * program chooses (a job's address). PROFEV_FLOW_OUT marks the innermost
 * open zone as the start, or a further step, of flow id; PROFEV_FLOW_IN
 * marks it as where the flow arrives and ends. Like arguments, a mark with
 * no zone open is dropped and counted.
 */
#define PROFEV_FLOW_OUT(id) profev__flow(PROFEV__R_FLOW_OUT, (uint64_t)(id))
#define PROFEV_FLOW_IN(id) profev__flow(PROFEV__R_FLOW_IN, (uint64_t)(id))

/*
 * Async spans: from PROFEV_ASYNC_BEGIN to the PROFEV_ASYNC_END with the
 * same category, name and 64-bit id, on any thread. Spans of one name with
 * different ids may overlap.
 */
#define PROFEV_ASYNC_BEGIN(cat, name, id) do { \
	PROFEV__SITE(profev__site, cat, name, PROFEV__R_ASYNC_BEGIN); \
	profev__point64(&profev_cat_##cat, &profev__site, (uint64_t)(id)); } while (0)
#define PROFEV_ASYNC_END(cat, name, id) do { \
	PROFEV__SITE(profev__site, cat, name, PROFEV__R_ASYNC_END); \
	profev__point64(&profev_cat_##cat, &profev__site, (uint64_t)(id)); } while (0)

/*
 * Lock contention. lock is any pointer that identifies the lock:
 *   PROFEV_LOCK_WAIT(&m, "queue"); pthread_mutex_lock(&m); PROFEV_LOCK_ACQUIRED(&m);
 *   ...; PROFEV_LOCK_RELEASED(&m); pthread_mutex_unlock(&m);
 * The name (a string literal) crosses the pipe once per call site. Each
 * macro is one 32-byte record; readers tell contended acquisitions from
 * the others. The events belong to the built-in category "lock".
 */
#define PROFEV_LOCK_WAIT(lock, name) do { \
	PROFEV__SITE_PLAIN(profev__site, &profev__locks, name, PROFEV__R_LOCK_WAIT); \
	profev__point64(&profev__locks, &profev__site, PROFEV__ADDR(lock)); \
	} while (0)
#define PROFEV_LOCK_ACQUIRED(lock) \
	profev__lock(PROFEV__R_LOCK_ACQUIRED, PROFEV__ADDR(lock))
#define PROFEV_LOCK_RELEASED(lock) \
	profev__lock(PROFEV__R_LOCK_RELEASED, PROFEV__ADDR(lock))

/** A frame of the discontinuous frame set name (a string literal) starts:
 *  Tracy's FrameMarkStart. Frames of one set do not overlap. */
#define PROFEV_FRAME_START(name) do { \
	static struct profev_site profev__site = \
		{ 0, &profev__frames, "" name "", PROFEV__R_FRAME_START, 0, 0, 0 }; \
	profev__point(&profev__frames, &profev__site); } while (0)
/** The frame of set name that PROFEV_FRAME_START began ends. */
#define PROFEV_FRAME_END(name) do { \
	static struct profev_site profev__site = \
		{ 0, &profev__frames, "" name "", PROFEV__R_FRAME_END, 0, 0, 0 }; \
	profev__point(&profev__frames, &profev__site); } while (0)

/*
 * Callstacks. depth is the number of frames kept, from the macro's caller
 * outwards, at most 62 (more is cut to 62, 0 or less records no stack).
 * The empty asm after a capture keeps the compiler from turning the call
 * into a tail call, which would lose the macro's own frame.
 */
#define PROFEV__NO_TAIL() __asm__ __volatile__("")

/** A scoped zone (like PROFEV_ZONE) that carries its callstack. */
#define PROFEV_ZONE_S(cat, name, depth) PROFEV__ZONE_S(cat, name, depth, __COUNTER__)
#define PROFEV__ZONE_S(cat, name, depth, n) \
	PROFEV__SITE(PROFEV__CAT(profev__site_, n), cat, name, PROFEV__R_ZONE_BEGIN_S); \
	PROFEV__SCOPED(PROFEV__CAT(profev__zone_, n), \
		       profev__on(&profev_cat_##cat) \
		       ? profev__zone_s(&PROFEV__CAT(profev__site_, n), (int)(depth)) : 0)

/* A pool's call site: the pool name crosses the pipe once, like a zone's. */
#define PROFEV__POOL(type, pool) \
	static struct profev_site profev__site = { 0, &profev__memory, "" pool "", type, 0, 0, 0 }

/** size bytes at ptr were allocated (default pool). */
#define PROFEV_ALLOC(ptr, size) \
	profev__mem(0, PROFEV__R_MEM_ALLOC, PROFEV__ADDR(ptr), (uint64_t)(size))

/** The block at ptr was freed (default pool). */
#define PROFEV_FREE(ptr) profev__mem(0, PROFEV__R_MEM_FREE, PROFEV__ADDR(ptr), 0)

/** PROFEV_ALLOC with the allocation's callstack. */
#define PROFEV_ALLOC_S(ptr, size, depth) do { \
	profev__mem_stack(0, PROFEV__R_MEM_ALLOC_S, PROFEV__ADDR(ptr), (uint64_t)(size), \
			  (int)(depth)); \
	PROFEV__NO_TAIL(); } while (0)

/** PROFEV_FREE with the callstack of the free. */
#define PROFEV_FREE_S(ptr, depth) do { \
	profev__mem_stack(0, PROFEV__R_MEM_FREE_S, PROFEV__ADDR(ptr), 0, (int)(depth)); \
	PROFEV__NO_TAIL(); } while (0)

/** An allocation in the pool named by a string literal. */
#define PROFEV_ALLOC_NAMED(ptr, size, pool) do { \
	PROFEV__POOL(PROFEV__R_MEM_ALLOC, pool); \
	profev__mem(&profev__site, 0, PROFEV__ADDR(ptr), (uint64_t)(size)); } while (0)

/** A free in the named pool. */
#define PROFEV_FREE_NAMED(ptr, pool) do { \
	PROFEV__POOL(PROFEV__R_MEM_FREE, pool); \
	profev__mem(&profev__site, 0, PROFEV__ADDR(ptr), 0); } while (0)

/** PROFEV_ALLOC_NAMED with the allocation's callstack. */
#define PROFEV_ALLOC_NAMED_S(ptr, size, pool, depth) do { \
	PROFEV__POOL(PROFEV__R_MEM_ALLOC_S, pool); \
	profev__mem_stack(&profev__site, 0, PROFEV__ADDR(ptr), (uint64_t)(size), (int)(depth)); \
	PROFEV__NO_TAIL(); } while (0)

/** PROFEV_FREE_NAMED with the callstack of the free. */
#define PROFEV_FREE_NAMED_S(ptr, pool, depth) do { \
	PROFEV__POOL(PROFEV__R_MEM_FREE_S, pool); \
	profev__mem_stack(&profev__site, 0, PROFEV__ADDR(ptr), 0, (int)(depth)); \
	PROFEV__NO_TAIL(); } while (0)

/**
 * An allocation (default pool) that is safe anywhere: before the client
 * starts, after it has shut down, in static constructors and destructors,
 * and inside malloc itself when the client's own allocations come through
 * it. It does nothing in those cases; the event is flagged "secure".
 */
#define PROFEV_SECURE_ALLOC(ptr, size) do { \
	if (profev__on(&profev__memory)) \
		profev__mem_secure(PROFEV__R_MEM_ALLOC | PROFEV__RF_SECURE, \
				   PROFEV__ADDR(ptr), (uint64_t)(size)); \
	} while (0)

/** The free that matches PROFEV_SECURE_ALLOC; as safe. */
#define PROFEV_SECURE_FREE(ptr) do { \
	if (profev__on(&profev__memory)) \
		profev__mem_secure(PROFEV__R_MEM_FREE | PROFEV__RF_SECURE, \
				   PROFEV__ADDR(ptr), 0); \
	} while (0)

#endif /* PROFEV_DISABLE */
#endif
