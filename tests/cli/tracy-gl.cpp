// Tracy's OpenGL example in small (test 142): a GPU context named after
// it is made, per frame a zone holding a named one and a transient one,
// collected once a frame. gl-native.c records the same with profev's API.
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <tracy/Tracy.hpp>
#include <tracy/TracyOpenGL.hpp>
#include "gl-start.h"

int main()
{
	if (gl_start())
		return 3;
	TracyGpuContext;
	TracyGpuContextName("scene", 5);
	char pass[16];
	for (int f = 0; f < 20; f++) {
		ZoneScopedN("frame");
		{
			TracyGpuZone("frame");
			{
				TracyGpuZoneC("clear", 0xff0000);
				glClearColor(0.1f * (float)(f % 10), 0.2f, 0.3f, 1.0f);
				glClear(GL_COLOR_BUFFER_BIT);
			}
			snprintf(pass, sizeof pass, "pass-%d", f % 2);
			TracyGpuZoneTransient(t, pass, true);
			glFlush();
		}
		TracyGpuCollect;
		FrameMark;
	}
	glFinish();
	TracyGpuCollect;
	return 0;
}
