/* The manual GPU API's test program (tests 143, 345): a GPU clock of 2.5 ns
 * per tick from a known pair of readings, three zones a frame (a parent and
 * the two it holds), their times on the CPU clock printed as expected. */
#include <profev_gpu.h>
#include <stdio.h>
#include <time.h>
PROFEV_CATEGORY(render, "drawing");
static unsigned long long mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}
#define GPU0 123456789ull
/* The GPU tick at CPU time ns: 2.5 ns per tick from (GPU0, cpu0). */
static unsigned long long cpu0;
static unsigned long long tick(unsigned long long ns) { return GPU0 + (ns - cpu0) * 2 / 5; }
static unsigned long long back(unsigned long long g) { return cpu0 + (g - GPU0) * 5 / 2; }
int main(void)
{
	if (profev_gpu_context("broken", 0.0, 1, 1) != -1)
		return 2;
	cpu0 = mono();
	int ctx = profev_gpu_context("compute", 2.5, GPU0, cpu0);
	if (ctx != 0)
		return 3;
	for (int f = 0; f < 10; f++) {
		PROFEV_ZONE(render, "frame");
		unsigned long long now = mono() + 1000000;
		unsigned long long b = tick(now), e = tick(now + 400000);
		/* a parent, then the two zones it holds, as issued */
		PROFEV_GPU_ZONE_AT(ctx, render, "pass", b, e);
		PROFEV_GPU_ZONE_AT(ctx, render, "shadow", b + 4, b + 40000);
		PROFEV_GPU_ZONE_AT(ctx, render, "opaque", b + 40000, e - 4);
		printf("pass %llu %llu\nshadow %llu %llu\nopaque %llu %llu\n", back(b), back(e), back(b + 4),
		       back(b + 40000), back(b + 40000), back(e - 4));
		PROFEV_FRAME_MARK();
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
	profev_gpu_calibrate(ctx, GPU0 - 10, mono(), 0); /* GPU time went backwards: refused */
	profev_gpu_lost(ctx, 5);
	return 0;
}
