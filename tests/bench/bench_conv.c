/*
 * bench_conv: events per second of each pfconv target, bytes per event of
 * each output, and peak memory, on one core.
 *
 * usage: bench_conv [EVENTS [RUNS]]   (default 50000000 events, best of 3;
 *                                     PROFEV_BENCH_TINY=1: 20000, one run)
 *
 * The trace is a game-shaped synthetic one made by tools/mktrace (found
 * beside this program's directory, or in $PROFEV_BUILD/tools), cached in
 * $TMPDIR between runs. Each conversion runs in a child process pinned to
 * the CPU it starts on, writing into a sink that only counts bytes, so the figures are
 * the converter's (reading included) and not the disk's; the child's peak
 * resident size is its whole footprint. A "read only" row gives the
 * reader's own ceiling event by event with names resolved (the baseline),
 * "read batch" with profev_reader_next_events() as the converters read.
 * "perfetto-z" is the Perfetto output with PROFEV_CONV_COMPRESS (pfconv
 * --compress): deflated packets, fewer bytes for more time. Wall and CPU
 * times are both the best of the runs; on a shared machine the CPU time is
 * the steadier figure.
 *
 * A third table compares deflate engines in one run, at least 5 runs each,
 * median and range of the CPU rate: the plain Perfetto conversion whose
 * sink deflates every buffer it gets (the outbuf's 1 MiB drains, what
 * --compress deflates) with zlib, as --compress once did, or with
 * libdeflate at a few levels, and "perfetto-z", the library's --compress
 * itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>
#include "bench.h"
#include "profev_conv.h"

struct result {
	int rc;
	double seconds, cpu; /* wall and CPU time: the machine may be shared */
	uint64_t events, bytes;
};

static int count_bytes(void *ctx, const void *data, size_t len)
{
	(void)data;
	*(uint64_t *)ctx += len;
	return 0;
}

/* A sink that deflates each buffer on its own (a zlib stream, as
 * compressed_packets holds) and counts the deflated bytes. level > 0:
 * libdeflate's; level < 0: zlib's -level. */
struct deflater {
	int level;
	struct libdeflate_compressor *ld;
	z_stream z;
	uint8_t *out;
	size_t cap;
	uint64_t bytes;
	int failed;
};

