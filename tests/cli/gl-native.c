/* tracy-gl.cpp's program written with profev's own GL API (test 142). */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <string.h>
#include <profev_gl.h>
#include "gl-start.h"
PROFEV_CATEGORY(tracy, "the Tracy layer's category, here by hand");

int main(void)
{
	if (gl_start())
		return 3;
	struct profev_gl *gl = profev_gl_new("OpenGL");
	profev_gl_name(gl, "scene", 5);
	char pass[16];
	for (int f = 0; f < 20; f++) {
		PROFEV_ZONE(tracy, "frame");
		{
			PROFEV_GL_ZONE(gl, tracy, "frame");
			{
				PROFEV_GL_ZONE(gl, tracy, "clear");
				glClearColor(0.1f * (float)(f % 10), 0.2f, 0.3f, 1.0f);
				glClear(GL_COLOR_BUFFER_BIT);
			}
			snprintf(pass, sizeof pass, "pass-%d", f % 2);
			profev_gl_zone_begin_dyn(gl, pass, strlen(pass));
			glFlush();
			PROFEV_GL_ZONE_END(gl);
		}
		profev_gl_collect(gl);
		PROFEV_FRAME_MARK();
	}
	glFinish();
	profev_gl_collect(gl);
	profev_gl_free(gl);
	return 0;
}
