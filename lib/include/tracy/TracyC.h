/*
 * tracy/TracyC.h - Tracy's C macros, recorded by profev.
 *
 * The C counterpart of <tracy/Tracy.hpp>: define TRACY_ENABLE, compile with
 * `pkg-config --cflags profev-tracy`, link `pkg-config --libs
 * profev-tracy`, run under pfrec. Without TRACY_ENABLE every macro is
 * empty, as in Tracy. The ___tracy_* functions have Tracy's signatures and
 * live in libprofev-tracy; the zone macros do not call them but take the
 * inline path of PROFEV_ZONE. man profev-tracy(3) says what maps to what.
 *
 * A TracyCZoneCtx is 8 bytes, as in Tracy: the zone's end record word, split
 * in two; .active is nonzero when the zone was begun.
 */
#ifndef PROFEV_TRACYC_H
#define PROFEV_TRACYC_H

#include <stddef.h>
#include <stdint.h>
#include "profev_tracy_location.h"
#ifdef TRACY_ENABLE
#include <string.h>
#include "profev_tracy.h"
#else
#include <sys/prctl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum TracyPlotFormatEnum {
	TracyPlotFormatNumber,
	TracyPlotFormatMemory,
	TracyPlotFormatPercentage,
	TracyPlotFormatWatt
};

#ifndef TRACY_ENABLE

/* Only the system hears of the name, as with Tracy's client built without TRACY_ENABLE. */
static inline void ___tracy_set_thread_name(const char *name)
{
	prctl(PR_SET_NAME, name, 0, 0, 0);
}
#define TracyCSetThreadName(name) ___tracy_set_thread_name(name);

typedef const void *TracyCZoneCtx;
typedef const void *TracyCLockCtx;

#define TracyCZone(c, x)
#define TracyCZoneN(c, x, y)
#define TracyCZoneC(c, x, y)
#define TracyCZoneNC(c, x, y, z)
#define TracyCZoneEnd(c)
#define TracyCZoneText(c, x, y)
#define TracyCZoneName(c, x, y)
#define TracyCZoneColor(c, x)
#define TracyCZoneValue(c, x)

#define TracyCAlloc(x, y)
#define TracyCFree(x)
#define TracyCMemoryDiscard(x)
#define TracyCSecureAlloc(x, y)
#define TracyCSecureFree(x)
#define TracyCSecureMemoryDiscard(x)

#define TracyCAllocN(x, y, z)
#define TracyCFreeN(x, y)
#define TracyCSecureAllocN(x, y, z)
#define TracyCSecureFreeN(x, y)

#define TracyCFrameMark
#define TracyCFrameMarkNamed(x)
#define TracyCFrameMarkStart(x)
#define TracyCFrameMarkEnd(x)
#define TracyCFrameImage(x, y, z, w, a)

#define TracyCPlot(x, y)
#define TracyCPlotF(x, y)
#define TracyCPlotI(x, y)
#define TracyCPlotConfig(x, y, z, w, a)

#define TracyCMessage(x, y)
#define TracyCMessageL(x)
#define TracyCMessageC(x, y, z)
#define TracyCMessageLC(x, y)
#define TracyCAppInfo(x, y)

#define TracyCZoneS(x, y, z)
#define TracyCZoneNS(x, y, z, w)
#define TracyCZoneCS(x, y, z, w)
#define TracyCZoneNCS(x, y, z, w, a)

#define TracyCAllocS(x, y, z)
#define TracyCFreeS(x, y)
#define TracyCMemoryDiscardS(x, y)
#define TracyCSecureAllocS(x, y, z)
#define TracyCSecureFreeS(x, y)
#define TracyCSecureMemoryDiscardS(x, y)

#define TracyCAllocNS(x, y, z, w)
#define TracyCFreeNS(x, y, z)
#define TracyCSecureAllocNS(x, y, z, w)
#define TracyCSecureFreeNS(x, y, z)

#define TracyCMessageS(x, y, z)
#define TracyCMessageLS(x, y)
#define TracyCMessageCS(x, y, z, w)
#define TracyCMessageLCS(x, y, z)

#define TracyCLockCtx(l)
#define TracyCLockAnnounce(l)
#define TracyCLockTerminate(l)
#define TracyCLockBeforeLock(l)
#define TracyCLockAfterLock(l)
#define TracyCLockAfterUnlock(l)
#define TracyCLockAfterTryLock(l, x)
#define TracyCLockMark(l)
#define TracyCLockCustomName(l, x, y)

