/*
 * bench_attach - on-demand recording (pfrec --attach): what a program
 * that listens pays while nobody is attached, and how soon an attach
 * records.
 *
 *   bench_attach            print the table
 *
 * Zone cost: this program runs a loop with a zone in a process that
 * listens (profev_listen(), not attached), and the same loop in a process
 * recorded by the recorder with the zone's category disabled (the
 * baseline, in the same run), each with an empty loop beside it; best of
 * 40 bursts, then median and range over 5 processes of each. Frame marks
 * are timed the same way (on demand they are counted out of line).
 * Attach latency: a listening process records a zone every 20 us or so;
 * the time from the call that attaches (profev_recorder_start, as pfrec
 * --attach makes it) to the first zone in the trace, and to the call's
 * return (the handshake), over 9 attaches: median and range.
 * PROFEV_BENCH_TINY=1: one process of each, 2 attaches.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "profev.h"
#include "profev_record.h"
#include "profev_trace.h"

PROFEV_CATEGORY(cold, "the measured zones");

#define BURST 1638400
static int rounds = 40;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void zone_loop(long n)
{
	for (long i = 0; i < n; i++) {
		PROFEV_ZONE(cold, "z");
		__asm__ __volatile__("" ::: "memory");
	}
}

__attribute__((noinline)) static void frame_loop(long n)
{
	for (long i = 0; i < n; i++) {
		PROFEV_FRAME_MARK();
		__asm__ __volatile__("" ::: "memory");
	}
}

__attribute__((noinline)) static void empty_loop(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static double best(void (*f)(long), long n)
{
	double b = 1e9;
	for (int i = 0; i < rounds; i++) {
		double t0 = now();
		f(n);
		double t = (now() - t0) * 1e9 / (double)n;
		if (t < b)
			b = t;
	}
	return b;
}

/* A measured child: "zone empty frame" in ns on stdout. Frame marks of a
 * recorded child go into its buffer, so fewer of them. */
static int mode_measure(int ondemand)
{
	if (ondemand && profev_listen() != 0)
		return 3;
	if (!ondemand && !profev_active())
		return 4;
	double z = best(zone_loop, BURST);
	double e = best(empty_loop, BURST);
	double f = best(frame_loop, ondemand ? BURST / 16 : 4096);
	printf("%.4f %.4f %.4f\n", z, e, f);
	return 0;
}

