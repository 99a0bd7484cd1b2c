/*
 * bench_ring - the flight recorder (pfrec --ring): what keeping the
 * trace in memory costs against writing it, how long a snapshot takes,
 * and whether the recorder's memory stays bounded.
 *
 *   bench_ring GAME         print the table (GAME: the example game)
 *
 * Cost per zone: a child of this program opens and closes BURST zones as
 * fast as it can, recorded by the recorder (profev_recorder_run, as pfrec
 * runs it) writing a trace file, and by one with --ring 2s, alternately,
 * 5 processes of each: the child's time per zone (two events), median and
 * range. The program waits for the recorder when it falls behind, so this
 * is the whole path's cost.
 * Snapshots and memory: in a process of its own, the recorder runs the
 * example game at full speed under --ring RING (--min-interval 0); once
 * the ring is full, 5 snapshots 1 s apart, each timed from the request
 * (as SIGUSR1 makes it) to the written file: median and range, and the
 * snapshot's size per second of ring. Its VmRSS is read every 0.25 s and
 * its VmHWM at the end: bounded means the peak of the second half of the
 * run is no higher than the first half's by more than a few MiB.
 * PROFEV_BENCH_TINY=1: 1 process of each, a 1 s ring in a 5 s run, 2
 * snapshots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "profev.h"
#include "profev_record.h"
#include "profev_trace.h"

PROFEV_CATEGORY(hot, "the measured zones");

#define MAX_RUNS 9
#define MAX_SNAPS 9
#define MAX_RSS 4096

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The recorded child: n zones, then its ns per zone on stdout. */
static int mode_zones(long n)
{
	if (!profev_active())
		return 4;
	double t0 = now();
	for (long i = 0; i < n; i++) {
		PROFEV_ZONE(hot, "z");
		__asm__ __volatile__("" ::: "memory");
	}
	printf("%.4f\n", (now() - t0) * 1e9 / (double)n);
	return 0;
}

static const char *self_path(void)
{
	static char p[4096];
	ssize_t n = readlink("/proc/self/exe", p, sizeof p - 1);
	if (n <= 0)
		return NULL;
	p[n] = 0;
	return p;
}

static void on_snapshot_unlink(void *ctx, const char *path)
{
	(void)ctx;
	unlink(path);
}

/* One recorded child of n zones, ring or not: its ns per zone, or -1. */
static double run_zones(const char *self, const char *tmp, long n, int ring)
{
	char count[32], out[4200], trace[4200], base[4200];
	snprintf(count, sizeof count, "%ld", n);
	snprintf(out, sizeof out, "%s/profev-bench-ring-%d.txt", tmp, (int)getpid());
	snprintf(trace, sizeof trace, "%s/profev-bench-ring-%d.bin", tmp, (int)getpid());
	snprintf(base, sizeof base, "%s/profev-bench-ring-%d", tmp, (int)getpid());
	char *argv[] = { (char *)self, "zones", count, NULL };
	int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int fd = ring ? -1 : open(trace, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = fd;
	o.child_stdout = ofd;
	if (ring) {
		o.ring_ns = 2000000000ull;
		o.snapshot_base = base;
		o.ring_discard_at_exit = 1;
		o.snapshot = on_snapshot_unlink;
	}
	struct profev_error err = { 0 };
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	struct profev_record_result res;
	int rc = r ? profev_recorder_run(r, &res) : -1;
	profev_recorder_free(r);
	if (fd >= 0)
		close(fd);
	close(ofd);
	unlink(trace);
	double v = -1;
	FILE *f = fopen(out, "r");
	if (rc < 0 || res.status != 0 || !f || fscanf(f, "%lf", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	unlink(out);
	return v;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* median, min and max of n values (sorted in place). */
static void stats(double *v, int n, double *med, double *lo, double *hi)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*lo = v[0];
	*hi = v[n - 1];
}

/* ---- snapshots and memory, in a process of their own ---------------- */

struct ring_run {
	double ring_s;                /* the ring's length */
	int snaps;                    /* snapshots asked for */
	struct profev_recorder *r;
	pthread_t main;
	int done;                     /* the recording ended */
	/* results */
	double asked[MAX_SNAPS], took[MAX_SNAPS];
	double bytes[MAX_SNAPS];
	int written;
	double rss_t[MAX_RSS], rss_kb[MAX_RSS];
	int nrss;
	double hwm_kb;
};

static double status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double v = -1;
	size_t k = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, k) == 0 && line[k] == ':')
			v = atof(line + k + 1);
	if (f)
		fclose(f);
	return v;
}