#define TracyCIsConnected 0
#define TracyCIsStarted 0

#define TracyCBeginSamplingProfiling() 0
#define TracyCEndSamplingProfiling()

#ifdef TRACY_FIBERS
#define TracyCFiberEnter(fiber)
#define TracyCFiberLeave
#endif

#else /* TRACY_ENABLE */

#define TracyCSetThreadName(name) ___tracy_set_thread_name(name);

struct ___tracy_source_location_data {
	const char *name;
	const char *function;
	const char *file;
	uint32_t line;
	uint32_t color;
};

/* id: the high half of the zone's end word; active: the low half (0: no zone). */
struct ___tracy_c_zone_context {
	uint32_t id;
	int32_t active;
};

struct __tracy_lockable_context_data;

typedef /*const*/ struct ___tracy_c_zone_context TracyCZoneCtx;
typedef struct __tracy_lockable_context_data *TracyCLockCtx;

#define TracyCIsStarted (profev_active() != 0)

PROFEV_API uint64_t ___tracy_alloc_srcloc(uint32_t line, const char *source, size_t sourceSz,
					  const char *function, size_t functionSz, uint32_t color);
PROFEV_API uint64_t ___tracy_alloc_srcloc_name(uint32_t line, const char *source, size_t sourceSz,
					       const char *function, size_t functionSz, const char *name,
					       size_t nameSz, uint32_t color);

PROFEV_API TracyCZoneCtx ___tracy_emit_zone_begin(const struct ___tracy_source_location_data *srcloc,
						  int32_t active);
PROFEV_API TracyCZoneCtx ___tracy_emit_zone_begin_callstack(
	const struct ___tracy_source_location_data *srcloc, int32_t depth, int32_t active);
PROFEV_API TracyCZoneCtx ___tracy_emit_zone_begin_alloc(uint64_t srcloc, int32_t active);
PROFEV_API TracyCZoneCtx ___tracy_emit_zone_begin_alloc_callstack(uint64_t srcloc, int32_t depth,
								  int32_t active);
PROFEV_API void ___tracy_emit_zone_end(TracyCZoneCtx ctx);
PROFEV_API void ___tracy_emit_zone_text(TracyCZoneCtx ctx, const char *txt, size_t size);
PROFEV_API void ___tracy_emit_zone_name(TracyCZoneCtx ctx, const char *txt, size_t size);
PROFEV_API void ___tracy_emit_zone_color(TracyCZoneCtx ctx, uint32_t color);
PROFEV_API void ___tracy_emit_zone_value(TracyCZoneCtx ctx, uint64_t value);

PROFEV_API int32_t ___tracy_connected(void);

PROFEV_API void ___tracy_emit_memory_alloc(const void *ptr, size_t size, int32_t secure);
PROFEV_API void ___tracy_emit_memory_alloc_callstack(const void *ptr, size_t size, int32_t depth,
						     int32_t secure);
PROFEV_API void ___tracy_emit_memory_free(const void *ptr, int32_t secure);
PROFEV_API void ___tracy_emit_memory_free_callstack(const void *ptr, int32_t depth, int32_t secure);
PROFEV_API void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, int32_t secure,
						 const char *name);
PROFEV_API void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth,
							   int32_t secure, const char *name);
PROFEV_API void ___tracy_emit_memory_free_named(const void *ptr, int32_t secure, const char *name);
PROFEV_API void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, int32_t secure,
							  const char *name);
PROFEV_API void ___tracy_emit_memory_discard(const char *name, int32_t secure);
PROFEV_API void ___tracy_emit_memory_discard_callstack(const char *name, int32_t secure, int32_t depth);

PROFEV_API void ___tracy_emit_message(const char *txt, size_t size, int32_t callstack_depth);
PROFEV_API void ___tracy_emit_messageL(const char *txt, int32_t callstack_depth);
PROFEV_API void ___tracy_emit_messageC(const char *txt, size_t size, uint32_t color, int32_t callstack_depth);
PROFEV_API void ___tracy_emit_messageLC(const char *txt, uint32_t color, int32_t callstack_depth);

PROFEV_API void ___tracy_emit_frame_mark(const char *name);
PROFEV_API void ___tracy_emit_frame_mark_start(const char *name);
PROFEV_API void ___tracy_emit_frame_mark_end(const char *name);
PROFEV_API void ___tracy_emit_frame_image(const void *image, uint16_t w, uint16_t h, uint8_t offset,
					  int32_t flip);

