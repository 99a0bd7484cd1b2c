/*
 * gpu_game.c - the example game's scene drawn with OpenGL, with GPU zones.
 *
 * An off-screen GL 3.3 core context on EGL's surfaceless platform (Mesa's
 * llvmpipe where there is no GPU), three passes a frame, each a GPU zone
 * inside the frame's: shadow (a depth map), opaque (the boxes, lit and
 * shadowed) and post (a vignette into the final image). The final image
 * is read back with glReadPixels, rows bottom-up, and sent with
 * PROFEV_FRAME_IMAGE with flip set. The GPU zones are collected once a
 * frame after the read-back; the counter "gpu zones collected" says how
 * many the collects read so far.
 *
 *   gpu_game [FRAMES [QUERIES [FIRST_COLLECT]]]
 *
 * QUERIES sizes the query ring (65536); FIRST_COLLECT is the first frame
 * that collects (0): a small ring and a late first collect make the ring
 * overflow, which loses zones and never waits. Exits 3 when no EGL
 * display or GL 3.3 context can be had, saying why.
 */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <profev.h>
#include <profev_gl.h>

PROFEV_CATEGORY(game, "game loop");
PROFEV_CATEGORY(render, "drawing");

#define W 320
#define H 180
#define SHADOW 256
#define BOXES 24

static const char *vs_scene =
	"#version 330 core\n"
	"layout(location = 0) in vec3 pos;\n"
	"uniform mat4 mvp, light;\n"
	"out vec4 lpos; out vec3 p;\n"
	"void main() { p = pos; lpos = light * vec4(pos, 1.0); gl_Position = mvp * vec4(pos, 1.0); }\n";
static const char *fs_depth = "#version 330 core\nvoid main() {}\n";
static const char *fs_scene =
	"#version 330 core\n"
	"in vec4 lpos; in vec3 p; uniform sampler2D shadow; uniform vec3 tint;\n"
	"out vec4 color;\n"
	"void main() {\n"
	"  vec3 l = lpos.xyz / lpos.w * 0.5 + 0.5;\n"
	"  float lit = texture(shadow, l.xy).r + 0.002 < l.z ? 0.4 : 1.0;\n"
	"  color = vec4(tint * lit * (0.6 + 0.4 * fract(p.y)), 1.0);\n"
	"}\n";
static const char *vs_post =
	"#version 330 core\n"
	"out vec2 uv;\n"
	"void main() { uv = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);\n"
	"  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0); }\n";
static const char *fs_post =
	"#version 330 core\n"
	"in vec2 uv; uniform sampler2D img; out vec4 color;\n"
	"void main() { vec2 d = uv - 0.5; color = texture(img, uv) * (1.0 - dot(d, d)); color.a = 1.0; }\n";

static GLuint shader(GLenum kind, const char *src)
{
	GLuint s = glCreateShader(kind);
	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	GLint ok = 0;
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[512];
		glGetShaderInfoLog(s, sizeof log, NULL, log);
		fprintf(stderr, "gpu_game: shader: %s\n", log);
		exit(1);
	}
	return s;
}

static GLuint program(const char *vs, const char *fs)
{
	GLuint p = glCreateProgram();
	glAttachShader(p, shader(GL_VERTEX_SHADER, vs));
	glAttachShader(p, shader(GL_FRAGMENT_SHADER, fs));
	glLinkProgram(p);
	return p;
}

static GLuint texture(GLint format, GLenum kind, GLenum type)
{
	GLuint t;
	glGenTextures(1, &t);
	glBindTexture(GL_TEXTURE_2D, t);
	GLsizei w = format == GL_DEPTH_COMPONENT24 ? SHADOW : W, h = format == GL_DEPTH_COMPONENT24 ? SHADOW : H;
	glTexImage2D(GL_TEXTURE_2D, 0, format, w, h, 0, kind, type, NULL);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	return t;
}

static GLuint framebuffer(GLuint color, GLuint depth)
{
	GLuint f;
	glGenFramebuffers(1, &f);
	glBindFramebuffer(GL_FRAMEBUFFER, f);
	if (color)
		glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color, 0);
	if (depth)
		glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, depth, 0);
	return f;
}

/* A column-major matrix: scale, then translate (an orthographic view). */
static void ortho(float *m, float sx, float sy, float sz, float tx, float ty)
{
	for (int i = 0; i < 16; i++)
		m[i] = 0;
	m[0] = sx, m[5] = sy, m[10] = sz, m[12] = tx, m[13] = ty, m[15] = 1;
}

/* BOXES boxes as 12 triangles each, moving with the frame. */
static int boxes(float *v, int frame)
{
	int n = 0;
	static const int face[36] = { 0, 1, 2, 2, 1, 3, 4, 5, 6, 6, 5, 7, 0, 1, 4, 4, 1, 5,
				      2, 3, 6, 6, 3, 7, 0, 2, 4, 4, 2, 6, 1, 3, 5, 5, 3, 7 };
	for (int b = 0; b < BOXES; b++) {
		float x = -0.9f + 1.8f * (float)((b * 37 + frame * (b % 5 + 1)) % 100) / 100.0f;
		float y = -0.8f + 1.6f * (float)((b * 53) % 100) / 100.0f, z = 0.1f * (float)(b % 7), s = 0.08f;
		for (int k = 0; k < 36; k++) {
			int c = face[k];
			v[n++] = x + (c & 1 ? s : -s);
			v[n++] = y + (c & 2 ? s : -s);
			v[n++] = z + (c & 4 ? s : 0);
		}
	}
	return n / 3;
}