static int deflate_bytes(void *ctx, const void *data, size_t len)
{
	struct deflater *d = ctx;
	size_t need = d->level > 0 ? libdeflate_zlib_compress_bound(d->ld, len)
				   : deflateBound(&d->z, (uLong)len);
	if (need > d->cap) {
		free(d->out);
		if (!(d->out = malloc(need)))
			return d->failed = -1;
		d->cap = need;
	}
	size_t n;
	if (d->level > 0) {
		n = libdeflate_zlib_compress(d->ld, data, len, d->out, d->cap);
	} else {
		deflateReset(&d->z);
		d->z.next_in = (Bytef *)data;
		d->z.avail_in = (uInt)len;
		d->z.next_out = d->out;
		d->z.avail_out = (uInt)d->cap;
		n = deflate(&d->z, Z_FINISH) == Z_STREAM_END ? d->cap - d->z.avail_out : 0;
	}
	if (!n)
		return d->failed = -1;
	d->bytes += n;
	return 0;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In the child: convert (format 0: only read) and report; level: the
 * sink deflates, as struct deflater says (0: it only counts). */
static struct result convert(const char *path, int format, unsigned flags, int level)
{
	struct result res = { 0 };
	FILE *f = fopen(path, "rb");
	struct profev_error err;
	struct profev_reader *r = f ? profev_reader_new(f, &err) : NULL;
	if (!r) {
		res.rc = -1;
		return res;
	}
	struct deflater d = { .level = level };
	if (level > 0 && !(d.ld = libdeflate_alloc_compressor(level)))
		res.rc = -1;
	if (level < 0 && deflateInit2(&d.z, -level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		res.rc = -1;
	double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (res.rc) {
		/* no compressor: nothing to time */
	} else if (format > 0) {
		struct profev_conv_opts o;
		struct profev_conv_stats st;
		struct profev_conv_sink sink = { NULL, count_bytes, NULL, &res.bytes };
		if (level)
			sink = (struct profev_conv_sink){ NULL, deflate_bytes, NULL, &d };
		profev_conv_opts_init(&o, format);
		o.flags = flags;
		res.rc = profev_conv_run(r, &o, &sink, &st, &err);
		res.events = st.events_in;
		if (level)
			res.bytes = d.bytes;
		if (d.failed)
			res.rc = -1;
	} else if (format == 0) {
		struct profev_event ev;
		struct profev_event_info in;
		int n;
		while ((n = profev_reader_next_event(r, &ev, &in)) > 0)
			res.events++;
		res.rc = n;
	} else {
		/* The batch call, touching each event as a converter would. */
		const struct profev_event *ev;
		size_t count;
		uint64_t sum = 0;
		int n;
		while ((n = profev_reader_next_events(r, &ev, &count)) > 0) {
			for (size_t i = 0; i < count; i++)
				sum += ev[i].ts ^ ev[i].type;
			res.events += count;
		}
		res.rc = n;
		res.bytes = sum & 1; /* keeps the loop; too small to show */
	}
	res.seconds = clock_s(CLOCK_MONOTONIC) - t0;
	res.cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (d.ld)
		libdeflate_free_compressor(d.ld);
	if (level < 0)
		deflateEnd(&d.z);
	free(d.out);
	profev_reader_free(r);
	fclose(f);
	return res;
}

/* Run one conversion in a child kept on one CPU; peak RSS in KiB via wait4. */
static int run_child(const char *path, int format, unsigned flags, int level, struct result *res,
		     long *maxrss_kib)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		int cpu = sched_getcpu();
		CPU_SET(cpu < 0 ? 0 : cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		struct result r = convert(path, format, flags, level);
		ssize_t w = write(fds[1], &r, sizeof(r));
		_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(fds[1]);
	ssize_t got = read(fds[0], res, sizeof(*res));
	close(fds[0]);
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0 || got != (ssize_t)sizeof(*res) || status)
		return -1;
	*maxrss_kib = ru.ru_maxrss;
	return 0;
}

static int make_trace(const char *argv0, const char *path, const char *kind, unsigned long long events)
{
	struct stat st;
	if (stat(path, &st) == 0 && st.st_size > 0)
		return 0;
	char tool[2048];
	const char *build = getenv("PROFEV_BUILD");
	if (build) {
		snprintf(tool, sizeof(tool), "%s/tools/mktrace", build);
	} else {
		const char *slash = strrchr(argv0, '/');
		snprintf(tool, sizeof(tool), "%.*s/../tools/mktrace",
			 slash ? (int)(slash - argv0) : 1, slash ? argv0 : ".");
	}
	char cmd[2048 + 3 * 4096 + 64];
	snprintf(cmd, sizeof(cmd), "'%s' %s '%s.tmp' %llu 4 && mv '%s.tmp' '%s'", tool, kind, path,
		 events, path, path);
	fprintf(stderr, "bench_conv: making a %llu-event %s trace with %s\n", events, kind, tool);
	return system(cmd) == 0 ? 0 : -1;
}

struct row { const char *name; int format; unsigned flags; double goal; int level; };

static int trace_path(const char *argv0, const char *kind, unsigned long long events,
		      char path[4096])
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(path, 4096, "%s/profev-bench-conv-%s-%llu.pftr", tmp, kind, events);
	if (make_trace(argv0, path, kind, events)) {
		bench_cannot("the conversions", "no trace to convert: mktrace failed");
		return 1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Deflate engines in one run: the median and range of the CPU rate over
 * runs (at least 5), and bytes per event. */
static int engines(const char *argv0, unsigned long long events, int runs, const struct row *rows,
		   size_t nrows)
{
	char path[4096];
	if (trace_path(argv0, "game", events, path))
		return 1;
	if (runs < 5)
		runs = 5;
	printf("deflate engines, %llu-event game trace, one core, CPU time, %d runs each\n", events,
	       runs);
	printf("%-24s %10s %13s %11s %8s\n", "target", "Mevents/s", "range", "bytes/event",
	       "peak MiB");
	int fails = 0;
	double *rate = calloc((size_t)runs, sizeof(*rate));
	if (!rate)
		return 1;
	for (size_t i = 0; i < nrows; i++) {
		struct result r = { 0 };
		long rss = 0, peak = 0;
		int k;
		for (k = 0; k < runs; k++) {
			if (run_child(path, rows[i].format, rows[i].flags, rows[i].level, &r, &rss) ||
			    r.rc < 0 || !r.events || r.cpu <= 0) {
				bench_cannot(rows[i].name, "the conversion failed");
				fails++;
				break;
			}
			rate[k] = (double)r.events / r.cpu / 1e6;
			if (rss > peak)
				peak = rss;
		}
		if (k < runs)
			continue;
		qsort(rate, (size_t)runs, sizeof(*rate), cmp_double);
		double median = runs % 2 ? rate[runs / 2] : (rate[runs / 2 - 1] + rate[runs / 2]) / 2;
		char range[32];
		snprintf(range, sizeof(range), "%.1f-%.1f", rate[0], rate[runs - 1]);
		printf("%-24s %10.1f %13s %11.2f %8.1f", rows[i].name, median, range,
		       (double)r.bytes / (double)r.events, (double)peak / 1024);
		if (rows[i].goal)
			printf("   (goal >= %.0f)", rows[i].goal);
		printf("\n");
	}
	free(rate);
	return fails;
}

static int table(const char *argv0, const char *kind, unsigned long long events, int runs,
		 const struct row *rows, size_t nrows)
{
	char path[4096];
	if (trace_path(argv0, kind, events, path))
		return 1;
	struct stat st;
	stat(path, &st);
	printf("pfconv, %llu-event %s trace (%.1f MiB), one core, best of %d\n", events, kind,
	       (double)st.st_size / (1 << 20), runs);
	printf("%-10s %12s %9s %12s %9s %12s %11s %10s %8s\n", "target", "events", "wall s",
	       "Mevents/s", "CPU s", "Mevents/s", "bytes/event", "output MiB", "peak MiB");
	int fails = 0;
	for (size_t i = 0; i < nrows; i++) {
		struct result best = { 0 }, r;
		double best_cpu = 0;
		long rss = 0, peak = 0;
		int failed = 0;
		for (int k = 0; k < runs && !failed; k++) {
			if (run_child(path, rows[i].format, rows[i].flags, 0, &r, &rss) || r.rc < 0) {
				bench_cannot(rows[i].name, "the conversion failed");
				failed = 1;
				break;
			}
			if (!k || r.seconds < best.seconds)
				best = r;
			if (!k || r.cpu < best_cpu)
				best_cpu = r.cpu;
			if (rss > peak)
				peak = rss;
		}
		if (!failed && !best.events)
			bench_cannot(rows[i].name, "the reader handed out no event");
		else if (!failed && rows[i].format > 0 && !best.bytes)
			bench_cannot(rows[i].name, "the converter wrote nothing");
		if (failed || !best.events || (rows[i].format > 0 && !best.bytes)) {
			fails++;
			continue;
		}
		double rate = (double)best.events / best.seconds / 1e6;
		double cpu_rate = (double)best.events / best_cpu / 1e6;
		char per_event[32] = "-", output[32] = "-"; /* reading alone writes nothing */
		if (rows[i].format > 0) {
			snprintf(per_event, sizeof per_event, "%.1f", (double)best.bytes / (double)best.events);
			snprintf(output, sizeof output, "%.1f", (double)best.bytes / (1 << 20));
		}
		printf("%-10s %12" PRIu64 " %9.3f %12.1f %9.3f %12.1f %11s %10s %8.1f", rows[i].name,
		       best.events, best.seconds, rate, best_cpu, cpu_rate, per_event, output,
		       (double)peak / 1024);
		if (rows[i].goal)
			printf("   (goal >= %.0f)", rows[i].goal);
		printf("\n");
	}
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long long events = argc > 1 ? strtoull(argv[1], NULL, 10) : bench_tiny() ? 20000 : 50000000ull;
	int runs = argc > 2 ? atoi(argv[2]) : bench_tiny() ? 1 : 3;
	if (!events || runs < 1) {
		fprintf(stderr, "usage: bench_conv [EVENTS [RUNS]]\n");
		return 2;
	}
	static const struct row rows[] = {
		{ "read only", 0, 0, 0 },
		{ "read batch", -1, 0, 0 },
		{ "perfetto", PROFEV_CONV_PERFETTO, 0, 25 },
		/* --compress: size for time, no goal */
		{ "perfetto-z", PROFEV_CONV_PERFETTO, PROFEV_CONV_COMPRESS, 0 },
		{ "chrome", PROFEV_CONV_CHROME, 0, 12 },
		{ "folded", PROFEV_CONV_FOLDED, 0, 0 },
	};
	/* Two arguments after every zone begin: a third of the events. */
	static const struct row arg_rows[] = {
		{ "read batch", -1, 0, 0 },
		{ "perfetto", PROFEV_CONV_PERFETTO, 0, 25 },
		{ "perfetto-z", PROFEV_CONV_PERFETTO, PROFEV_CONV_COMPRESS, 0 },
		{ "chrome", PROFEV_CONV_CHROME, 0, 12 },
	};
	/* The plain stream deflated by the sink, buffer by buffer, against
	 * the library's --compress. */
	static const struct row engine_rows[] = {
		{ "perfetto", PROFEV_CONV_PERFETTO, 0, 0, 0 },
		{ "perfetto | zlib 1", PROFEV_CONV_PERFETTO, 0, 0, -1 },
		{ "perfetto | libdeflate 1", PROFEV_CONV_PERFETTO, 0, 0, 1 },
		{ "perfetto | libdeflate 2", PROFEV_CONV_PERFETTO, 0, 0, 2 },
		{ "perfetto | libdeflate 3", PROFEV_CONV_PERFETTO, 0, 0, 3 },
		{ "perfetto-z", PROFEV_CONV_PERFETTO, PROFEV_CONV_COMPRESS, 30, 0 },
	};
	int fails = table(argv[0], "game", events, runs, rows, sizeof rows / sizeof rows[0]);
	printf("\n");
	fails += table(argv[0], "game-args", events, runs, arg_rows, sizeof arg_rows / sizeof arg_rows[0]);
	printf("\n");
	fails += engines(argv[0], events, runs, engine_rows, sizeof engine_rows / sizeof engine_rows[0]);
	return fails ? 1 : 0;
}