static void on_snapshot_timed(void *ctx, const char *path)
{
	struct ring_run *rr = ctx;
	struct stat st;
	if (rr->written < MAX_SNAPS) {
		rr->took[rr->written] = now() - rr->asked[rr->written];
		rr->bytes[rr->written] = stat(path, &st) == 0 ? (double)st.st_size : 0;
		__atomic_store_n(&rr->written, rr->written + 1, __ATOMIC_RELEASE);
	}
	unlink(path);
}

static void nothing(int sig)
{
	(void)sig;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Samples the RSS; asks for the snapshots once the ring is full. */
static void *ring_driver(void *arg)
{
	struct ring_run *rr = arg;
	double t0 = now(), next_snap = t0 + rr->ring_s + 1.0;
	int asked = 0;
	while (!__atomic_load_n(&rr->done, __ATOMIC_ACQUIRE)) {
		double t = now();
		if (rr->nrss < MAX_RSS) {
			rr->rss_t[rr->nrss] = t - t0;
			rr->rss_kb[rr->nrss++] = status_kb("VmRSS");
		}
		if (asked < rr->snaps && t >= next_snap &&
		    asked == __atomic_load_n(&rr->written, __ATOMIC_ACQUIRE)) {
			rr->asked[asked++] = now();
			profev_recorder_snapshot(rr->r);
			pthread_kill(rr->main, SIGUSR1); /* wakes the poll, as pfrec's signal does */
			next_snap = t + 1.0;
		}
		nap(0.25);
	}
	return NULL;
}

static int ring_measure(const char *game, const char *tmp, double ring_s, int snaps, double run_s, int wfd)
{
	struct ring_run *rr = calloc(1, sizeof *rr);
	if (!rr)
		return 1;
	rr->ring_s = ring_s;
	rr->snaps = snaps;
	rr->main = pthread_self();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = nothing; /* no SA_RESTART: poll returns EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	char secs[32], base[4200];
	snprintf(secs, sizeof secs, "%.0f", run_s);
	snprintf(base, sizeof base, "%s/profev-bench-ring-snap-%d", tmp, (int)getpid());
	char *argv[] = { (char *)game, "0", "--seconds", secs, "--full-speed", NULL };
	int null = open("/dev/null", O_WRONLY);
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = -1;
	o.child_stdout = null;
	o.ring_ns = (uint64_t)(ring_s * 1e9);
	o.min_interval_ns = 0;
	o.ring_discard_at_exit = 1;
	o.snapshot_base = base;
	o.snapshot = on_snapshot_timed;
	o.ctx = rr;
	struct profev_error err = { 0 };
	rr->r = profev_recorder_start(&o, &err);
	if (!rr->r) {
		fprintf(stderr, "bench_ring: %s\n", err.message);
		return 1;
	}
	pthread_t th;
	pthread_create(&th, NULL, ring_driver, rr);
	struct profev_record_result res;
	int rc = profev_recorder_run(rr->r, &res);
	rr->hwm_kb = status_kb("VmHWM");
	__atomic_store_n(&rr->done, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	profev_recorder_free(rr->r);
	close(null);
	if (rc < 0 || res.status != 0) {
		fprintf(stderr, "bench_ring: the game under --ring failed (%d, status %d)\n", rc, res.status);
		return 1;
	}
	rr->r = NULL;
	ssize_t w = write(wfd, rr, sizeof *rr);
	free(rr);
	return w == (ssize_t)sizeof *rr ? 0 : 1;
}

/* The largest RSS in [from, to) of the run, in KiB; -1 if none. */
static double rss_peak(const struct ring_run *rr, double from, double to)
{
	double m = -1;
	for (int i = 0; i < rr->nrss; i++)
		if (rr->rss_t[i] >= from && rr->rss_t[i] < to && rr->rss_kb[i] > m)
			m = rr->rss_kb[i];
	return m;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "zones") == 0)
		return mode_zones(atol(argv[2]));
	if (argc < 2) {
		fprintf(stderr, "usage: bench_ring GAME\n");
		return 2;
	}
	const char *game = argv[1], *self = self_path();
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int tiny = bench_tiny();
	if (!self || access(game, X_OK) != 0) {
		bench_cannot("the flight recorder", "no example game at '%s'", game);
		return bench_status();
	}

	/* Cost per zone, the two recorders alternately. */
	int runs = tiny ? 1 : 5;
	long burst = tiny ? 200000 : 20000000;
	double plain[MAX_RUNS], ring[MAX_RUNS];
	for (int i = 0; i < runs; i++) {
		plain[i] = run_zones(self, tmp, burst, 0);
		ring[i] = run_zones(self, tmp, burst, 1);
		if (plain[i] <= 0 || ring[i] <= 0) {
			bench_cannot("the cost of a zone", "a recorded child failed");
			return bench_status();
		}
	}
	double pm, pl, ph, rm, rl, rh;
	stats(plain, runs, &pm, &pl, &ph);
	stats(ring, runs, &rm, &rl, &rh);
	printf("a zone (two events) as fast as the recorder takes them, ns: median (range) of %d "
	       "processes of %ld zones\n", runs, burst);
	printf("  %-36s %8.2f (%.2f-%.2f)\n", "pfrec, writing the trace (baseline)", pm, pl, ph);
	printf("  %-36s %8.2f (%.2f-%.2f)   %.2fx the baseline\n", "pfrec --ring 2s", rm, rl, rh, rm / pm);
	fflush(stdout);

	/* Snapshots and memory in a process of their own, whose VmHWM is the
	 * ring's alone. */
	double ring_s = tiny ? 1 : 30, run_s = tiny ? 5 : 60;
	int snaps = tiny ? 2 : 5;
	int p[2];
	if (pipe(p) < 0) {
		bench_cannot("snapshots", "pipe: %s", strerror(errno));
		return bench_status();
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(ring_measure(game, tmp, ring_s, snaps, run_s, p[1]));
	}
	close(p[1]);
	struct ring_run *rr = calloc(1, sizeof *rr);
	size_t got = 0;
	ssize_t n;
	while (rr && got < sizeof *rr && (n = read(p[0], (char *)rr + got, sizeof *rr - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	if (!rr || got != sizeof *rr || !WIFEXITED(st) || WEXITSTATUS(st)) {
		bench_cannot("snapshots", "the recorder's process failed");
		free(rr);
		return bench_status();
	}
	if (rr->written < snaps) {
		bench_cannot("snapshot time", "%d of %d snapshots written", rr->written, snaps);
		free(rr);
		return bench_status();
	}
	double took[MAX_SNAPS], per_s[MAX_SNAPS];
	for (int i = 0; i < rr->written; i++) {
		took[i] = rr->took[i] * 1e3;
		per_s[i] = rr->bytes[i] / ring_s / (1 << 20);
	}
	double tm, tl, th, sm, sl, sh;
	stats(took, rr->written, &tm, &tl, &th);
	stats(per_s, rr->written, &sm, &sl, &sh);
	printf("\nthe example game at full speed for %.0f s under --ring %.0fs: %d snapshots 1 s apart once the "
	       "ring is full, median (range)\n", run_s, ring_s, rr->written);
	printf("  %-36s %8.1f ms (%.1f-%.1f) (goal: <= 200 ms for 30 s)\n", "snapshot, request to file", tm, tl, th);
	printf("  %-36s %8.2f MiB (%.2f-%.2f)\n", "snapshot size per second of ring", sm, sl, sh);
	double half = run_s / 2, first = rss_peak(rr, 0, half), second = rss_peak(rr, half, 1e9);
	if (first <= 0 || second <= 0) {
		bench_cannot("the recorder's memory", "no VmRSS samples");
		free(rr);
		return bench_status();
	}
	printf("  %-36s %8.1f MiB in the first half, %.1f MiB in the second; VmHWM %.1f MiB\n",
	       "recorder's RSS, peak", first / 1024, second / 1024, rr->hwm_kb / 1024);
	printf("  %-36s %8.1f MiB\n", "  growth in the second half", (second - first) / 1024);
	free(rr);
	return bench_status();
}
