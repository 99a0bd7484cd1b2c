/*
 * bench_client - cost of the instrumentation, with the bare loop beside it.
 *
 *   bench_client [SUSTAINED_ZONES]      run everything, print the table
 *
 * PROFEV_BENCH_TINY=1: every measure once, on a few thousand events.
 * The bare loop reads the TSC twice and stores two 40-byte records into a
 * thread-local ring: what a zone pair cannot go below. The traced cases run
 * this same program again under the recorder (libprofev's pfrec engine, in
 * this process), so pfrec's cost is measured where it runs; the peak RSS of
 * this process while recording is the recorder's memory. Instructions per
 * zone pair come from callgrind when valgrind is installed. Callstack
 * captures are timed at depths 1, 10, 16 and 32, below 24 frames of
 * recursion, with the client's cached unwinder and, for reference, with
 * _Unwind_Backtrace alone (PROFEV_UNWIND=libgcc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "profev.h"
#include "bench.h"
#include "callgrind.h"
#include "profev_record.h"

PROFEV_CATEGORY(hot, "measured zones");
PROFEV_CATEGORY(cold, "a category the benchmark disables");

/* Zone pairs per burst: 512 KiB of records, a quarter of the 2 MiB buffer,
 * so neither waits for the flush thread. */
#define BURST 16384
#define HOT_BUFFER (2u << 20)
static int rounds = 40;
/* Iterations of each function counted under callgrind. */
static long cg_iter = 100000;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the bare loop ---- */
/* The counter the client reads, read bare. */
static inline uint64_t bare_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
#error "bench_client: no bare counter read for this architecture"
#endif
}

struct bare_rec {
	uint64_t ts, a, b, c;
	uint32_t d, e;
};
_Static_assert(sizeof(struct bare_rec) == 40, "40-byte records");
#define BARE_N 8192
static __thread struct bare_rec bare_ring[BARE_N];
static __thread unsigned bare_pos;

__attribute__((noinline)) static void bare_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		struct bare_rec *r = &bare_ring[bare_pos++ & (BARE_N - 1)];
		r->ts = bare_ticks();
		r->a = 2;
		r = &bare_ring[bare_pos++ & (BARE_N - 1)];
		r->ts = bare_ticks();
		r->a = 3;
		__asm__ __volatile__("" ::: "memory");
	}
}

__attribute__((noinline)) static void zone_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		PROFEV_ZONE(hot, "z");
		__asm__ __volatile__("" ::: "memory");
	}
}

/* The same zone from a call site without a source location (the site
 * PROFEV_ZONE made before locations existed): locations cost nothing per
 * event if both loops take the same instructions. */
__attribute__((noinline)) static void noloc_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		static struct profev_site site = { 0, &profev_cat_hot, "z", PROFEV__R_BEGIN, 0, 0, 0 };
		PROFEV__SCOPED(zone, profev__begin(&profev_cat_hot, &site));
		__asm__ __volatile__("" ::: "memory");
	}
}

/* n arguments of one open zone: an argument's own cost. */
__attribute__((noinline)) static void arg_events(long n)
{
	PROFEV_ZONE(hot, "args");
	for (long i = 0; i < n; i++) {
		PROFEV_ARG_INT("i", i);
		__asm__ __volatile__("" ::: "memory");
	}
}

/* An uncontended mutex taken and released, instrumented, and the same
 * without the macros. */
#include <pthread.h>
static pthread_mutex_t bench_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void lock_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		PROFEV_LOCK_WAIT(&bench_lock, "bench");
		pthread_mutex_lock(&bench_lock);
		PROFEV_LOCK_ACQUIRED(&bench_lock);
		__asm__ __volatile__("" ::: "memory");
		PROFEV_LOCK_RELEASED(&bench_lock);
		pthread_mutex_unlock(&bench_lock);
	}
}

__attribute__((noinline)) static void mutex_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&bench_lock);
		__asm__ __volatile__("" ::: "memory");
		pthread_mutex_unlock(&bench_lock);
	}
}

__attribute__((noinline)) static void cold_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		PROFEV_ZONE(cold, "z");
		__asm__ __volatile__("" ::: "memory");
	}
}

