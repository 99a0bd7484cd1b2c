/*
 * tracy.c - libprofev-tracy: the runtime behind <tracy/Tracy.hpp> and
 * <tracy/TracyC.h>. The zone macros need nothing of it but the category;
 * it holds Tracy's C functions (___tracy_*), which get names and source
 * locations by pointer, and the table that turns such a pointer into a
 * profev call site once.
 *
 * Uses only <profev.h> (the client's API), libc and pthreads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#define TRACY_ENABLE 1
#include "tracy/TracyC.h"

PROFEV_CATEGORY(tracy, "code instrumented with Tracy's macros");

/*
 * Sites by key. Readers probe without a lock: a slot's key is stored last,
 * with release, so whoever sees it sees the slot filled. Keys are never
 * removed; a full table gives NULL (the event is not recorded).
 */
#define SLOTS 4096u

struct slot {
	const void *key;
	unsigned type;
	struct profev_site site;
};

static struct slot table[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(const void *key, unsigned type)
{
	uint64_t h = ((uint64_t)(uintptr_t)key ^ type) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 52) & (SLOTS - 1);
}

static struct slot *probe(const void *key, unsigned type, int *empty)
{
	size_t h = slot_of(key, type);
	for (size_t i = 0; i < SLOTS; i++) {
		struct slot *s = &table[(h + i) & (SLOTS - 1)];
		const void *k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		if (!k) {
			*empty = 1;
			return s;
		}
		if (k == key && s->type == type) {
			*empty = 0;
			return s;
		}
	}
	return NULL;
}

struct profev_site *profev_tracy__site(const void *key, unsigned type, struct profev_category *c,
				       const char *name, const char *function, const char *file, unsigned line)
{
	int empty;
	struct slot *s = probe(key, type, &empty);
	if (s && !empty)
		return &s->site;
	pthread_mutex_lock(&table_lock);
	s = probe(key, type, &empty);
	if (s && empty) {
		s->type = type;
		s->site.word = 0;
		s->site.category = c;
		s->site.name = name ? name : "";
		s->site.type = type;
		if (function) {
			s->site.type |= PROFEV__SITE_LOC;
			s->site.function = function;
			s->site.file = file ? file : "";
			s->site.line = line;
		}
		__atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&table_lock);
	return s ? &s->site : NULL;
}

void profev_tracy__message(struct profev_category *c, const char *text, size_t len)
{
	if (!text)
		return;
	if (len > 4080)
		len = 4080;
	profev__message(c, "%.*s", (int)len, text);
}

void profev_tracy__message_at(struct profev_site *s, const char *text, size_t len)
{
	if (!text)
		return;
	if (len > 4080)
		len = 4080;
	profev__message_at(s, "%.*s", (int)len, text);
}

/* Set while this thread registers a pool from a secure macro: an allocation
 * that the registration makes, seen by a malloc hook, is not recorded. */
static __thread int in_secure __attribute__((tls_model("initial-exec")));

void profev_tracy__mem_secure_named(const char *pool, unsigned type, const void *ptr, uint64_t size)
{
	if (!pool) {
		if (profev__on(&profev__memory))
			profev__mem_secure(type | PROFEV__RF_SECURE, (uint64_t)(uintptr_t)ptr, size);
		return;
	}
	if (!profev__on(&profev__memory) || in_secure)
		return;
	in_secure = 1;
	struct profev_site *s = profev_tracy__site(pool, type, &profev__memory, pool, 0, 0, 0);
	uint64_t w = s ? profev__word(s) : 0;
	in_secure = 0;
	if (w)
		profev__mem_secure(w | PROFEV__RF_SECURE, (uint64_t)(uintptr_t)ptr, size);
}

void profev_tracy__plot(const char *name, double value)
{
	if (!name || !profev__on(&profev_cat_tracy))
		return;
	struct profev_site *s = profev_tracy__site(name, PROFEV__R_COUNTER, &profev_cat_tracy, name, 0, 0, 0);
	if (s)
		profev__counter(&profev_cat_tracy, s, value);
}

void profev_tracy__frame(const char *name)
{
	if (!profev__on(&profev__frames))
		return;
	if (!name) {
		profev__emit(PROFEV__R_FRAME);
		return;
	}
	struct profev_site *s = profev_tracy__site(name, PROFEV__R_FRAME, &profev__frames, name, 0, 0, 0);
	if (s)
		profev__point(&profev__frames, s);
}

void profev_tracy__frame_edge(const char *name, unsigned type)
{
	if (!name || !profev__on(&profev__frames))
		return;
	struct profev_site *s = profev_tracy__site(name, type, &profev__frames, name, 0, 0, 0);
	if (s)
		profev__point(&profev__frames, s);
}

