/* The program that bench_sample profiles (built by tests/bench/sample.sh
 * with -O2 -fomit-frame-pointer): a fixed amount of work at a stack depth
 * of about 20 (recursion, then memcpy and qsort in libc), timed by itself.
 * Prints "work SECONDS cpu SECONDS user SECONDS sys SECONDS csw N icsw N"
 * on stdout: its wall time for the work, its process's CPU time and the
 * user and kernel parts of it, its voluntary and involuntary context
 * switches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static char src[1 << 15], dst[1 << 15];
static int arr[2048], work[2048];
volatile long sink;

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void leaf(long n)
{
	for (long i = 0; i < n; i++) {
		if (i % 64 == 0) {
			memcpy(dst, src, sizeof dst);
			src[i % sizeof src] = dst[(i + 1) % sizeof dst];
		} else if (i % 64 == 1) {
			memcpy(work, arr, sizeof work);
			qsort(work, 2048, sizeof *work, cmp);
		} else {
			for (int k = 0; k < 2000; k++)
				sink += k ^ i;
		}
	}
}

__attribute__((noinline)) static void descend(int depth, long n)
{
	volatile char pad[16];
	pad[depth & 15] = (char)depth;
	if (depth)
		descend(depth - 1, n);
	else
		leaf(n);
	sink += pad[depth & 15];
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	for (int i = 0; i < 2048; i++)
		arr[i] = rand();
	double t0 = now();
	descend(17, n);
	double t1 = now();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6;
	double sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	printf("work %.6f cpu %.6f user %.6f sys %.6f csw %ld icsw %ld\n", t1 - t0, user + sys, user, sys,
	       ru.ru_nvcsw, ru.ru_nivcsw);
	return 0;
}