static int gl_start(EGLDisplay *dpy)
{
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!get_display) {
		fprintf(stderr, "gpu_game: no EGL device: eglGetPlatformDisplayEXT is missing\n");
		return -1;
	}
	*dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
	EGLint major, minor;
	if (*dpy == EGL_NO_DISPLAY || !eglInitialize(*dpy, &major, &minor)) {
		fprintf(stderr, "gpu_game: no EGL device: the surfaceless platform does not initialize (0x%x)\n",
			eglGetError());
		return -1;
	}
	static const EGLint cfg_attr[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
					   EGL_NONE };
	static const EGLint ctx_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
					   EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
					   EGL_NONE };
	EGLConfig cfg;
	EGLint n = 0;
	if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(*dpy, cfg_attr, &cfg, 1, &n) || n < 1) {
		fprintf(stderr, "gpu_game: no EGL device: no OpenGL config (0x%x)\n", eglGetError());
		return -1;
	}
	EGLContext ctx = eglCreateContext(*dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
	if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(*dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
		fprintf(stderr, "gpu_game: no EGL device: no GL 3.3 core context (0x%x)\n", eglGetError());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 120;
	uint32_t queries = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : PROFEV_GL_QUERIES;
	int first_collect = argc > 3 ? atoi(argv[3]) : 0;
	EGLDisplay dpy;
	profev_thread_name("main");
	if (gl_start(&dpy))
		return 3;
	struct profev_gl *gl = profev_gl_new_ring("GL main", queries);
	GLuint scene = program(vs_scene, fs_scene), depth_only = program(vs_scene, fs_depth);
	GLuint post = program(vs_post, fs_post);
	GLuint shadow_tex = texture(GL_DEPTH_COMPONENT24, GL_DEPTH_COMPONENT, GL_FLOAT);
	GLuint color_tex = texture(GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE);
	GLuint depth_tex = texture(GL_DEPTH_COMPONENT24, GL_DEPTH_COMPONENT, GL_FLOAT);
	glBindTexture(GL_TEXTURE_2D, depth_tex);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, W, H, 0, GL_DEPTH_COMPONENT, GL_FLOAT, NULL);
	GLuint final_tex = texture(GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE);
	GLuint shadow_fb = framebuffer(0, shadow_tex), scene_fb = framebuffer(color_tex, depth_tex);
	GLuint final_fb = framebuffer(final_tex, 0);
	GLuint vao, vbo;
	glGenVertexArrays(1, &vao);
	glBindVertexArray(vao);
	glGenBuffers(1, &vbo);
	glBindBuffer(GL_ARRAY_BUFFER, vbo);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
	static float verts[BOXES * 36 * 3];
	static unsigned char pixels[W * H * 4];
	float mvp[16], light[16];
	ortho(mvp, 1, 1, -0.5f, 0, 0);
	ortho(light, 0.9f, 0.9f, -0.5f, 0.05f, 0.05f);

	for (int f = 0; f < frames; f++) {
		PROFEV_ZONE(game, "frame");
		int nv;
		{
			PROFEV_ZONE(game, "update");
			nv = boxes(verts, f);
			glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(nv * 3 * sizeof(float)), verts, GL_STREAM_DRAW);
		}
		{
			PROFEV_ZONE(render, "render");
			PROFEV_GL_ZONE(gl, render, "frame");
			glEnable(GL_DEPTH_TEST);
			{
				PROFEV_GL_ZONE(gl, render, "shadow");
				glBindFramebuffer(GL_FRAMEBUFFER, shadow_fb);
				glViewport(0, 0, SHADOW, SHADOW);
				glClear(GL_DEPTH_BUFFER_BIT);
				glUseProgram(depth_only);
				glUniformMatrix4fv(glGetUniformLocation(depth_only, "mvp"), 1, GL_FALSE, light);
				glUniformMatrix4fv(glGetUniformLocation(depth_only, "light"), 1, GL_FALSE, light);
				glDrawArrays(GL_TRIANGLES, 0, nv);
			}
			{
				PROFEV_GL_ZONE(gl, render, "opaque");
				glBindFramebuffer(GL_FRAMEBUFFER, scene_fb);
				glViewport(0, 0, W, H);
				glClearColor(0.15f, 0.18f, 0.25f, 1);
				glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
				glUseProgram(scene);
				glUniformMatrix4fv(glGetUniformLocation(scene, "mvp"), 1, GL_FALSE, mvp);
				glUniformMatrix4fv(glGetUniformLocation(scene, "light"), 1, GL_FALSE, light);
				glUniform3f(glGetUniformLocation(scene, "tint"), 0.9f, 0.6f + 0.3f * sinf((float)f * 0.1f), 0.3f);
				glBindTexture(GL_TEXTURE_2D, shadow_tex);
				glDrawArrays(GL_TRIANGLES, 0, nv);
			}
			{
				PROFEV_GL_ZONE(gl, render, "post");
				glDisable(GL_DEPTH_TEST);
				glBindFramebuffer(GL_FRAMEBUFFER, final_fb);
				glUseProgram(post);
				glBindTexture(GL_TEXTURE_2D, color_tex);
				glDrawArrays(GL_TRIANGLES, 0, 3);
			}
		}
		{
			PROFEV_ZONE(render, "read back");
			glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
			PROFEV_FRAME_IMAGE(pixels, W, H, 0, 1); /* GL's rows are bottom-up */
		}
		if (f >= first_collect) {
			PROFEV_ZONE(render, "collect");
			profev_gl_collect(gl);
		}
		PROFEV_COUNTER(render, "gpu zones collected", (double)profev_gl_collected(gl));
		PROFEV_FRAME_MARK();
	}
	glFinish();
	{
		PROFEV_ZONE(render, "collect");
		profev_gl_collect(gl);
	}
	PROFEV_COUNTER(render, "gpu zones collected", (double)profev_gl_collected(gl));
	profev_gl_free(gl);
	return 0;
}
