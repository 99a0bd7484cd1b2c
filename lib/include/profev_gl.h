/*
 * profev_gl.h - GPU zones of an OpenGL context (3.3 and later, or GLES 3.0
 * with EXT_disjoint_timer_query), recorded with timer queries.
 *
 * Include the program's own GL header or loader (GLAD, epoxy, GLEW, or
 * <GL/gl.h> with GL_GLEXT_PROTOTYPES) first: the functions here call
 * glGenQueries, glDeleteQueries, glQueryCounter, glGetQueryObjectiv,
 * glGetQueryObjectui64v and glGetInteger64v by those names (define
 * PROFEV_GL_QUERY_COUNTER and friends, below, for other spellings), so the
 * client library never links libGL. <profev.h> never includes this file.
 *
 *   struct profev_gl *gl = profev_gl_new("main");     // the GL context is current
 *   for (;;) {
 *       { PROFEV_GL_ZONE(gl, render, "shadow"); draw_shadows(); }   // C: _BEGIN/_END
 *       swap();
 *       profev_gl_collect(gl);                        // once a frame, never waits
 *   }
 *   profev_gl_free(gl);
 *
 * A zone writes a timestamp query where it begins and one where it ends,
 * into a ring of queries (PROFEV_GL_QUERIES by default, 65536). The collect
 * call reads the results the GPU has made available, in the order the
 * zones began, stops at the first not ready, and sends them; a full ring
 * drops the zone and counts it as lost (pfdump --stats shows how many),
 * never waiting for the GPU. The GPU clock is calibrated against
 * CLOCK_MONOTONIC with GL_TIMESTAMP when the context is made and again
 * about once a second in the collect.
 *
 * Rules that matter:
 *   - One struct profev_gl per GL context, used on the thread where that
 *     context is current; zones nest as the commands are issued.
 *   - Without pfrec (or when 256 GPU contexts exist) profev_gl_new()
 *     returns a handle that records nothing and issues no query.
 *   - Under -DPROFEV_DISABLE everything compiles away.
 */
#ifndef PROFEV_GL_H
#define PROFEV_GL_H

#include "profev_gpu.h"

#ifndef PROFEV_GL_QUERIES
#define PROFEV_GL_QUERIES 65536u
#endif

#ifdef PROFEV_DISABLE

struct profev_gl;
#define profev_gl_new(name) ((void)sizeof(name), (struct profev_gl *)0)
#define profev_gl_new_ring(name, queries) ((void)sizeof(queries), profev_gl_new(name))
#define profev_gl_free(gl) ((void)sizeof(gl))
#define profev_gl_collect(gl) ((void)sizeof(gl))
#define PROFEV_GL_ZONE(gl, cat, name) (PROFEV__USE(cat), (void)sizeof(gl), (void)sizeof("" name ""))
#define PROFEV_GL_ZONE_BEGIN(gl, cat, name) PROFEV_GL_ZONE(gl, cat, name)
#define PROFEV_GL_ZONE_END(gl) ((void)sizeof(gl))
#define profev_gl_zone_begin_dyn(gl, name, len) ((void)sizeof(gl), (void)sizeof(name), (void)sizeof(len))
#define profev_gl_name(gl, name, len) ((void)sizeof(gl), (void)sizeof(name), (void)sizeof(len))
#define profev_gl_collected(gl) ((void)sizeof(gl), (uint64_t)0)

#else

#include <stdlib.h>
#include <time.h>

#ifndef PROFEV_GL_QUERY_COUNTER
#define PROFEV_GL_QUERY_COUNTER glQueryCounter
#endif
#ifndef PROFEV_GL_GET_QUERY_OBJECTIV
#define PROFEV_GL_GET_QUERY_OBJECTIV glGetQueryObjectiv
#endif
#ifndef PROFEV_GL_GET_QUERY_OBJECTUI64V
#define PROFEV_GL_GET_QUERY_OBJECTUI64V glGetQueryObjectui64v
#endif
#ifndef PROFEV_GL_TIMESTAMP
#define PROFEV_GL_TIMESTAMP 0x8E28 /* GL_TIMESTAMP */
#endif
#define PROFEV_GL_MAX_DEPTH 64u
#define PROFEV__GL_NONE 0xffffffffu

/* A zone issued: its queries' slots in the ring (qe NONE while open). */
struct profev__gl_zone {
	uint64_t tick;
	uint32_t qb, qe;
	uint32_t name, tid;
};

struct profev_gl {
	int ctx;                    /* profev's context id, -1: records nothing */
	uint32_t nq;                /* queries in the ring, a power of two */
	GLuint *q;
	struct profev__gl_zone *z;  /* nq / 2 zones, in the order they began */
	uint32_t qhead;             /* the next query's slot */
	uint32_t zhead, ztail;      /* zones issued and not yet collected */
	uint32_t open[PROFEV_GL_MAX_DEPTH]; /* zones open, innermost last, or NONE */
	uint32_t depth;
	uint64_t lost;              /* dropped since the last collect */
	uint64_t next_calibration;  /* CLOCK_MONOTONIC ns */
	struct profev_gpu_zone_rec out[256];
};

