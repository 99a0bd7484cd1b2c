/*
 * tracy/profev_tracy.h - what <tracy/Tracy.hpp> and <tracy/TracyC.h> share
 * when TRACY_ENABLE is defined: the runtime of libprofev-tracy and the
 * inline paths the zone macros take. Not API: include Tracy.hpp or TracyC.h.
 *
 * Every Tracy event goes to the category "tracy" (pfrec --categories
 * -tracy turns them off); memory events go to profev's "memory" and frame
 * marks to its frame sets, as with <profev.h>. man profev-tracy(3) lists
 * what each Tracy macro becomes.
 */
#ifndef PROFEV_TRACY_H
#define PROFEV_TRACY_H

#include <stddef.h>
#include <stdint.h>
#include <profev.h>
#include "profev_tracy_location.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The category of zones, plots and messages, defined in libprofev-tracy. */
extern PROFEV_API struct profev_category profev_cat_tracy;

/**
 * The call site that the pointer key stands for, made on first use: how the
 * functions of TracyC.h and tracy::Profiler, which get a name or a source
 * location by pointer, find their site. A key of a given type is looked up
 * without a lock; the first use of a key takes one. name is the site's name
 * (copied when pfrec is told about it); function, file and line its source
 * location, if function is not NULL. The strings must outlive the program's
 * use of the key, as Tracy requires of them too.
 * @return the site, or NULL when the table (4096 keys) is full.
 */
PROFEV_API struct profev_site *profev_tracy__site(const void *key, unsigned type,
						  struct profev_category *c, const char *name,
						  const char *function, const char *file, unsigned line);

/** A message with the source location of site s (type PROFEV__R_MESSAGE_AT). */
PROFEV_API void profev_tracy__message_at(struct profev_site *s, const char *text, size_t len);

/** A frame of the discontinuous frame set name begins (type PROFEV__R_FRAME_START) or ends. */
PROFEV_API void profev_tracy__frame_edge(const char *name, unsigned type);

/** A message of len bytes of text (no NUL needed) in category c. */
PROFEV_API void profev_tracy__message(struct profev_category *c, const char *text, size_t len);

/** A secure memory event in a named pool: safe inside malloc (see <profev.h>). */
PROFEV_API void profev_tracy__mem_secure_named(const char *pool, unsigned type, const void *ptr,
					       uint64_t size);

/** The counter (plot) named by the pointer name. */
PROFEV_API void profev_tracy__plot(const char *name, double value);

/** The end of a frame of the frame set named by the pointer name (NULL: the default set). */
PROFEV_API void profev_tracy__frame(const char *name);

/** Sets the calling thread's name in the trace and in the system (15 bytes there). */
PROFEV_API void ___tracy_set_thread_name(const char *name);

/* A zone's begin: the site's word, 0 when nothing was begun. */
PROFEV__INLINE uint64_t profev_tracy__begin(struct profev_site *s, int active)
{
	return active ? profev__begin(&profev_cat_tracy, s) : 0;
}

/* A zone with a callstack of depth frames (0: none); s is of type
 * PROFEV__R_ZONE_BEGIN_S. Inline so that the stack starts at the caller. */
PROFEV__INLINE uint64_t profev_tracy__begin_s(struct profev_site *s, int depth, int active)
{
	return active && profev__on(&profev_cat_tracy) ? profev__zone_s(s, depth) : 0;
}

/* A zone whose name is made at run time. */
PROFEV__INLINE uint64_t profev_tracy__begin_dyn(const char *name, size_t len, int active)
{
	if (!active || !profev__on(&profev_cat_tracy))
		return 0;
	return profev__zone_dyn(&profev_cat_tracy, name, len);
}

/* Memory events in the default pool with a callstack (type _S), addresses
 * as integers (PROFEV__ADDR in profev.h says why). The empty
 * asm keeps the call from becoming a tail call, which would lose the
 * caller's frame. */
PROFEV__INLINE void profev_tracy__mem_s(unsigned type, uint64_t addr, uint64_t size, int depth)
{
	profev__mem_stack(0, type, addr, size, depth);
	PROFEV__NO_TAIL();
}

/* Memory events in the pool named by the pointer name. */
PROFEV__INLINE void profev_tracy__mem_named(const char *name, unsigned type, uint64_t addr, uint64_t size)
{
	if (profev__on(&profev__memory)) {
		struct profev_site *s = profev_tracy__site(name, type, &profev__memory, name, 0, 0, 0);
		if (s)
			profev__mem(s, 0, addr, size);
	}
}

PROFEV__INLINE void profev_tracy__mem_named_s(const char *name, unsigned type, uint64_t addr,
					      uint64_t size, int depth)
{
	if (profev__on(&profev__memory)) {
		struct profev_site *s = profev_tracy__site(name, type, &profev__memory, name, 0, 0, 0);
		if (s)
			profev__mem_stack(s, 0, addr, size, depth);
	}
	PROFEV__NO_TAIL();
}

#ifdef __cplusplus
} /* extern "C" */
#endif

/* A site with a name given by pointer, and its source location; constant
 * when the name is (a string literal, __func__), as Tracy's are. */
#define PROFEV_TRACY__SITE(var, cat, name, type) \
	static struct profev_site var = { 0, cat, name, (type) | PROFEV__SITE_LOC, TracyLine, __func__, TracyFile }
/* A site without a location: pools and frame sets, as in <profev.h>. */
#define PROFEV_TRACY__SITE_PLAIN(var, cat, name, type) \
	static struct profev_site var = { 0, cat, name, type, 0, 0, 0 }

/* Messages keep their call site's location, and a color as the message's
 * argument "color"; not their callstack depth (profev's messages have none).
 * A NULL text is an empty message. */
#define PROFEV_TRACY__MESSAGE(txt, size) do { \
	PROFEV_TRACY__SITE(profev__tsite, &profev_cat_tracy, "", PROFEV__R_MESSAGE_AT); \
	if (profev__on(&profev_cat_tracy)) \
		profev_tracy__message_at(&profev__tsite, txt, size); } while (0)
#define PROFEV_TRACY__MESSAGE_C(txt, size, color) do { \
	PROFEV_TRACY__SITE(profev__tsite, &profev_cat_tracy, "", PROFEV__R_MESSAGE_AT); \
	if (profev__on(&profev_cat_tracy)) { \
		PROFEV_NEXT_ARG_UINT("color", (uint32_t)(color)); \
		profev_tracy__message_at(&profev__tsite, txt, size); } } while (0)
#define PROFEV_TRACY__MESSAGE_L(txt) do { \
	const char *profev__txt = (txt); \
	PROFEV_TRACY__MESSAGE(profev__txt, profev__txt ? strlen(profev__txt) : 0); } while (0)
#define PROFEV_TRACY__MESSAGE_LC(txt, color) do { \
	const char *profev__txt = (txt); \
	PROFEV_TRACY__MESSAGE_C(profev__txt, profev__txt ? strlen(profev__txt) : 0, color); } while (0)

#ifndef TRACY_CALLSTACK
#define TRACY_CALLSTACK 0
#endif

#endif
