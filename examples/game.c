/*
 * game.c - a small multi-threaded game loop instrumented with <profev.h>.
 *
 *   make && build/pfrec build/examples/game && build/pfdump --stats trace.bin
 *
 * The main thread runs frames: input, a simulation step split across worker
 * threads, then rendering on its own thread; audio mixes on another thread
 * at its own pace. Every frame ends with a frame mark; counters follow the
 * entity count and frame time, messages note level changes. Built with
 * -DGAME_ARGS, every frame zone carries two arguments, its number and the
 * entity count (what tests/bench/game_args.sh measures). Each frame also
 * draws a small picture (moving shapes over a gradient) and sends it with
 * PROFEV_FRAME_IMAGE, bottom-up as OpenGL reads a framebuffer back.
 * usage: game [FRAMES] [--seconds N] [--full-speed] [--memory]
 *   FRAMES        frames to run (default 120; 0: no limit)
 *   --seconds N   stop after N seconds
 *   --full-speed  no sleeping: every thread records as fast as it can
 *   --memory      each job and draw allocates scratch memory, recorded with
 *                 its callstack (PROFEV_ALLOC_S, PROFEV_FREE_S)
 * make soak runs it under pfrec with all three for minutes on end.
 * GAME_SLOW=ZONE:FACTOR in the environment makes the waits of one zone
 * (input, cull, shadows, opaque or post) FACTOR times longer: the change
 * pfdump --compare's tests look for.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <profev.h>

PROFEV_CATEGORY(game, "game logic");
PROFEV_CATEGORY(physics, "simulation");
PROFEV_CATEGORY(render, "drawing");
PROFEV_CATEGORY(audio, "sound mixing");

#define WORKERS 3
#define MAX_ENTITIES 4096

struct entity {
	float x, y, vx, vy;
};

static struct entity entities[MAX_ENTITIES];
static int nentities = 512;
static int frame;

/* A fork-join barrier: the main thread hands a frame to the workers. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static int job_frame = -1, jobs_left, quit;
static int render_frame = -1, rendered = -1;
static int full_speed, memory;

static const char *slow_zone;
static double slow_factor = 1;

/* GAME_SLOW=ZONE:FACTOR, read once at start. */
static void read_slow(void)
{
	const char *v = getenv("GAME_SLOW");
	const char *colon = v ? strchr(v, ':') : NULL;
	if (!colon)
		return;
	static char zone[32];
	size_t n = (size_t)(colon - v) < sizeof zone - 1 ? (size_t)(colon - v) : sizeof zone - 1;
	memcpy(zone, v, n);
	zone[n] = 0;
	double f = atof(colon + 1);
	if (f > 0) {
		slow_zone = zone;
		slow_factor = f;
	}
}