__attribute__((noinline)) static void empty_loop(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

/* ---- callstacks: a memory event with a capture of stack_depth frames,
 * taken below 24 frames of recursion so that every depth is available ---- */
static int stack_depth;

__attribute__((noinline)) static void alloc_events(long n)
{
	for (long i = 0; i < n; i++) {
		PROFEV_ALLOC((void *)(uintptr_t)(i + 1), 16);
		__asm__ __volatile__("" ::: "memory");
	}
}

__attribute__((noinline)) static void captures(long n)
{
	for (long i = 0; i < n; i++) {
		PROFEV_ALLOC_S((void *)(uintptr_t)(i + 1), 16, stack_depth);
		__asm__ __volatile__("" ::: "memory");
	}
}

__attribute__((noinline)) static void below(int k, void (*f)(long), long n)
{
	if (k > 0)
		below(k - 1, f, n);
	else
		f(n);
	__asm__ __volatile__("" ::: "memory");
}

static void deep_captures(long n)
{
	below(24, captures, n);
}

static void deep_allocs(long n)
{
	below(24, alloc_events, n);
}

/* Best of rounds bursts, in ns per iteration; the flush thread gets time
 * between bursts so each one starts with empty buffers. */
static double best(void (*f)(long), long n)
{
	double b = 1e9;
	for (int i = 0; i < rounds; i++) {
		double t0 = now();
		f(n);
		double t = (now() - t0) * 1e9 / (double)n;
		if (t < b)
			b = t;
		struct timespec pause = { 0, 5000000 };
		nanosleep(&pause, NULL);
	}
	return b;
}

/* ---- traced modes (run under the recorder) ---- */

/* Captures: 2048 per burst, at most 536 bytes each, fit the buffer. */
static int mode_captures(const char *how)
{
	double bare = best(bare_pairs, BURST);
	static const int depths[] = { 1, 10, 16, 32 };
	for (unsigned i = 0; i < sizeof depths / sizeof depths[0]; i++) {
		stack_depth = depths[i];
		double t = best(deep_captures, 2048);
		char what[64];
		snprintf(what, sizeof what, "memory event + callstack, depth %d%s", depths[i], how);
		printf("  %-44s %8.2f ns  (bare loop %.2f ns)\n", what, t, bare);
	}
	return 0;
}

static int mode_hot(void)
{
	double bare = best(bare_pairs, BURST);
	double zone = best(zone_pairs, BURST);
	printf("  %-44s %8.2f ns  %5.2fx  (bare loop %.2f ns)\n",
	       "zone pair, burst in the buffer", zone, zone / bare, bare);
	double noloc = best(noloc_pairs, BURST);
	printf("  %-44s %8.2f ns  %5.2fx  (with its location %.2f ns)\n",
	       "zone pair, call site without a location", noloc, noloc / bare, zone);
	double arg = best(arg_events, BURST * 2);
	printf("  %-44s %8.2f ns  %5.2fx  (zone pair %.2f ns)\n", "argument (PROFEV_ARG_INT) in an open zone",
	       arg, arg / zone, zone);
	double lock = best(lock_pairs, BURST / 3);
	double mutex = best(mutex_pairs, BURST * 2);
	printf("  %-44s %8.2f ns  %5.2fx  (zone pair %.2f ns; mutex alone %.2f ns)\n",
	       "uncontended lock pair, instrumented", lock, lock / zone, zone, mutex);
	double empty = best(empty_loop, BURST * 100);
	double cold = best(cold_pairs, BURST * 100);
	printf("  %-44s %8.2f ns  (empty loop %.2f ns)\n", "loop with a zone, disabled category",
	       cold, empty);
	double plain = best(deep_allocs, 2048);
	printf("  %-44s %8.2f ns  (bare loop %.2f ns)\n", "memory event, no callstack", plain, bare);
	return mode_captures("");
}

static long sustained_zones = 30000000;

static int mode_sustained(void)
{
	double bare = best(bare_pairs, BURST);
	double t0 = now();
	zone_pairs(sustained_zones);
	double t = (now() - t0) * 1e9 / (double)sustained_zones;
	printf("  %-44s %8.2f ns  %5.2fx  (bare loop %.2f ns)\n",
	       "zone pair, sustained, in the traced loop", t, t / bare, bare);
	fflush(stdout);
	return 0;
}

/* Under callgrind: each function once first, uncounted (a call site's
 * first use registers it, a thread's first event makes its ring), then
 * 100000 iterations counted, so the figures are per iteration. */
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define COUNTED_ONLY 1
#else
#define CALLGRIND_TOGGLE_COLLECT
#define COUNTED_ONLY 0
#endif
static int mode_callgrind(void)
{
	void (*const fs[])(long) = { zone_pairs, bare_pairs, noloc_pairs, arg_events, lock_pairs };
	for (unsigned i = 0; COUNTED_ONLY && i < sizeof fs / sizeof fs[0]; i++)
		fs[i](1);
	CALLGRIND_TOGGLE_COLLECT;
	for (unsigned i = 0; i < sizeof fs / sizeof fs[0]; i++)
		fs[i](cg_iter);
	CALLGRIND_TOGGLE_COLLECT;
	return 0;
}

/* ---- the driver ---- */

static const char *self_path(void)
{
	static char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n < 0)
		return "/proc/self/exe";
	buf[n] = 0;
	return buf;
}

