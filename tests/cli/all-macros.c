/* Every macro and function of <profev.h>, used as a program would: built by
 * tests/cli/503-headers-silent.sh as C and as C++, with and without
 * PROFEV_DISABLE, at several -O levels with -Wall -Wextra -Werror. Values
 * come from the caller and from malloc, so that the compiler cannot fold
 * them away and sees the patterns its warnings look for. */
#include <profev.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

PROFEV_CATEGORY(app, "the program");
PROFEV_CATEGORY_EXTERN(app);

struct job {
	int id;
};

static int work(int n, const char *name, double v)
{
	PROFEV_ZONE(app, "work");
	PROFEV_ZONE_TEXT(name, strlen(name));
	PROFEV_ZONE_NAME(name, 3);
	PROFEV_ZONE_VALUE((unsigned)n);
	PROFEV_ZONE_COLOR(0xff8800);
	PROFEV_ARG_INT("n", n);
	PROFEV_ARG_UINT("u", (unsigned)n);
	PROFEV_ARG_DOUBLE("v", v);
	PROFEV_ARG_BOOL("odd", n & 1);
	PROFEV_ARG_PTR("name", name);
	PROFEV_ARG_STR("s", name);
	PROFEV_ARG_STRN("sn", name, 2);
	{
		PROFEV_ZONE(app, "inner");
		PROFEV_ZONE_S(app, "inner stack", 8);
		PROFEV_COUNTER(app, "n", n);
		PROFEV_COUNTER(app, "v", v);
	}
	PROFEV_ZONE_DYN(app, name, strlen(name));
	PROFEV_NEXT_ARG_INT("n", n);
	PROFEV_NEXT_ARG_UINT("color", 0x00ff00u);
	PROFEV_NEXT_ARG_DOUBLE("v", v);
	PROFEV_NEXT_ARG_BOOL("b", n > 2);
	PROFEV_NEXT_ARG_PTR("p", &n);
	PROFEV_NEXT_ARG_STR("s", name);
	PROFEV_NEXT_ARG_STRN("sn", name, 1);
	PROFEV_INSTANT(app, "point");
	PROFEV_MESSAGE(app, "work %d on %s", n, name);
	PROFEV_MESSAGE(app, "plain");
	return n * 2;
}

static void begin_end(int n)
{
	PROFEV_ZONE_BEGIN(app, "manual");
	if (n > 3)
		PROFEV_INSTANT(app, "big");
	PROFEV_ZONE_END(app);
}

static void memory(size_t size)
{
	/* Uninitialized memory: the pointer, not the bytes, is recorded. */
	void *p = malloc(size), *q = malloc(size), *r = malloc(size), *s = malloc(size);
	PROFEV_ALLOC(p, size);
	PROFEV_ALLOC_S(q, size, 8);
	PROFEV_ALLOC_NAMED(r, size, "pool");
	PROFEV_ALLOC_NAMED_S(s, size, "pool", 4);
	PROFEV_FREE_NAMED_S(s, "pool", 4);
	free(s);
	PROFEV_FREE_NAMED(r, "pool");
	free(r);
	PROFEV_FREE_S(q, 8);
	free(q);
	PROFEV_FREE(p);
	free(p);
	void *t = malloc(size);
	PROFEV_SECURE_ALLOC(t, size);
	PROFEV_SECURE_FREE(t);
	free(t);
}

static void flows_locks(struct job *j, int *lock)
{
	PROFEV_ZONE(app, "job");
	PROFEV_FLOW_OUT((uintptr_t)j);
	PROFEV_FLOW_IN(j->id);
	PROFEV_ASYNC_BEGIN(app, "load", j->id);
	PROFEV_ASYNC_END(app, "load", j->id);
	PROFEV_LOCK_WAIT(lock, "the lock");
	PROFEV_LOCK_ACQUIRED(lock);
	PROFEV_LOCK_RELEASED(lock);
}

static void frames(int frame, int w, int h)
{
	unsigned char *px = (unsigned char *)malloc((size_t)w * (size_t)h * 4);
	PROFEV_FRAME_START("load");
	PROFEV_FRAME_END("load");
	PROFEV_FRAME_IMAGE(px, w, h, 0, frame & 1);
	PROFEV_FRAME_MARK_NAMED("physics");
	PROFEV_FRAME_MARK();
	if (frame == 3)
		PROFEV_TRIGGER("slow frame");
	free(px);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "main";
	profev_program_name(name);
	profev_app_info(name, strlen(name));
	profev_thread_name("main");
	int lock = 0;
	struct job j = { argc };
	int n = work(argc, name, argc * 0.5);
	begin_end(n);
	memory((size_t)argc * 16);
	flows_locks(&j, &lock);
	frames(argc, 64, 32);
	return profev_active() + (n == 0);
}
