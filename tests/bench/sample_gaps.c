/* The second program that bench_sample profiles (built by
 * tests/bench/sample.sh with -O2 -fomit-frame-pointer): it reads the
 * clock in a tight loop 20 frames deep for a given CPU time and keeps the
 * gaps between two reads, which are the time the program lost to whatever
 * interrupted it. A sample's gap is the kernel's work for it in the
 * program's time (the timer interrupt, the callchain, the stack copy, a
 * wakeup of the recorder); gaps over 200 us are the program's thread
 * off its CPU (preemption by the neighbours), counted apart. This measures
 * a recorder's cost per sample on a loaded machine, where the program's
 * CPU time also carries the neighbours' cache damage.
 * Prints "gaps N med NS mean NS share F off N" on stdout: the gaps of
 * 0.5 to 200 us, their median and mean, the share of the CPU time they
 * took, and the longer ones. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static uint64_t ticks(void)
{
	return __rdtsc();
}
#else
static uint64_t ticks(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#endif

#define MAX_GAPS (1 << 20)
static uint32_t gaps[MAX_GAPS];
static int ngaps;
static long off;
static double per_ns; /* ticks per ns */
volatile long sink;

static double seconds(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void loop(double cpu_s)
{
	uint64_t lo = (uint64_t)(500 * per_ns), hi = (uint64_t)(200000 * per_ns);
	double end = seconds(CLOCK_PROCESS_CPUTIME_ID) + cpu_s;
	uint64_t prev = ticks();
	for (long i = 1;; i++) {
		uint64_t t = ticks(), d = t - prev;
		prev = t;
		if (d > lo) {
			if (d >= hi)
				off++;
			else if (ngaps < MAX_GAPS)
				gaps[ngaps++] = (uint32_t)((double)d / per_ns);
		}
		if (i % 100000 == 0) {
			if (seconds(CLOCK_PROCESS_CPUTIME_ID) > end)
				break;
			prev = ticks();
		}
	}
}

__attribute__((noinline)) static void descend(int depth, double s)
{
	volatile char pad[16];
	pad[depth & 15] = (char)depth;
	if (depth)
		descend(depth - 1, s);
	else
		loop(s);
	sink += pad[depth & 15];
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 0.5;
	double t0 = seconds(CLOCK_MONOTONIC);
	uint64_t c0 = ticks();
	while (seconds(CLOCK_MONOTONIC) - t0 < 0.02)
		;
	per_ns = (double)(ticks() - c0) / ((seconds(CLOCK_MONOTONIC) - t0) * 1e9);
	double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
	descend(17, s);
	double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	qsort(gaps, (size_t)ngaps, sizeof *gaps, by_u32);
	double sum = 0;
	for (int i = 0; i < ngaps; i++)
		sum += gaps[i];
	printf("gaps %d med %u mean %.0f share %.5f off %ld\n", ngaps, ngaps ? gaps[ngaps / 2] : 0,
	       ngaps ? sum / ngaps : 0, sum * 1e-9 / cpu, off);
	return 0;
}