static int pipe_only; /* the sustained run's transport */

static int record(char **argv, const char *categories, uint32_t buffer, const char *out,
		  struct profev_record_result *res, int quiet_child)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = fd;
	o.categories = categories;
	o.buffer_bytes = buffer;
	o.child_stdout = quiet_child ? open("/dev/null", O_WRONLY) : -1;
	o.pipe_only = pipe_only;
	struct profev_error err;
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	if (!r) {
		fprintf(stderr, "bench_client: %s\n", err.message);
		close(fd);
		return -1;
	}
	int rc = profev_recorder_run(r, res);
	if (rc < 0)
		fprintf(stderr, "bench_client: %s\n", profev_recorder_error(r)->message);
	profev_recorder_free(r);
	if (o.child_stdout >= 0)
		close(o.child_stdout);
	close(fd);
	return rc;
}

static double cpu_seconds(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The tight loop under the recorder, through shared rings or the pipe.
 * 1 if nothing was lost. In a process of its own (sustained()): its peak
 * RSS is then the recorder's in this run, not the 64 MiB buffer's of the
 * callgrind run before it, whose pages the recorder read. */
static int sustained_run(const char *self, const char *tmp)
{
	struct profev_record_result res;
	printf("\nsustained: %ld zone pairs under the recorder, default 1 MiB buffer, %s\n",
	       sustained_zones, pipe_only ? "through the pipe (pfrec --pipe)" : "shared rings (default)");
	fflush(stdout);
	char zones[32];
	snprintf(zones, sizeof zones, "%ld", sustained_zones);
	char *sus_argv[] = { (char *)self, "sustained", zones, NULL };
	double t0 = now(), rec0 = cpu_seconds(RUSAGE_SELF), prog0 = cpu_seconds(RUSAGE_CHILDREN);
	if (record(sus_argv, NULL, 0, tmp, &res, 0) < 0) {
		bench_cannot("the sustained run", "the recording failed");
		return 0;
	}
	double wall = now() - t0, rec = cpu_seconds(RUSAGE_SELF) - rec0;
	double prog = cpu_seconds(RUSAGE_CHILDREN) - prog0;
	struct stat st;
	stat(tmp, &st);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	uint64_t events = res.stats.events;
	if (!events || !st.st_size) {
		bench_cannot("the sustained run", "the recorder wrote %llu events, %lld bytes",
			     (unsigned long long)events, (long long)st.st_size);
		unlink(tmp);
		return 0;
	}
	printf("  %-44s %8.2f ns  (program start to trace closed)\n", "zone pair, end to end",
	       wall * 1e9 / (double)sustained_zones);
	printf("  %-44s %8.1f M/s\n", "events reaching the trace file", events / wall / 1e6);
	printf("  %-44s %8.2f ns  (the program, flush thread included: %.2f ns)\n",
	       "recorder CPU time per event", rec * 1e9 / (double)events, prog * 1e9 / (double)events);
	printf("  %-44s %8llu     (expected %ld)\n", "events in the trace",
	       (unsigned long long)events, 2 * sustained_zones);
	printf("  %-44s %8llu\n", "events lost", (unsigned long long)res.stats.lost);
	printf("  %-44s %8.4f bytes\n", "trace size per event", (double)st.st_size / (double)events);
	/* The recorder of a program that sends no images and records no
	 * samples: its rings and chunk buffers, a few MiB. */
	int rss_ok = ru.ru_maxrss <= 16 * 1024;
	if (!pipe_only)
		printf("  %-44s %8.1f MiB  (goal <= 16)\n", "recorder peak RSS", ru.ru_maxrss / 1024.0);
	fflush(stdout);
	unlink(tmp);
	return events == 2 * (uint64_t)sustained_zones && res.stats.lost == 0 && rss_ok;
}

static int sustained(const char *self, const char *tmp)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int ok = sustained_run(self, tmp);
		fflush(stdout);
		_exit(ok && !bench_status() ? 0 : 1);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		bench_cannot("the sustained run", "cannot fork: %s", strerror(errno));
		return 0;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Instructions per iteration of fn's loop in callgrind's file; 0 when
 * not measured (bench_cannot() said why). A loop takes at least one
 * instruction per iteration: fewer means it was not collected. */
static double per_iteration(const char *file, const char *fn)
{
	unsigned long long ir = callgrind_ir(file, fn);
	if (ir && ir < (unsigned long long)cg_iter) {
		char what[64];
		snprintf(what, sizeof what, "the instructions of %s()", fn);
		bench_cannot(what, "callgrind counted %llu in %ld iterations: its loop was not collected",
			     ir, cg_iter);
		return 0;
	}
	return (double)ir / (double)cg_iter;
}

/* Instructions per iteration of the measured loops, from callgrind run
 * under the recorder. */
static void instructions(const char *self, const char *tmp)
{
	struct profev_record_result res = { 0 };
	if (access("/usr/bin/valgrind", X_OK) != 0) {
		bench_cannot("instructions per zone pair", "valgrind not found (/usr/bin/valgrind)");
		return;
	}
	char out[300];
	snprintf(out, sizeof out, "--callgrind-out-file=%s.cg", tmp);
	/* With callgrind.h the program's client requests start and stop the
	 * collection; without, these toggles do, and count the first calls
	 * too. Both at once would toggle twice: nothing collected. */
	char *counted_argv[] = { "valgrind", "--tool=callgrind", out, "--collect-atstart=no",
				 (char *)self, "callgrind", NULL };
	char *toggled_argv[] = { "valgrind", "--tool=callgrind", out, "--toggle-collect=zone_pairs*",
				 "--toggle-collect=bare_pairs*", "--toggle-collect=noloc_pairs*",
				 "--toggle-collect=arg_events*", "--toggle-collect=lock_pairs*",
				 (char *)self, "callgrind", NULL };
	char **cg_argv = COUNTED_ONLY ? counted_argv : toggled_argv;
	if (record(cg_argv, NULL, 64u << 20, tmp, &res, 1) != 0 || res.status != 0) {
		bench_cannot("instructions per zone pair", "valgrind under the recorder failed (status %d)",
			     res.status);
		return;
	}
	snprintf(out, sizeof out, "%s.cg", tmp);
	double z = per_iteration(out, "zone_pairs"), b = per_iteration(out, "bare_pairs");
	double nl = per_iteration(out, "noloc_pairs"), a = per_iteration(out, "arg_events");
	double l = per_iteration(out, "lock_pairs");
	if (z && b)
		printf("  %-44s %8.1f     (bare loop %.1f)\n", "instructions per zone pair (callgrind)", z, b);
	if (z && nl)
		printf("  %-44s %8.1f     (site without one %.1f)\n",
		       "instructions per zone pair with its location", z, nl);
	if (a)
		printf("  %-44s %8.1f\n", "instructions per argument (callgrind)", a);
	if (l)
		printf("  %-44s %8.1f\n", "instructions per instrumented lock pair", l);
	unlink(out);
}

int main(int argc, char **argv)
{
	if (bench_tiny()) { /* the recorded children see it too */
		rounds = 2;
		cg_iter = 1000;
		sustained_zones = 20000;
	}
	if (argc > 2)
		sustained_zones = atol(argv[2]);
	if (argc > 1 && strcmp(argv[1], "hot") == 0)
		return mode_hot();
	if (argc > 1 && strcmp(argv[1], "sustained") == 0)
		return mode_sustained();
	if (argc > 1 && strcmp(argv[1], "callgrind") == 0)
		return mode_callgrind();
	if (argc > 1 && strcmp(argv[1], "captures-libgcc") == 0)
		return mode_captures(", libgcc");
	if (argc > 1)
		sustained_zones = atol(argv[1]);

	const char *self = self_path();
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s/profev-bench-client-%d.bin",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	struct profev_record_result res;

	printf("client hot path (best of %d bursts of %d pairs)\n", rounds, BURST);
	double bare = best(bare_pairs, BURST);
	double empty = best(empty_loop, BURST * 100);
	double off = best(zone_pairs, BURST * 100);
	/* Raw loop times: the difference is below the timer's noise. */
	printf("  %-44s %8.2f ns  (empty loop %.2f ns)\n", "loop with a zone, not started by pfrec",
	       off, empty);
	printf("  %-44s %8.2f ns\n", "bare loop: 2 TSC reads + 2 40-byte stores", bare);
	fflush(stdout);
	char *hot_argv[] = { (char *)self, "hot", NULL };
	if (record(hot_argv, "-cold", HOT_BUFFER, tmp, &res, 0) < 0)
		return 1;
	fflush(stdout);
	/* The same captures through _Unwind_Backtrace alone, for reference. */
	char *lg_argv[] = { (char *)self, "captures-libgcc", NULL };
	setenv("PROFEV_UNWIND", "libgcc", 1);
	int lg = record(lg_argv, NULL, HOT_BUFFER, tmp, &res, 0);
	unsetenv("PROFEV_UNWIND");
	if (lg < 0)
		return 1;
	fflush(stdout);

	instructions(self, tmp);
	fflush(stdout);

	int ok = 1;
	for (pipe_only = 0; pipe_only < 2; pipe_only++)
		ok &= sustained(self, tmp);
	return ok && !bench_status() ? 0 : 1;
}