void ___tracy_set_thread_name(const char *name)
{
	if (!name)
		return;
	prctl(PR_SET_NAME, name, 0, 0, 0);
	profev_thread_name(name);
}

/* Zones. */

static const char *srcloc_name(const struct ___tracy_source_location_data *l)
{
	return l->name ? l->name : l->function;
}

TracyCZoneCtx ___tracy_emit_zone_begin(const struct ___tracy_source_location_data *srcloc, int32_t active)
{
	uint64_t end = 0;
	if (srcloc && active && profev__on(&profev_cat_tracy)) {
		struct profev_site *s = profev_tracy__site(srcloc, PROFEV__R_BEGIN, &profev_cat_tracy,
							   srcloc_name(srcloc), srcloc->function, srcloc->file,
							   srcloc->line);
		if (s)
			end = profev__begin(&profev_cat_tracy, s);
		if (end && srcloc->color)
			PROFEV_ZONE_COLOR(srcloc->color);
	}
	return profev_tracy__ctx(end);
}

/* The callstack starts here, in the library: one frame more than the macros' inline path. */
TracyCZoneCtx ___tracy_emit_zone_begin_callstack(const struct ___tracy_source_location_data *srcloc,
						 int32_t depth, int32_t active)
{
	if (depth <= 0)
		return ___tracy_emit_zone_begin(srcloc, active);
	uint64_t end = 0;
	if (srcloc && active && profev__on(&profev_cat_tracy)) {
		struct profev_site *s = profev_tracy__site(srcloc, PROFEV__R_ZONE_BEGIN_S, &profev_cat_tracy,
							   srcloc_name(srcloc), srcloc->function, srcloc->file,
							   srcloc->line);
		if (s)
			end = profev__zone_s(s, depth);
		if (end && srcloc->color)
			PROFEV_ZONE_COLOR(srcloc->color);
	}
	return profev_tracy__ctx(end);
}

/* A source location made at run time: the zone's name, copied, and its color. */
struct dyn_srcloc {
	size_t len;
	uint32_t color;
	char name[];
};

static uint64_t dyn_srcloc(const char *name, size_t len, uint32_t color)
{
	if (!name)
		len = 0;
	if (len > 4080)
		len = 4080;
	struct dyn_srcloc *d = malloc(sizeof *d + len + 1);
	if (!d)
		return 0;
	d->len = len;
	d->color = color;
	if (len)
		memcpy(d->name, name, len);
	d->name[len] = 0;
	return (uint64_t)(uintptr_t)d;
}

uint64_t ___tracy_alloc_srcloc(uint32_t line, const char *source, size_t sourceSz, const char *function,
			       size_t functionSz, uint32_t color)
{
	(void)line; (void)source; (void)sourceSz;
	return dyn_srcloc(function, functionSz, color);
}

uint64_t ___tracy_alloc_srcloc_name(uint32_t line, const char *source, size_t sourceSz, const char *function,
				    size_t functionSz, const char *name, size_t nameSz, uint32_t color)
{
	(void)line; (void)source; (void)sourceSz;
	if (name && nameSz)
		return dyn_srcloc(name, nameSz, color);
	return dyn_srcloc(function, functionSz, color);
}

/* Takes the location ___tracy_alloc_srcloc made, as Tracy does. */
TracyCZoneCtx ___tracy_emit_zone_begin_alloc(uint64_t srcloc, int32_t active)
{
	struct dyn_srcloc *d = (struct dyn_srcloc *)(uintptr_t)srcloc;
	uint64_t end = d ? profev_tracy__begin_dyn(d->name, d->len, active) : 0;
	if (end && d->color)
		PROFEV_ZONE_COLOR(d->color);
	free(d);
	return profev_tracy__ctx(end);
}

TracyCZoneCtx ___tracy_emit_zone_begin_alloc_callstack(uint64_t srcloc, int32_t depth, int32_t active)
{
	(void)depth;
	return ___tracy_emit_zone_begin_alloc(srcloc, active);
}

void ___tracy_emit_zone_end(TracyCZoneCtx ctx)
{
	profev__end(profev_tracy__end_word(ctx));
}

/* A zone's arguments go to the innermost open zone, which is ctx's as long
 * as zones nest; none for a zone that was not recorded. */
void ___tracy_emit_zone_text(TracyCZoneCtx ctx, const char *txt, size_t size)
{
	if (ctx.active && txt)
		PROFEV_ZONE_TEXT(txt, size);
}

void ___tracy_emit_zone_name(TracyCZoneCtx ctx, const char *txt, size_t size)
{
	if (ctx.active && txt)
		PROFEV_ZONE_NAME(txt, size);
}