PROFEV_API void ___tracy_emit_plot(const char *name, double val);
PROFEV_API void ___tracy_emit_plot_float(const char *name, float val);
PROFEV_API void ___tracy_emit_plot_int(const char *name, int64_t val);
PROFEV_API void ___tracy_emit_plot_config(const char *name, int32_t type, int32_t step, int32_t fill,
					  uint32_t color);
PROFEV_API void ___tracy_emit_message_appinfo(const char *txt, size_t size);

PROFEV_API struct __tracy_lockable_context_data *___tracy_announce_lockable_ctx(
	const struct ___tracy_source_location_data *srcloc);
PROFEV_API void ___tracy_terminate_lockable_ctx(struct __tracy_lockable_context_data *lockdata);
PROFEV_API int32_t ___tracy_before_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata);
PROFEV_API void ___tracy_after_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata);
PROFEV_API void ___tracy_after_unlock_lockable_ctx(struct __tracy_lockable_context_data *lockdata);
PROFEV_API void ___tracy_after_try_lock_lockable_ctx(struct __tracy_lockable_context_data *lockdata,
						     int32_t acquired);
PROFEV_API void ___tracy_mark_lockable_ctx(struct __tracy_lockable_context_data *lockdata,
					   const struct ___tracy_source_location_data *srcloc);
PROFEV_API void ___tracy_custom_name_lockable_ctx(struct __tracy_lockable_context_data *lockdata,
						  const char *name, size_t nameSz);

PROFEV_API int ___tracy_begin_sampling_profiling(void);
PROFEV_API void ___tracy_end_sampling_profiling(void);

PROFEV_API void ___tracy_fiber_enter(const char *fiber);
PROFEV_API void ___tracy_fiber_leave(void);

/* The context a zone's end word makes, and back. */
PROFEV__INLINE TracyCZoneCtx profev_tracy__ctx(uint64_t end_word)
{
	TracyCZoneCtx c;
	c.id = (uint32_t)(end_word >> 32);
	c.active = (int32_t)(uint32_t)end_word;
	return c;
}

PROFEV__INLINE uint64_t profev_tracy__end_word(TracyCZoneCtx c)
{
	return (uint64_t)c.id << 32 | (uint32_t)c.active;
}

/* A zone's call site: a static site, as PROFEV_ZONE has (Tracy's
 * source location is static too, so name must be a constant there). */
#define PROFEV_TRACY__CZONE(ctx, name, active, n) \
	PROFEV_TRACY__SITE(PROFEV__CAT(profev__tsite_, n), &profev_cat_tracy, name, PROFEV__R_BEGIN); \
	TracyCZoneCtx ctx = profev_tracy__ctx(profev_tracy__begin(&PROFEV__CAT(profev__tsite_, n), (active)));
#define PROFEV_TRACY__CZONE_S(ctx, name, depth, active, n) \
	PROFEV_TRACY__SITE(PROFEV__CAT(profev__tsite_, n), &profev_cat_tracy, name, PROFEV__R_ZONE_BEGIN_S); \
	TracyCZoneCtx ctx = profev_tracy__ctx(profev_tracy__begin_s(&PROFEV__CAT(profev__tsite_, n), \
								    (int)(depth), (active)));
#define PROFEV_TRACY__CZONE_C(ctx, name, color, active, n) \
	PROFEV_TRACY__CZONE(ctx, name, active, n) ___tracy_emit_zone_color(ctx, color);
#define PROFEV_TRACY__CZONE_CS(ctx, name, color, depth, active, n) \
	PROFEV_TRACY__CZONE_S(ctx, name, depth, active, n) ___tracy_emit_zone_color(ctx, color);

