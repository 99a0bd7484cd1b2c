/*
 * profev_gpu.h - GPU zones from timestamps the program reads itself
 * (OpenCL events, CUDA events, a console's SDK...); link with
 * -lprofev-client. <profev_gl.h> and <profev_vulkan.h> build on it.
 *
 *   int gpu = profev_gpu_context("compute", 1.0, gpu_now, cpu_now_ns);
 *   ...
 *   PROFEV_GPU_ZONE_AT(gpu, render, "blur", t0, t1);   // GPU ticks, read later
 *
 * A context is a GPU clock: its period (ns per tick) and one pair of
 * readings taken together, a GPU tick and CLOCK_MONOTONIC in ns. pfrec
 * stores each zone in GPU ticks with every calibration given, and the
 * readers place them on the CPU timeline, piecewise between calibrations.
 *
 * Rules that matter:
 *   - At most 256 contexts per program (PROFEV_GPU_MAX_CONTEXTS); each has a name.
 *   - Give a context's zones in the order they began (a parent before the
 *     zones it holds): readers nest them so, on one track per context.
 *   - The calls are thread-safe; a zone is one small message queued for the
 *     flush thread, dropped and counted as lost when the queue is full
 *     (pfrec far behind), never waited for.
 *   - Under -DPROFEV_DISABLE everything compiles away; without pfrec every
 *     call returns at once (profev_gpu_context() returns -1).
 */
#ifndef PROFEV_GPU_H
#define PROFEV_GPU_H

#include "profev.h"

#define PROFEV_GPU_MAX_CONTEXTS 256

/** enum profev_gpu_kind of <profev_trace.h>: what made the context. */
#define PROFEV_GPU_KIND_MANUAL 1
#define PROFEV_GPU_KIND_OPENGL 2
#define PROFEV_GPU_KIND_VULKAN 3

#ifdef PROFEV_DISABLE

#define profev_gpu_context(name, period_ns, gpu, cpu_ns) \
	((void)sizeof(name), (void)sizeof(period_ns), (void)sizeof(gpu), (void)sizeof(cpu_ns), -1)
#define profev_gpu_context_kind(name, kind, period_ns, gpu, cpu_ns, error_ns) \
	((void)sizeof(kind), (void)sizeof(error_ns), profev_gpu_context(name, period_ns, gpu, cpu_ns))
#define profev_gpu_calibrate(ctx, gpu, cpu_ns, error_ns) \
	((void)sizeof(ctx), (void)sizeof(gpu), (void)sizeof(cpu_ns), (void)sizeof(error_ns))
#define profev_gpu_lost(ctx, n) ((void)sizeof(ctx), (void)sizeof(n))
#define profev_gpu_context_name(ctx, name, len) ((void)sizeof(ctx), (void)sizeof(name), (void)sizeof(len))
#define profev_gpu_name(name, len) ((void)sizeof(name), (void)sizeof(len), 0u)
#define PROFEV_GPU_ZONE_AT(ctx, cat, name, gpu_begin, gpu_end) \
	(PROFEV__USE(cat), (void)sizeof(ctx), (void)sizeof("" name ""), (void)sizeof(gpu_begin), \
	 (void)sizeof(gpu_end))

#else

#ifdef __cplusplus
extern "C" {
#endif

/** A zone as the client sends it (formats/wire.md, GPU_ZONES). */
struct profev_gpu_zone_rec {
	uint64_t tick;              /* profev's clock when its begin was recorded */
	uint64_t gpu_begin, gpu_end; /* GPU ticks */
	uint32_t name;              /* the site's string id */
	uint32_t tid;
};

/**
 * Make a GPU context named name (copied, at most 1024 bytes) whose clock
 * ticks every period_ns nanoseconds and read gpu when CLOCK_MONOTONIC read
 * cpu_ns. @return its id (0..255), or -1: not recording, 256 contexts
 * made, or period_ns not in (0, 1e9).
 */
PROFEV_API int profev_gpu_context(const char *name, double period_ns, uint64_t gpu, uint64_t cpu_ns);
/** As profev_gpu_context(), saying what made it (PROFEV_GPU_KIND_*) and
 *  how far apart the two readings may be. */
PROFEV_API int profev_gpu_context_kind(const char *name, int kind, double period_ns, uint64_t gpu,
				       uint64_t cpu_ns, uint32_t error_ns);
/**
 * A later pair of readings of context ctx, the two at most error_ns apart:
 * readers place the zones between two calibrations on the line through
 * them. A pair whose GPU or CPU time is not after the previous pair's is
 * refused by readers (and counted).
 */
PROFEV_API void profev_gpu_calibrate(int ctx, uint64_t gpu, uint64_t cpu_ns, uint32_t error_ns);
/** n zones of context ctx that could not be recorded (a full query ring). */
PROFEV_API void profev_gpu_lost(int ctx, uint64_t n);
/** Send n zones of context ctx (at most 2000 per call). */
PROFEV_API void profev_gpu_zones(int ctx, const struct profev_gpu_zone_rec *z, unsigned n);
/** Rename context ctx (len bytes of name, at most 1024). */
PROFEV_API void profev_gpu_context_name(int ctx, const char *name, size_t len);
/** A string id for a zone name made at run time (len bytes, at most
 *  4080), 0 when nothing is recorded; the latest 1024 distinct names keep
 *  theirs. */
PROFEV_API uint32_t profev_gpu_name(const char *name, size_t len);
/** Tracy's OpenGL context (struct profev_gl *), for <tracy/TracyOpenGL.hpp>. */
extern PROFEV_API void *profev__tracy_gl;
/** The string id of a GPU zone's site, 0 when its category is off or
 *  nothing is recorded. */
PROFEV_API uint32_t profev__gpu_name(struct profev_site *s);
/** The calling thread's id, as zones carry it. */
PROFEV_API uint32_t profev__gpu_tid(void);

PROFEV__INLINE uint32_t profev__gpu_site(struct profev_category *c, struct profev_site *s)
{
	if (!profev__on(c))
		return 0;
	uint64_t w = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
	return w ? (uint32_t)(w >> 32) : profev__gpu_name(s);
}

PROFEV__INLINE void profev__gpu_zone_at(int ctx, uint32_t name, uint64_t b, uint64_t e)
{
	if (name && ctx >= 0) {
		struct profev_gpu_zone_rec z = { profev__ticks(), b, e, name, profev__gpu_tid() };
		profev_gpu_zones(ctx, &z, 1);
	}
}

/** A zone of context ctx that ran on the GPU from tick gpu_begin to tick
 *  gpu_end, named by a string literal, of category cat. */
#define PROFEV_GPU_ZONE_AT(ctx, cat, name, gpu_begin, gpu_end) do { \
	PROFEV__SITE(profev__gsite, cat, name, PROFEV__R_BEGIN); \
	profev__gpu_zone_at((ctx), profev__gpu_site(&profev_cat_##cat, &profev__gsite), \
			    (gpu_begin), (gpu_end)); } while (0)

#ifdef __cplusplus
}
#endif

#endif /* PROFEV_DISABLE */
#endif