void ___tracy_emit_zone_color(TracyCZoneCtx ctx, uint32_t color)
{
	if (ctx.active)
		PROFEV_ZONE_COLOR(color);
}

void ___tracy_emit_zone_value(TracyCZoneCtx ctx, uint64_t value)
{
	if (ctx.active)
		PROFEV_ZONE_VALUE(value);
}

int32_t ___tracy_connected(void)
{
	return profev_active();
}

/* Memory. */

void ___tracy_emit_memory_alloc(const void *ptr, size_t size, int32_t secure)
{
	if (secure)
		PROFEV_SECURE_ALLOC(ptr, size);
	else
		PROFEV_ALLOC(ptr, size);
}

void ___tracy_emit_memory_free(const void *ptr, int32_t secure)
{
	if (secure)
		PROFEV_SECURE_FREE(ptr);
	else
		PROFEV_FREE(ptr);
}

void ___tracy_emit_memory_alloc_callstack(const void *ptr, size_t size, int32_t depth, int32_t secure)
{
	if (secure || depth <= 0)
		___tracy_emit_memory_alloc(ptr, size, secure);
	else
		profev_tracy__mem_s(PROFEV__R_MEM_ALLOC_S, PROFEV__ADDR(ptr), size, depth);
}

void ___tracy_emit_memory_free_callstack(const void *ptr, int32_t depth, int32_t secure)
{
	if (secure || depth <= 0)
		___tracy_emit_memory_free(ptr, secure);
	else
		profev_tracy__mem_s(PROFEV__R_MEM_FREE_S, PROFEV__ADDR(ptr), 0, depth);
}

void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, int32_t secure, const char *name)
{
	if (secure)
		profev_tracy__mem_secure_named(name, PROFEV__R_MEM_ALLOC, ptr, size);
	else if (!name)
		PROFEV_ALLOC(ptr, size);
	else
		profev_tracy__mem_named(name, PROFEV__R_MEM_ALLOC, PROFEV__ADDR(ptr), size);
}

void ___tracy_emit_memory_free_named(const void *ptr, int32_t secure, const char *name)
{
	if (secure)
		profev_tracy__mem_secure_named(name, PROFEV__R_MEM_FREE, ptr, 0);
	else if (!name)
		PROFEV_FREE(ptr);
	else
		profev_tracy__mem_named(name, PROFEV__R_MEM_FREE, PROFEV__ADDR(ptr), 0);
}

void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth, int32_t secure,
						const char *name)
{
	if (secure || !name || depth <= 0)
		___tracy_emit_memory_alloc_named(ptr, size, secure, name);
	else
		profev_tracy__mem_named_s(name, PROFEV__R_MEM_ALLOC_S, PROFEV__ADDR(ptr), size, depth);
}

void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, int32_t secure, const char *name)
{
	if (secure || !name || depth <= 0)
		___tracy_emit_memory_free_named(ptr, secure, name);
	else
		profev_tracy__mem_named_s(name, PROFEV__R_MEM_FREE_S, PROFEV__ADDR(ptr), 0, depth);
}

/* profev has no way to forget a pool's blocks. */
void ___tracy_emit_memory_discard(const char *name, int32_t secure)
{
	(void)name; (void)secure;
}

void ___tracy_emit_memory_discard_callstack(const char *name, int32_t secure, int32_t depth)
{
	(void)name; (void)secure; (void)depth;
}

/* Messages; profev's have no callstack, and a color is their argument
 * "color". The macros give them their call site's location; these
 * functions, called directly, do not. */

void ___tracy_emit_message(const char *txt, size_t size, int32_t callstack_depth)
{
	(void)callstack_depth;
	if (profev__on(&profev_cat_tracy))
		profev_tracy__message(&profev_cat_tracy, txt, size);
}

void ___tracy_emit_messageL(const char *txt, int32_t callstack_depth)
{
	if (txt)
		___tracy_emit_message(txt, strlen(txt), callstack_depth);
}

void ___tracy_emit_messageC(const char *txt, size_t size, uint32_t color, int32_t callstack_depth)
{
	(void)callstack_depth;
	if (!txt || !profev__on(&profev_cat_tracy))
		return;
	PROFEV_NEXT_ARG_UINT("color", color);
	profev_tracy__message(&profev_cat_tracy, txt, size);
}

void ___tracy_emit_messageLC(const char *txt, uint32_t color, int32_t callstack_depth)
{
	if (txt)
		___tracy_emit_messageC(txt, strlen(txt), color, callstack_depth);
}

void ___tracy_emit_message_appinfo(const char *txt, size_t size)
{
	if (txt)
		profev_app_info(txt, size);
}

