/*
 * tracy/TracyOpenGL.hpp - Tracy's OpenGL GPU zones, recorded by profev
 * (<profev_gl.h>: timer queries in a ring, read back by TracyGpuCollect
 * without waiting, GL_TIMESTAMP calibration).
 *
 * As with Tracy's header, include the program's GL header or loader
 * first. TracyGpuContext makes the program's one GL GPU context (named
 * "OpenGL" until TracyGpuContextName), on the thread where the GL context
 * is current; the zones go there. Colors are not kept. The S variants
 * record the zone without the CPU callstack (a GPU zone has no place for
 * one in profev's trace): man profev-tracy(3). Without TRACY_ENABLE every
 * macro is empty.
 */
#ifndef PROFEV_TRACY_OPENGL_HPP
#define PROFEV_TRACY_OPENGL_HPP

#ifndef TRACY_ENABLE

#define TracyGpuContext
#define TracyGpuContextName(name, size)
#define TracyGpuNamedZone(varname, name, active)
#define TracyGpuNamedZoneC(varname, name, color, active)
#define TracyGpuZone(name)
#define TracyGpuZoneC(name, color)
#define TracyGpuZoneTransient(varname, name, active)
#define TracyGpuCollect
#define TracyGpuNamedZoneS(varname, name, depth, active)
#define TracyGpuNamedZoneCS(varname, name, color, depth, active)
#define TracyGpuZoneS(name, depth)
#define TracyGpuZoneCS(name, color, depth)
#define TracyGpuZoneTransientS(varname, name, depth, active)

namespace tracy {
class GpuCtxScope {
public:
	GpuCtxScope(const void *, bool) {}
};
}

#else

#include <string.h>
#include "Tracy.hpp"
#include <profev_gl.h>

namespace tracy {

/* A GPU zone of the program's GL context, ended with its scope. */
class GpuCtxScope {
	struct profev_gl *gl_;
public:
	GpuCtxScope(profev_site *site, bool active)
		: gl_(active ? (struct profev_gl *)profev__tracy_gl : 0)
	{
		profev__gl_begin(gl_, &profev_cat_tracy, site);
	}
	/* A transient zone: its name made at run time. */
	GpuCtxScope(const char *name, size_t len, bool active)
		: gl_(active ? (struct profev_gl *)profev__tracy_gl : 0)
	{
		if (gl_)
			profev__gl_begin_id(gl_, profev__on(&profev_cat_tracy) && gl_->ctx >= 0
							 ? profev_gpu_name(name, len) : 0);
	}
	~GpuCtxScope() { profev_gl_zone_end(gl_); }
	GpuCtxScope(const GpuCtxScope &) = delete;
	GpuCtxScope &operator=(const GpuCtxScope &) = delete;
};

}

#define TracyGpuContext do { \
	if (!profev__tracy_gl) \
		profev__tracy_gl = profev_gl_new("OpenGL"); } while (0)
#define TracyGpuContextName(name, size) \
	profev_gl_name((struct profev_gl *)profev__tracy_gl, (name), (size))
#define PROFEV_TRACY__GPU(var, name, active, n) \
	PROFEV__SITE_OF(PROFEV__CAT(profev__tgsite_, n), &profev_cat_tracy, name, PROFEV__R_BEGIN); \
	::tracy::GpuCtxScope var(&PROFEV__CAT(profev__tgsite_, n), active)
#define TracyGpuNamedZone(varname, name, active) PROFEV_TRACY__GPU(varname, name, active, __COUNTER__)
#define TracyGpuNamedZoneC(varname, name, color, active) \
	TracyGpuNamedZone(varname, name, active); (void)(color)
#define TracyGpuZone(name) TracyGpuNamedZone(___tracy_gpu_zone, name, true)
#define TracyGpuZoneC(name, color) TracyGpuNamedZoneC(___tracy_gpu_zone, name, color, true)
#define TracyGpuZoneTransient(varname, name, active) \
	::tracy::GpuCtxScope varname(name, strlen(name), active)
#define TracyGpuCollect profev_gl_collect((struct profev_gl *)profev__tracy_gl)
#define TracyGpuNamedZoneS(varname, name, depth, active) \
	TracyGpuNamedZone(varname, name, active); (void)(depth)
#define TracyGpuNamedZoneCS(varname, name, color, depth, active) \
	TracyGpuNamedZoneC(varname, name, color, active); (void)(depth)
#define TracyGpuZoneS(name, depth) TracyGpuNamedZoneS(___tracy_gpu_zone, name, depth, true)
#define TracyGpuZoneCS(name, color, depth) TracyGpuNamedZoneCS(___tracy_gpu_zone, name, color, depth, true)
#define TracyGpuZoneTransientS(varname, name, depth, active) \
	TracyGpuZoneTransient(varname, name, active); (void)(depth)

#endif
#endif
