/* A GL 3.3 core context on EGL's surfaceless platform for the GL tests
 * (141, 142): 0, or -1 with the reason on stderr. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdio.h>
static int gl_start(void)
{
	PFNEGLGETPLATFORMDISPLAYEXTPROC get =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	EGLDisplay d = get ? get(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL) : EGL_NO_DISPLAY;
	EGLint major, minor, n = 0;
	static const EGLint cfg_attr[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
					   EGL_NONE };
	static const EGLint ctx_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
					   EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
					   EGL_NONE };
	EGLConfig cfg;
	if (d == EGL_NO_DISPLAY || !eglInitialize(d, &major, &minor) || !eglBindAPI(EGL_OPENGL_API) ||
	    !eglChooseConfig(d, cfg_attr, &cfg, 1, &n) || n < 1) {
		fprintf(stderr, "no EGL device with OpenGL (0x%x)\n", (unsigned)eglGetError());
		return -1;
	}
	EGLContext c = eglCreateContext(d, cfg, EGL_NO_CONTEXT, ctx_attr);
	if (c == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
		fprintf(stderr, "no GL 3.3 core context (0x%x)\n", (unsigned)eglGetError());
		return -1;
	}
	return 0;
}