static inline uint64_t profev__gl_mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* GL_TIMESTAMP between two reads of CLOCK_MONOTONIC: the pair and half
 * the time the three reads took. */
static inline void profev__gl_calibration(uint64_t *gpu, uint64_t *cpu, uint32_t *error)
{
	GLint64 t = 0;
	uint64_t a = profev__gl_mono();
	glGetInteger64v(PROFEV_GL_TIMESTAMP, &t);
	uint64_t b = profev__gl_mono();
	*gpu = (uint64_t)t;
	*cpu = a + (b - a) / 2;
	*error = (uint32_t)((b - a) / 2 + 1);
}

/** A GPU context for the current GL context, with a ring of queries
 *  (a power of two, at least 4). Never NULL unless out of memory. */
static inline struct profev_gl *profev_gl_new_ring(const char *name, uint32_t queries)
{
	struct profev_gl *gl = (struct profev_gl *)calloc(1, sizeof *gl);
	if (!gl)
		return NULL;
	gl->ctx = -1;
	if (!profev_active() || queries < 4 || (queries & (queries - 1)))
		return gl;
	gl->q = (GLuint *)calloc(queries, sizeof *gl->q);
	gl->z = (struct profev__gl_zone *)calloc(queries / 2, sizeof *gl->z);
	if (!gl->q || !gl->z)
		return gl;
	glGenQueries((GLsizei)queries, gl->q);
	uint64_t gpu, cpu;
	uint32_t error;
	profev__gl_calibration(&gpu, &cpu, &error);
	gl->nq = queries;
	gl->ctx = profev_gpu_context_kind(name, PROFEV_GPU_KIND_OPENGL, 1.0, gpu, cpu, error);
	gl->next_calibration = cpu + 1000000000u;
	return gl;
}

/** profev_gl_new_ring() with PROFEV_GL_QUERIES queries. */
static inline struct profev_gl *profev_gl_new(const char *name)
{
	return profev_gl_new_ring(name, PROFEV_GL_QUERIES);
}

/* Begin a zone named by string id name (0: nothing recorded). */
static inline void profev__gl_begin_id(struct profev_gl *gl, uint32_t name)
{
	if (!gl)
		return;
	if (gl->depth >= PROFEV_GL_MAX_DEPTH) {
		gl->lost++;
		return;
	}
	uint32_t *slot = &gl->open[gl->depth++];
	*slot = PROFEV__GL_NONE;
	if (!name || gl->ctx < 0)
		return;
	/* Room for this zone's two queries and one for each zone still open. */
	uint32_t tail = gl->ztail != gl->zhead ? gl->z[gl->ztail & (gl->nq / 2 - 1)].qb : gl->qhead;
	if (gl->qhead - tail + gl->depth + 1 > gl->nq) {
		gl->lost++;
		return;
	}
	struct profev__gl_zone *z = &gl->z[gl->zhead & (gl->nq / 2 - 1)];
	z->tick = profev__ticks(); /* before the query: a first use may take long */
	PROFEV_GL_QUERY_COUNTER(gl->q[gl->qhead & (gl->nq - 1)], PROFEV_GL_TIMESTAMP);
	z->qb = gl->qhead++;
	z->qe = PROFEV__GL_NONE;
	z->name = name;
	z->tid = profev__gpu_tid();
	*slot = gl->zhead++;
}

/* Begin a zone named by site s (of category c). */
static inline void profev__gl_begin(struct profev_gl *gl, struct profev_category *c, struct profev_site *s)
{
	profev__gl_begin_id(gl, gl && gl->ctx >= 0 ? profev__gpu_site(c, s) : 0);
}

/** Begin a zone named at run time (len bytes, copied; the latest 1024
 *  distinct names are sent once), without category; PROFEV_GL_ZONE_END
 *  ends it. */
static inline void profev_gl_zone_begin_dyn(struct profev_gl *gl, const char *name, size_t len)
{
	profev__gl_begin_id(gl, gl && gl->ctx >= 0 ? profev_gpu_name(name, len) : 0);
}

/** End the innermost zone begun with PROFEV_GL_ZONE_BEGIN. */
static inline void profev_gl_zone_end(struct profev_gl *gl)
{
	if (!gl || !gl->depth)
		return;
	uint32_t zi = gl->open[--gl->depth];
	if (zi == PROFEV__GL_NONE)
		return;
	PROFEV_GL_QUERY_COUNTER(gl->q[gl->qhead & (gl->nq - 1)], PROFEV_GL_TIMESTAMP);
	gl->z[zi & (gl->nq / 2 - 1)].qe = gl->qhead++;
}