#if TRACY_CALLSTACK > 0
#define TracyCZone(ctx, active) TracyCZoneS(ctx, TRACY_CALLSTACK, active)
#define TracyCZoneN(ctx, name, active) TracyCZoneNS(ctx, name, TRACY_CALLSTACK, active)
#define TracyCZoneC(ctx, color, active) TracyCZoneCS(ctx, color, TRACY_CALLSTACK, active)
#define TracyCZoneNC(ctx, name, color, active) TracyCZoneNCS(ctx, name, color, TRACY_CALLSTACK, active)
#else
#define TracyCZone(ctx, active) PROFEV_TRACY__CZONE(ctx, __func__, active, __COUNTER__)
#define TracyCZoneN(ctx, name, active) PROFEV_TRACY__CZONE(ctx, name, active, __COUNTER__)
#define TracyCZoneC(ctx, color, active) PROFEV_TRACY__CZONE_C(ctx, __func__, color, active, __COUNTER__)
#define TracyCZoneNC(ctx, name, color, active) PROFEV_TRACY__CZONE_C(ctx, name, color, active, __COUNTER__)
#endif
#define TracyCZoneS(ctx, depth, active) PROFEV_TRACY__CZONE_S(ctx, __func__, depth, active, __COUNTER__)
#define TracyCZoneNS(ctx, name, depth, active) PROFEV_TRACY__CZONE_S(ctx, name, depth, active, __COUNTER__)
#define TracyCZoneCS(ctx, color, depth, active) \
	PROFEV_TRACY__CZONE_CS(ctx, __func__, color, depth, active, __COUNTER__)
#define TracyCZoneNCS(ctx, name, color, depth, active) \
	PROFEV_TRACY__CZONE_CS(ctx, name, color, depth, active, __COUNTER__)

#define TracyCZoneEnd(ctx) profev__end(profev_tracy__end_word(ctx));

#define TracyCZoneText(ctx, txt, size) ___tracy_emit_zone_text(ctx, txt, size);
#define TracyCZoneName(ctx, txt, size) ___tracy_emit_zone_name(ctx, txt, size);
#define TracyCZoneColor(ctx, color) ___tracy_emit_zone_color(ctx, color);
#define TracyCZoneValue(ctx, value) ___tracy_emit_zone_value(ctx, value);

#if TRACY_CALLSTACK > 0
#define TracyCAlloc(ptr, size) TracyCAllocS(ptr, size, TRACY_CALLSTACK)
#define TracyCFree(ptr) TracyCFreeS(ptr, TRACY_CALLSTACK)
#define TracyCAllocN(ptr, size, name) TracyCAllocNS(ptr, size, TRACY_CALLSTACK, name)
#define TracyCFreeN(ptr, name) TracyCFreeNS(ptr, TRACY_CALLSTACK, name)
#else
#define TracyCAlloc(ptr, size) PROFEV_ALLOC(ptr, size)
#define TracyCFree(ptr) PROFEV_FREE(ptr)
#define TracyCAllocN(ptr, size, name) \
	profev_tracy__mem_named(name, PROFEV__R_MEM_ALLOC, PROFEV__ADDR(ptr), (uint64_t)(size))
#define TracyCFreeN(ptr, name) profev_tracy__mem_named(name, PROFEV__R_MEM_FREE, PROFEV__ADDR(ptr), 0)
#endif
#define TracyCMemoryDiscard(name) ___tracy_emit_memory_discard_callstack(name, 0, TRACY_CALLSTACK);
#define TracyCSecureAlloc(ptr, size) ___tracy_emit_memory_alloc(ptr, size, 1)
#define TracyCSecureFree(ptr) ___tracy_emit_memory_free(ptr, 1)
#define TracyCSecureMemoryDiscard(name) ___tracy_emit_memory_discard_callstack(name, 1, TRACY_CALLSTACK);
#define TracyCSecureAllocN(ptr, size, name) ___tracy_emit_memory_alloc_named(ptr, size, 1, name)
#define TracyCSecureFreeN(ptr, name) ___tracy_emit_memory_free_named(ptr, 1, name)

#define TracyCAllocS(ptr, size, depth) \
	profev_tracy__mem_s(PROFEV__R_MEM_ALLOC_S, PROFEV__ADDR(ptr), (uint64_t)(size), (int)(depth))
#define TracyCFreeS(ptr, depth) profev_tracy__mem_s(PROFEV__R_MEM_FREE_S, PROFEV__ADDR(ptr), 0, (int)(depth))
#define TracyCMemoryDiscardS(name, depth) ___tracy_emit_memory_discard_callstack(name, 0, depth)
#define TracyCSecureAllocS(ptr, size, depth) ___tracy_emit_memory_alloc_callstack(ptr, size, depth, 1)
#define TracyCSecureFreeS(ptr, depth) ___tracy_emit_memory_free_callstack(ptr, depth, 1)
#define TracyCSecureMemoryDiscardS(name, depth) ___tracy_emit_memory_discard_callstack(name, 1, depth)
#define TracyCAllocNS(ptr, size, depth, name) profev_tracy__mem_named_s(name, PROFEV__R_MEM_ALLOC_S, \
	PROFEV__ADDR(ptr), (uint64_t)(size), (int)(depth))