static void sleep_us(long us)
{
	if (full_speed)
		return;
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

/* sleep_us() in the named zone, slowed by GAME_SLOW. */
static void sleep_in(const char *zone, long us)
{
	if (slow_zone && strcmp(zone, slow_zone) == 0)
		us = (long)(us * slow_factor);
	sleep_us(us);
}

/* The "framebuffer": a gradient sky and ground with shapes that move,
 * stored bottom-up (row 0 is the bottom) as glReadPixels returns it. */
#define SHOT_W 320
#define SHOT_H 180
static unsigned char shot[SHOT_W * SHOT_H * 4];

static void draw_shot(int f)
{
	for (int y = 0; y < SHOT_H; y++) {
		unsigned char *row = shot + (size_t)(SHOT_H - 1 - y) * SHOT_W * 4;
		int sky = y < SHOT_H * 5 / 8;
		for (int x = 0; x < SHOT_W; x++) {
			unsigned char *p = row + x * 4;
			p[0] = (unsigned char)(sky ? 40 + y / 2 : 60 + (((x + f * 2) / 16 + y / 8) % 2) * 20);
			p[1] = (unsigned char)(sky ? 90 + y / 2 : 120 + y / 6);
			p[2] = (unsigned char)(sky ? 200 + y / 8 : 40);
			p[3] = 255;
		}
	}
	for (int i = 0; i < 5; i++) { /* balls and boxes crossing the screen */
		int cx = (i * 67 + f * (2 + i)) % (SHOT_W + 40) - 20, cy = 40 + i * 22;
		int r = 10 + 3 * i;
		for (int y = cy - r; y <= cy + r; y++)
			for (int x = cx - r; x <= cx + r; x++) {
				if (x < 0 || y < 0 || x >= SHOT_W || y >= SHOT_H)
					continue;
				if (i % 2 == 0 && (x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r)
					continue;
				unsigned char *p = shot + ((size_t)(SHOT_H - 1 - y) * SHOT_W + x) * 4;
				int shade = 160 + (x - cx) * 40 / r;
				p[0] = (unsigned char)(shade * (i + 2) / 7);
				p[1] = (unsigned char)(shade * (6 - i) / 7);
				p[2] = (unsigned char)(shade / 2);
			}
	}
}

/* Scratch memory of a job or a pass, with --memory. */
static void *scratch(size_t size)
{
	if (!memory)
		return NULL;
	void *p = malloc(size);
	PROFEV_ALLOC_S(p, size, 16);
	return p;
}

static void scratch_free(void *p)
{
	if (!p)
		return;
	PROFEV_FREE_S(p, 16);
	free(p);
}

static void simulate(int first, int last)
{
	PROFEV_ZONE(physics, "integrate");
	for (int i = first; i < last; i++) {
		struct entity *e = &entities[i];
		e->vy -= 0.01f;
		e->x += e->vx;
		e->y += e->vy;
		if (e->y < 0) {
			e->y = -e->y;
			e->vy = -e->vy * 0.9f;
		}
	}
	{
		PROFEV_ZONE(physics, "collide");
		/* Only this worker's own entities: the others are being moved. */
		float acc = 0;
		int n = last - first;
		for (int i = first; i < last && n > 0; i++)
			for (int j = 0; j < 64; j++)
				acc += sqrtf(fabsf(entities[i].x - entities[first + (i - first + j) % n].x));
		if (acc < 0)
			puts("impossible");
	}
}

static void *worker(void *arg)
{
	int id = (int)(long)arg, seen = -1;
	char name[16];
	snprintf(name, sizeof name, "worker %d", id);
	profev_thread_name(name);
	for (;;) {
		pthread_mutex_lock(&lock);
		while (job_frame == seen && !quit)
			pthread_cond_wait(&go, &lock);
		if (quit) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		seen = job_frame;
		int n = nentities;
		pthread_mutex_unlock(&lock);
		{
			PROFEV_ZONE(physics, "job");
			void *tmp = scratch(64 + (size_t)n * 4);
			simulate(n * id / WORKERS, n * (id + 1) / WORKERS);
			scratch_free(tmp);
		}
		pthread_mutex_lock(&lock);
		if (--jobs_left == 0)
			pthread_cond_broadcast(&done);
		pthread_mutex_unlock(&lock);
	}
}

static void *renderer(void *arg)
{
	(void)arg;
	profev_thread_name("render");
	for (;;) {
		pthread_mutex_lock(&lock);
		while (render_frame == rendered && !quit)
			pthread_cond_wait(&go, &lock);
		if (quit) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		int f = render_frame, n = nentities;
		pthread_mutex_unlock(&lock);
		{
			PROFEV_ZONE(render, "draw frame");
			{
				PROFEV_ZONE(render, "cull");
				sleep_in("cull", 300);
			}
			for (int pass = 0; pass < 3; pass++) {
				static const char *const passes[] = { "shadows", "opaque", "post" };
				PROFEV_ZONE_DYN(render, passes[pass], strlen(passes[pass]));
				void *tmp = scratch(256 + (size_t)pass * 128);
				sleep_in(passes[pass], 200 + n / 8);
				scratch_free(tmp);
			}
			PROFEV_COUNTER(render, "draw calls", n / 4 + 17);
		}
		pthread_mutex_lock(&lock);
		rendered = f;
		pthread_cond_broadcast(&done);
		pthread_mutex_unlock(&lock);
	}
}

static void *mixer(void *arg)
{
	(void)arg;
	profev_thread_name("audio");
	double phase = 0;
	while (!__atomic_load_n(&quit, __ATOMIC_RELAXED)) {
		{
			PROFEV_ZONE(audio, "mix");
			float buf[256];
			for (int i = 0; i < 256; i++, phase += 0.05)
				buf[i] = (float)sin(phase);
			PROFEV_COUNTER(audio, "level", fabs(buf[0]));
		}
		sleep_us(2000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int frames = argc > 1 && argv[1][0] != '-' ? atoi(argv[1]) : 120;
	double seconds = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--full-speed"))
			full_speed = 1;
		else if (!strcmp(argv[i], "--memory"))
			memory = 1;
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
	}
	read_slow();
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	pthread_t w[WORKERS], r, a;
	profev_thread_name("main");
	for (int i = 0; i < MAX_ENTITIES; i++)
		entities[i] = (struct entity){ (float)(i % 97), (float)(i % 13) + 1, 0.1f, 0.0f };
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, (void *)i);
	pthread_create(&r, NULL, renderer, NULL);
	pthread_create(&a, NULL, mixer, NULL);

	PROFEV_MESSAGE(game, "level %d: %d entities", 1, nentities);
	for (frame = 0; !frames || frame < frames; frame++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (seconds > 0 && (t0.tv_sec - start.tv_sec) + (t0.tv_nsec - start.tv_nsec) / 1e9 >= seconds)
			break;
		{
			PROFEV_ZONE(game, "frame");
#ifdef GAME_ARGS
			PROFEV_ARG_INT("frame", frame);
			PROFEV_ARG_INT("entities", nentities);
#endif
			{
				PROFEV_ZONE(game, "input");
				sleep_in("input", 100);
			}
			PROFEV_ZONE_BEGIN(physics, "simulate");
			pthread_mutex_lock(&lock);
			job_frame = frame;
			jobs_left = WORKERS;
			pthread_cond_broadcast(&go);
			while (jobs_left > 0)
				pthread_cond_wait(&done, &lock);
			pthread_mutex_unlock(&lock);
			PROFEV_ZONE_END(physics);

			PROFEV_ZONE(render, "wait for render");
			pthread_mutex_lock(&lock);
			while (rendered != render_frame)
				pthread_cond_wait(&done, &lock);
			render_frame = frame;
			pthread_cond_broadcast(&go);
			pthread_mutex_unlock(&lock);
		}
		if (frame % 40 == 39 && nentities * 2 <= MAX_ENTITIES) {
			pthread_mutex_lock(&lock); /* the renderer reads it */
			nentities *= 2;
			pthread_mutex_unlock(&lock);
			PROFEV_MESSAGE(game, "level %d: %d entities", frame / 40 + 2, nentities);
			PROFEV_INSTANT(game, "level up");
		}
		PROFEV_COUNTER(game, "entities", nentities);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		PROFEV_COUNTER(game, "frame ms", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
		draw_shot(frame);
		PROFEV_FRAME_IMAGE(shot, SHOT_W, SHOT_H, 0, 1);
		PROFEV_FRAME_MARK();
	}
	pthread_mutex_lock(&lock);
	while (rendered != render_frame)
		pthread_cond_wait(&done, &lock);
	__atomic_store_n(&quit, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&go);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	pthread_join(r, NULL);
	pthread_join(a, NULL);
	printf("%d frames, %d entities\n", frame, nentities);
	return 0;
}