static inline int profev__gl_ready(struct profev_gl *gl, uint32_t slot)
{
	GLint ready = 0;
	PROFEV_GL_GET_QUERY_OBJECTIV(gl->q[slot & (gl->nq - 1)], 0x8867 /* GL_QUERY_RESULT_AVAILABLE */,
				     &ready);
	return ready != 0;
}

static inline uint64_t profev__gl_result(struct profev_gl *gl, uint32_t slot)
{
	GLuint64 v = 0;
	PROFEV_GL_GET_QUERY_OBJECTUI64V(gl->q[slot & (gl->nq - 1)], 0x8866 /* GL_QUERY_RESULT */, &v);
	return (uint64_t)v;
}

/**
 * Send the zones whose timestamps the GPU has made available, in the order
 * they began, up to the first that is not ready; never waits. Call once a
 * frame, on the context's thread (after the swap is a good place).
 */
static inline void profev_gl_collect(struct profev_gl *gl)
{
	if (!gl || gl->ctx < 0)
		return;
	unsigned n = 0;
	while (gl->ztail != gl->zhead) {
		struct profev__gl_zone *z = &gl->z[gl->ztail & (gl->nq / 2 - 1)];
		if (z->qe == PROFEV__GL_NONE || !profev__gl_ready(gl, z->qe) || !profev__gl_ready(gl, z->qb))
			break;
		struct profev_gpu_zone_rec *o = &gl->out[n++];
		o->tick = z->tick;
		o->gpu_begin = profev__gl_result(gl, z->qb);
		o->gpu_end = profev__gl_result(gl, z->qe);
		o->name = z->name;
		o->tid = z->tid;
		gl->ztail++;
		if (n == sizeof gl->out / sizeof gl->out[0]) {
			profev_gpu_zones(gl->ctx, gl->out, n);
			n = 0;
		}
	}
	if (n)
		profev_gpu_zones(gl->ctx, gl->out, n);
	if (gl->lost) {
		profev_gpu_lost(gl->ctx, gl->lost);
		gl->lost = 0;
	}
	uint64_t now = profev__gl_mono();
	if (now >= gl->next_calibration) {
		uint64_t gpu, cpu;
		uint32_t error;
		profev__gl_calibration(&gpu, &cpu, &error);
		profev_gpu_calibrate(gl->ctx, gpu, cpu, error);
		gl->next_calibration = cpu + 1000000000u;
	}
}

/** Rename gl's GPU context (len bytes of name, at most 1024). */
static inline void profev_gl_name(struct profev_gl *gl, const char *name, size_t len)
{
	if (gl && gl->ctx >= 0)
		profev_gpu_context_name(gl->ctx, name, len);
}

/** Zones the collects have read so far. */
static inline uint64_t profev_gl_collected(const struct profev_gl *gl)
{
	return gl ? gl->ztail : 0;
}

/** Delete the queries (the GL context must be current) and the handle;
 *  zones not yet collected are lost. Accepts NULL. */
static inline void profev_gl_free(struct profev_gl *gl)
{
	if (!gl)
		return;
	if (gl->nq)
		glDeleteQueries((GLsizei)gl->nq, gl->q);
	free(gl->q);
	free(gl->z);
	free(gl);
}

/** Begin a GPU zone of gl named by a string literal, of category cat. */
#define PROFEV_GL_ZONE_BEGIN(gl, cat, name) do { \
	PROFEV__SITE(profev__glsite, cat, name, PROFEV__R_BEGIN); \
	profev__gl_begin((gl), &profev_cat_##cat, &profev__glsite); } while (0)
#define PROFEV_GL_ZONE_END(gl) profev_gl_zone_end(gl)

#ifdef __cplusplus
struct profev__gl_scope {
	struct profev_gl *gl;
	~profev__gl_scope() { profev_gl_zone_end(gl); }
};
#define PROFEV__GL_ZONE(gl, cat, name, n) \
	PROFEV__SITE(PROFEV__CAT(profev__glsite_, n), cat, name, PROFEV__R_BEGIN); \
	profev__gl_begin((gl), &profev_cat_##cat, &PROFEV__CAT(profev__glsite_, n)); \
	profev__gl_scope PROFEV__CAT(profev__glscope_, n) = { (gl) }
#else
static inline void profev__gl_cleanup(struct profev_gl **gl)
{
	profev_gl_zone_end(*gl);
}
#define PROFEV__GL_ZONE(gl, cat, name, n) \
	PROFEV__SITE(PROFEV__CAT(profev__glsite_, n), cat, name, PROFEV__R_BEGIN); \
	profev__gl_begin((gl), &profev_cat_##cat, &PROFEV__CAT(profev__glsite_, n)); \
	__attribute__((cleanup(profev__gl_cleanup), unused)) struct profev_gl *PROFEV__CAT(profev__glscope_, n) = (gl)
#endif

/** A GPU zone of gl from here to the end of the scope. */
#define PROFEV_GL_ZONE(gl, cat, name) PROFEV__GL_ZONE(gl, cat, name, __COUNTER__)

#endif /* PROFEV_DISABLE */
#endif