#define TracyCFreeNS(ptr, depth, name) \
	profev_tracy__mem_named_s(name, PROFEV__R_MEM_FREE_S, PROFEV__ADDR(ptr), 0, (int)(depth))
#define TracyCSecureAllocNS(ptr, size, depth, name) \
	___tracy_emit_memory_alloc_callstack_named(ptr, size, depth, 1, name)
#define TracyCSecureFreeNS(ptr, depth, name) ___tracy_emit_memory_free_callstack_named(ptr, depth, 1, name)

#define TracyCMessage(txt, size) PROFEV_TRACY__MESSAGE(txt, size);
#define TracyCMessageL(txt) PROFEV_TRACY__MESSAGE_L(txt);
#define TracyCMessageC(txt, size, color) PROFEV_TRACY__MESSAGE_C(txt, size, color);
#define TracyCMessageLC(txt, color) PROFEV_TRACY__MESSAGE_LC(txt, color);
#define TracyCMessageS(txt, size, depth) do { PROFEV_TRACY__MESSAGE(txt, size); (void)(depth); } while (0);
#define TracyCMessageLS(txt, depth) do { PROFEV_TRACY__MESSAGE_L(txt); (void)(depth); } while (0);
#define TracyCMessageCS(txt, size, color, depth) \
	do { PROFEV_TRACY__MESSAGE_C(txt, size, color); (void)(depth); } while (0);
#define TracyCMessageLCS(txt, color, depth) \
	do { PROFEV_TRACY__MESSAGE_LC(txt, color); (void)(depth); } while (0);

#define TracyCFrameMark PROFEV_FRAME_MARK();
#define TracyCFrameMarkNamed(name) ___tracy_emit_frame_mark(name);
#define TracyCFrameMarkStart(name) ___tracy_emit_frame_mark_start(name);
#define TracyCFrameMarkEnd(name) ___tracy_emit_frame_mark_end(name);
#define TracyCFrameImage(image, width, height, offset, flip) \
	___tracy_emit_frame_image(image, width, height, offset, flip);

#define TracyCPlot(name, val) ___tracy_emit_plot(name, val);
#define TracyCPlotF(name, val) ___tracy_emit_plot_float(name, val);
#define TracyCPlotI(name, val) ___tracy_emit_plot_int(name, val);
#define TracyCPlotConfig(name, type, step, fill, color) ___tracy_emit_plot_config(name, type, step, fill, color);
#define TracyCAppInfo(txt, size) ___tracy_emit_message_appinfo(txt, size);

#define TracyCLockAnnounce(lock) \
	static const struct ___tracy_source_location_data TracyConcat(__tracy_lock_location, __LINE__) = \
		{ NULL, __func__, TracyFile, (uint32_t)TracyLine, 0 }; \
	lock = ___tracy_announce_lockable_ctx(&TracyConcat(__tracy_lock_location, __LINE__));
#define TracyCLockTerminate(lock) ___tracy_terminate_lockable_ctx(lock);
#define TracyCLockBeforeLock(lock) ___tracy_before_lock_lockable_ctx(lock);
#define TracyCLockAfterLock(lock) ___tracy_after_lock_lockable_ctx(lock);
#define TracyCLockAfterUnlock(lock) ___tracy_after_unlock_lockable_ctx(lock);
#define TracyCLockAfterTryLock(lock, acquired) ___tracy_after_try_lock_lockable_ctx(lock, acquired);
#define TracyCLockMark(lock) ___tracy_mark_lockable_ctx(lock, NULL);
#define TracyCLockCustomName(lock, name, nameSz) ___tracy_custom_name_lockable_ctx(lock, name, nameSz);

#define TracyCIsConnected ___tracy_connected()

#define TracyCBeginSamplingProfiling() ___tracy_begin_sampling_profiling()
#define TracyCEndSamplingProfiling() ___tracy_end_sampling_profiling()

/* Fibers compile and do nothing: profev has no fiber tracks. */
#ifdef TRACY_FIBERS
#define TracyCFiberEnter(fiber) ___tracy_fiber_enter(fiber);
#define TracyCFiberLeave ___tracy_fiber_leave();
#endif

#endif /* TRACY_ENABLE */

#ifdef __cplusplus
}
#endif

#endif
