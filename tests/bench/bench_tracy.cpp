/*
 * bench_tracy - Tracy's ZoneScoped (profev's <tracy/Tracy.hpp>) against
 * PROFEV_ZONE, in the same run and the same program.
 *
 *   bench_tracy          record this program twice with libprofev's
 *                        recorder and print the table
 *
 * PROFEV_BENCH_TINY=1: a few rounds and a few thousand pairs.
 *
 * Both loops run under the recorder: best-of-bursts time per zone pair, and
 * instructions per zone pair from callgrind (valgrind under the recorder,
 * collecting only the two loops). The goal: ZoneScoped within 2
 * instructions of PROFEV_ZONE.
 */
#define TRACY_ENABLE 1
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "profev.h"
#include "bench.h"
#include "callgrind.h"
#include "profev_record.h"
#include "tracy/Tracy.hpp"

PROFEV_CATEGORY(hot, "measured zones");

enum { BURST = 20000, CG_PAIRS = 100000 };
static int rounds = 50;

extern "C" __attribute__((noinline)) void profev_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		PROFEV_ZONE(hot, "z");
		__asm__ __volatile__("" ::: "memory");
	}
}

extern "C" __attribute__((noinline)) void tracy_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		ZoneScopedN("z");
		__asm__ __volatile__("" ::: "memory");
	}
}

/* Through a volatile, so that the compiler makes no clone of the loops for
 * a constant count: callgrind collects the functions by name. */
static volatile long cg_pairs = CG_PAIRS, burst = BURST;

static double now()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Best of rounds bursts that fit the buffers, in ns per pair; the two loops
 * alternate so that a slow spell of the machine hits both. */
static int mode_hot()
{
	double best_p = 1e9, best_t = 1e9;
	for (int r = 0; r < rounds; r++) {
		double t0 = now();
		profev_pairs(burst);
		double t1 = now();
		tracy_pairs(burst);
		double t2 = now();
		if ((t1 - t0) < best_p)
			best_p = t1 - t0;
		if ((t2 - t1) < best_t)
			best_t = t2 - t1;
		usleep(2000); /* lets the recorder drain the ring */
	}
	best_p *= 1e9 / burst;
	best_t *= 1e9 / burst;
	printf("  %-44s %8.2f ns\n", "PROFEV_ZONE pair, burst", best_p);
	printf("  %-44s %8.2f ns  (%.2fx)\n", "Tracy ZoneScoped pair, burst", best_t, best_t / best_p);
	return 0;
}

static int mode_callgrind()
{
	/* The thread's ring is set up by its first event: not in either loop. */
	PROFEV_INSTANT(hot, "warm up");
	profev_pairs(cg_pairs);
	tracy_pairs(cg_pairs);
	return 0;
}

static const char *self_path()
{
	static char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n < 0)
		return "/proc/self/exe";
	buf[n] = 0;
	return buf;
}

static int record(char **argv, const char *out, int quiet)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	struct profev_record_opts o;
	memset(&o, 0, sizeof o);
	o.argv = argv;
	o.out_fd = fd;
	o.buffer_bytes = 16u << 20;
	o.child_stdout = quiet ? open("/dev/null", O_WRONLY) : -1;
	struct profev_error err;
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	if (!r) {
		fprintf(stderr, "bench_tracy: %s\n", err.message);
		close(fd);
		return -1;
	}
	struct profev_record_result res;
	int rc = profev_recorder_run(r, &res);
	if (rc < 0)
		fprintf(stderr, "bench_tracy: %s\n", profev_recorder_error(r)->message);
	profev_recorder_free(r);
	if (o.child_stdout >= 0)
		close(o.child_stdout);
	close(fd);
	return rc < 0 || res.status != 0 ? -1 : 0;
}

/* Instructions per pair of fn's loop in callgrind's file, or 0 when not
 * measured (bench_cannot() said why). */
static double per_pair(const char *file, const char *fn)
{
	unsigned long long ir = callgrind_ir(file, fn);
	if (ir && ir < (unsigned long long)cg_pairs) {
		bench_cannot("instructions per zone pair", "callgrind counted %llu instructions of %s() in %ld pairs",
			     ir, fn, (long)cg_pairs);
		return 0;
	}
	return (double)ir / (double)cg_pairs;
}

int main(int argc, char **argv)
{
	if (bench_tiny()) { /* the recorded children see it too */
		rounds = 3;
		cg_pairs = 1000;
		burst = 2000;
	}
	if (argc > 1 && strcmp(argv[1], "hot") == 0)
		return mode_hot();
	if (argc > 1 && strcmp(argv[1], "callgrind") == 0)
		return mode_callgrind();

	char self[4096], tmp[256];
	snprintf(self, sizeof self, "%s", self_path());
	snprintf(tmp, sizeof tmp, "%s/profev-bench-tracy-%d.bin", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	printf("Tracy's ZoneScoped against PROFEV_ZONE, both under the recorder\n");
	fflush(stdout);
	char hot[] = "hot";
	char *hot_argv[] = { self, hot, NULL };
	if (record(hot_argv, tmp, 0) < 0)
		bench_cannot("the zone pairs' times", "the recording failed");
	fflush(stdout);
	int status = 0;
	if (access("/usr/bin/valgrind", X_OK) != 0) {
		bench_cannot("instructions per zone pair", "valgrind not found (/usr/bin/valgrind)");
	} else {
		char out[300];
		snprintf(out, sizeof out, "--callgrind-out-file=%s.cg", tmp);
		char valgrind[] = "valgrind", quiet[] = "-q", tool[] = "--tool=callgrind", t1[] = "--toggle-collect=profev_pairs",
		     t2[] = "--toggle-collect=tracy_pairs", cg[] = "callgrind";
		char *cg_argv[] = { valgrind, quiet, tool, out, t1, t2, self, cg, NULL };
		if (record(cg_argv, tmp, 1) == 0) {
			snprintf(out, sizeof out, "%s.cg", tmp);
			double p = per_pair(out, "profev_pairs");
			double t = per_pair(out, "tracy_pairs");
			if (p && t) {
				printf("  %-44s %8.1f\n", "instructions per PROFEV_ZONE pair (callgrind)", p);
				printf("  %-44s %8.1f  (%+.1f; goal: within 2)\n",
				       "instructions per ZoneScoped pair (callgrind)", t, t - p);
				if (t - p > 2 || p - t > 2)
					status = 1; /* measured, and off the goal */
			}
			unlink(out);
		} else {
			bench_cannot("instructions per zone pair", "valgrind under the recorder failed");
		}
	}
	unlink(tmp);
	return status || bench_status();
}