/* The attached-to child: zones until killed. */
static int mode_loop(void)
{
	if (profev_listen() != 0)
		return 3;
	profev_thread_name("loop");
	for (;;) {
		PROFEV_ZONE(cold, "tick");
		struct timespec ts = { 0, 20000 };
		nanosleep(&ts, NULL);
	}
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

/* Three figures from a child's stdout (a file). */
static int read_figures(const char *path, double v[3])
{
	FILE *f = fopen(path, "r");
	int ok = f && fscanf(f, "%lf %lf %lf", &v[0], &v[1], &v[2]) == 3;
	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

static int run_ondemand(const char *self, const char *out, double v[3])
{
	pid_t p = fork();
	if (p == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		execl(self, self, "ondemand", (char *)NULL);
		_exit(127);
	}
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
		bench_cannot("on-demand zone cost", "the listening child failed");
		return -1;
	}
	return read_figures(out, v);
}

static int run_disabled(const char *self, const char *out, const char *trace, double v[3])
{
	char *argv[] = { (char *)self, "disabled", NULL };
	int fd = open(trace, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = fd;
	o.categories = "-cold";
	o.child_stdout = ofd;
	struct profev_error err;
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	struct profev_record_result res;
	int rc = r ? profev_recorder_run(r, &res) : -1;
	profev_recorder_free(r);
	close(fd);
	close(ofd);
	if (rc < 0 || res.status != 0) {
		bench_cannot("disabled-category zone cost", "the recorded child failed");
		return -1;
	}
	return read_figures(out, v);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* "median (min-max)" of n values. */
static void stats(double *v, int n, double *med, double *lo, double *hi)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*lo = v[0];
	*hi = v[n - 1];
}

struct detacher {
	struct profev_recorder *r;
};

static void *detach_later(void *arg)
{
	struct timespec ts = { 0, 150000000 };
	nanosleep(&ts, NULL);
	profev_recorder_signal(((struct detacher *)arg)->r, SIGINT);
	return NULL;
}

/* One attach: ms to the handshake's end and to the first zone recorded. */
static int attach_once(pid_t pid, const char *trace, double *hand_ms, double *first_ms)
{
	int fd = open(trace, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct profev_record_opts o = { 0 };
	o.out_fd = fd;
	o.attach_pid = pid;
	struct profev_error err;
	uint64_t t0 = now_ns();
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	uint64_t t1 = now_ns();
	if (!r) {
		close(fd);
		bench_cannot("attach latency", "%s", err.message);
		return -1;
	}
	struct detacher d = { r };
	pthread_t t;
	pthread_create(&t, NULL, detach_later, &d);
	struct profev_record_result res;
	int rc = profev_recorder_run(r, &res);
	pthread_join(t, NULL);
	profev_recorder_free(r);
	close(fd);
	if (rc < 0) {
		bench_cannot("attach latency", "the recording failed");
		return -1;
	}
	FILE *f = fopen(trace, "rb");
	struct profev_reader *rd = f ? profev_reader_new(f, &err) : NULL;
	uint64_t first = 0;
	struct profev_event ev;
	while (rd && profev_reader_next_event(rd, &ev, NULL) == 1)
		if (ev.type == PROFEV_EV_ZONE_BEGIN && (!first || ev.ts < first))
			first = ev.ts;
	profev_reader_free(rd);
	if (f)
		fclose(f);
	if (!first) {
		bench_cannot("attach latency", "no zone in the attached recording");
		return -1;
	}
	*hand_ms = (double)(t1 - t0) / 1e6;
	*first_ms = (double)(first - t0) / 1e6;
	return 0;
}

int main(int argc, char **argv)
{
	int procs = 5, attaches = 9;
	if (bench_tiny()) {
		rounds = 2;
		procs = 1;
		attaches = 2;
	}
	if (argc > 1 && strcmp(argv[1], "ondemand") == 0)
		return mode_measure(1);
	if (argc > 1 && strcmp(argv[1], "disabled") == 0)
		return mode_measure(0);
	if (argc > 1 && strcmp(argv[1], "loop") == 0)
		return mode_loop();
	const char *self = self_path();
	const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char out[256], trace[256];
	snprintf(out, sizeof out, "%s/profev-bench-attach-%d.txt", tmpdir, (int)getpid());
	snprintf(trace, sizeof trace, "%s/profev-bench-attach-%d.bin", tmpdir, (int)getpid());

	double od[3][16], dis[3][16];
	for (int i = 0; i < procs; i++) {
		double v[3], w[3];
		if (run_ondemand(self, out, v) < 0 || run_disabled(self, out, trace, w) < 0)
			break;
		for (int k = 0; k < 3; k++) {
			od[k][i] = v[k];
			dis[k][i] = w[k];
		}
		if (i == procs - 1) {
			static const char *what[3] = { "loop with a zone", "empty loop", "frame mark" };
			printf("ns per iteration, best of %d bursts; median (range) of %d processes\n",
			       rounds, procs);
			printf("  %-22s %-28s %-28s\n", "", "on demand, not attached",
			       "recorded, category disabled");
			for (int k = 0; k < 3; k++) {
				double m1, l1, h1, m2, l2, h2;
				stats(od[k], procs, &m1, &l1, &h1);
				stats(dis[k], procs, &m2, &l2, &h2);
				char a[64], b[64];
				snprintf(a, sizeof a, "%.2f (%.2f-%.2f)", m1, l1, h1);
				snprintf(b, sizeof b, "%.2f (%.2f-%.2f)", m2, l2, h2);
				printf("  %-22s %-28s %-28s%s\n", what[k], a, b,
				       k == 2 ? "  (recorded: a record stored)" : "");
			}
		}
	}
	unlink(out);
	fflush(stdout);

	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execl(self, self, "loop", (char *)NULL);
		_exit(127);
	}
	struct timespec settle = { 0, 300000000 };
	nanosleep(&settle, NULL);
	double hand[16], first[16];
	int n = 0;
	for (; n < attaches; n++)
		if (attach_once(pid, trace, &hand[n], &first[n]) < 0)
			break;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(trace);
	if (n == attaches) {
		double m, l, h;
		printf("\nattach latency, median (range) of %d attaches (goal: first event <= 50 ms)\n", n);
		stats(hand, n, &m, &l, &h);
		printf("  %-44s %7.2f ms (%.2f-%.2f)\n", "connect and handshake (the call's return)", m, l, h);
		stats(first, n, &m, &l, &h);
		printf("  %-44s %7.2f ms (%.2f-%.2f)\n", "first zone recorded, from the call", m, l, h);
	}
	return bench_status();
}