/* Frames. */

void ___tracy_emit_frame_mark(const char *name)
{
	profev_tracy__frame(name);
}

void ___tracy_emit_frame_mark_start(const char *name)
{
	profev_tracy__frame_edge(name, PROFEV__R_FRAME_START);
}

void ___tracy_emit_frame_mark_end(const char *name)
{
	profev_tracy__frame_edge(name, PROFEV__R_FRAME_END);
}

/* A frame image, where <profev.h> has PROFEV_FRAME_IMAGE. */
void ___tracy_emit_frame_image(const void *image, uint16_t w, uint16_t h, uint8_t offset, int32_t flip)
{
#ifdef PROFEV_FRAME_IMAGE
	PROFEV_FRAME_IMAGE(image, w, h, offset, flip);
#else
	(void)image; (void)w; (void)h; (void)offset; (void)flip;
#endif
}

/* Plots. */

void ___tracy_emit_plot(const char *name, double val)
{
	profev_tracy__plot(name, val);
}

void ___tracy_emit_plot_float(const char *name, float val)
{
	profev_tracy__plot(name, (double)val);
}

void ___tracy_emit_plot_int(const char *name, int64_t val)
{
	profev_tracy__plot(name, (double)val);
}

void ___tracy_emit_plot_config(const char *name, int32_t type, int32_t step, int32_t fill, uint32_t color)
{
	(void)name; (void)type; (void)step; (void)fill; (void)color;
}

/*
 * Locks: a context per lock, which is the lock in the trace. Its name (the
 * function that announced it, or TracyCLockCustomName's) crosses the pipe
 * with the first wait, through the context's own site. Tracy's C API
 * reports a release after the unlock: the next holder's acquisition may
 * come first in the trace, which then shows no hold time for that release.
 */
struct __tracy_lockable_context_data {
	struct profev_site site;
	char name[64];
};

static void lock_wait(struct __tracy_lockable_context_data *l)
{
	profev__point64(&profev__locks, &l->site, (uint64_t)(uintptr_t)l);
}

struct __tracy_lockable_context_data *___tracy_announce_lockable_ctx(
	const struct ___tracy_source_location_data *srcloc)
{
	struct __tracy_lockable_context_data *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	snprintf(l->name, sizeof l->name, "%s", srcloc && srcloc->function ? srcloc->function : "lock");
	l->site.category = &profev__locks;
	l->site.name = l->name;
	l->site.type = PROFEV__R_LOCK_WAIT;
	return l;
}

void ___tracy_terminate_lockable_ctx(struct __tracy_lockable_context_data *lockdata)
{
	free(lockdata);
}

int32_t ___tracy_before_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata)
{
	if (lockdata)
		lock_wait(lockdata);
	return 1;
}

void ___tracy_after_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata)
{
	if (lockdata)
		PROFEV_LOCK_ACQUIRED(lockdata);
}

void ___tracy_after_unlock_lockable_ctx(struct __tracy_lockable_context_data *lockdata)
{
	if (lockdata)
		PROFEV_LOCK_RELEASED(lockdata);
}

/* A lock taken without waiting: a wait of no time, then the acquisition. */
void ___tracy_after_try_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata, int32_t acquired)
{
	if (lockdata && acquired) {
		lock_wait(lockdata);
		PROFEV_LOCK_ACQUIRED(lockdata);
	}
}

void ___tracy_mark_lockable_ctx(struct __tracy_lockable_context_data *lockdata,
				const struct ___tracy_source_location_data *srcloc)
{
	(void)lockdata; (void)srcloc;
}

/* A new name, sent with the next wait; meant for before the lock is shared. */
void ___tracy_custom_name_lockable_ctx(struct __tracy_lockable_context_data *lockdata, const char *name,
				       size_t nameSz)
{
	if (!lockdata || !name)
		return;
	if (nameSz > sizeof lockdata->name - 1)
		nameSz = sizeof lockdata->name - 1;
	if (strncmp(lockdata->name, name, nameSz) == 0 && !lockdata->name[nameSz])
		return; /* the same name: nothing new to send */
	memcpy(lockdata->name, name, nameSz);
	lockdata->name[nameSz] = 0;
	__atomic_store_n(&lockdata->site.word, 0, __ATOMIC_RELEASE);
}

/* Neither sampling nor fibers: see profev-tracy(3). */

int ___tracy_begin_sampling_profiling(void)
{
	return 0;
}

void ___tracy_end_sampling_profiling(void)
{
}

void ___tracy_fiber_enter(const char *fiber)
{
	(void)fiber;
}

void ___tracy_fiber_leave(void)
{
}
