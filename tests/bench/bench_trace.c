/* bench_trace: write and read back N synthetic game-shaped events (nested
 * zones on 8 threads, counters, frame marks, jittered durations) on one
 * core, against a baseline measured in the same run: the same records
 * stored the naive way, raw 40-byte structs through zstd at the same level.
 * Each profev figure is the best of three runs.
 *
 *   bench_trace [EVENTS] [FILE]      defaults: 50000000, /tmp/profev-bench.bin */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include "profev_trace.h"
#include "synth.h"

#define REPEAT 3

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 50000000ull;
	const char *path = argc > 2 ? argv[2] : "/tmp/profev-bench.bin";
	struct profev_event *ev = malloc(n * sizeof(*ev));
	if (!ev) {
		fprintf(stderr, "bench_trace: out of memory for %llu events\n", (unsigned long long)n);
		return 1;
	}
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	int devnull = open("/dev/null", O_WRONLY);
	struct profev_error err;
	struct profev_writer_opts wopts = { .zstd_level = getenv("LEVEL") ? atoi(getenv("LEVEL")) : 0 };
	struct profev_writer *w = profev_writer_new(fd, &wopts, &err);
	struct synth s;
	if (fd < 0 || !w || synth_init(&s, w, 8, 1)) {
		fprintf(stderr, "bench_trace: cannot start writing '%s'\n", path);
		return 1;
	}
	for (uint64_t done = 0; done < n;) {
		uint32_t k = n - done < 1000000 ? (uint32_t)(n - done) : 1000000;
		synth_fill(&s, ev + done, k);
		done += k;
	}

	/* profev writer: once to the file, then to /dev/null; the best of the
	 * runs counts, which filters out moments when the machine was busy */
	double write_s = 1e30, write_cpu = 1e30;
	int rc = 0;
	for (int rep = 0; rep < REPEAT && !rc; rep++) {
		if (rep) {
			w = profev_writer_new(devnull, &wopts, &err);
			if (!w || synth_init(&s, w, 8, 1))
				return 1;
		}
		double t0 = now(), c0 = cpu_now();
		for (uint64_t i = 0; i < n && !rc; i++)
			rc = profev_writer_event(w, &ev[i]);
		rc |= profev_writer_close(w);
		double t = now() - t0, c = cpu_now() - c0;
		write_s = t < write_s ? t : write_s;
		write_cpu = c < write_cpu ? c : write_cpu;
		profev_writer_free(w);
	}
	off_t size = lseek(fd, 0, SEEK_END);
	close(fd);
	/* the same through profev_writer_events(), 4096 at a time: a
	 * recorder's way, which codes runs of one thread in one call */
	double batch_s = 1e30, batch_cpu = 1e30;
	for (int rep = 0; rep < REPEAT && !rc; rep++) {
		w = profev_writer_new(devnull, &wopts, &err);
		if (!w || synth_init(&s, w, 8, 1))
			return 1;
		double t0 = now(), c0 = cpu_now();
		for (uint64_t i = 0; i < n && !rc; i += 4096)
			rc = profev_writer_events(w, ev + i, n - i < 4096 ? (size_t)(n - i) : 4096);
		rc |= profev_writer_close(w);
		double t = now() - t0, c = cpu_now() - c0;
		batch_s = t < batch_s ? t : batch_s;
		batch_cpu = c < batch_cpu ? c : batch_cpu;
		profev_writer_free(w);
	}
	if (rc) {
		fprintf(stderr, "bench_trace: write failed\n");
		return 1;
	}

	/* profev reader: whole chunks, then event by event with names resolved */
	FILE *f = fopen(path, "rb");
	struct profev_reader *r;
	struct profev_chunk c;
	uint64_t read_n = 0, check = 0;
	double read_s = 1e30, read_cpu = 1e30, read_ev_s = 1e30;
	for (int rep = 0; rep < REPEAT; rep++) {
		rewind(f);
		r = profev_reader_new(f, &err);
		read_n = 0;
		double t0 = now(), c0 = cpu_now();
		while (r && profev_reader_next_chunk(r, &c) > 0) {
			for (uint32_t i = 0; i < c.nevents; i++)
				check += c.events[i].ts;
			read_n += c.nevents;
		}
		double t = now() - t0, cp = cpu_now() - c0;
		read_s = t < read_s ? t : read_s;
		read_cpu = cp < read_cpu ? cp : read_cpu;
		profev_reader_free(r);
	}
	struct profev_event e;
	struct profev_event_info info;
	uint64_t read2 = 0;
	for (int rep = 0; rep < REPEAT; rep++) {
		rewind(f);
		r = profev_reader_new(f, &err);
		double t0 = now();
		while (r && profev_reader_next_event(r, &e, &info) > 0)
			read2 += info.name[0] != 0;
		double t = now() - t0;
		read_ev_s = t < read_ev_s ? t : read_ev_s;
		profev_reader_free(r);
	}
	fclose(f);
	unlink(path);

	/* baseline: raw records through zstd at the writer's level, 64K events a frame */
	int level = wopts.zstd_level ? wopts.zstd_level : 1;
	size_t chunk = 65536, bound = ZSTD_compressBound(chunk * sizeof(*ev));
	void *z = malloc(bound);
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	uint64_t zbytes = 0;
	double t0 = now();
	for (uint64_t i = 0; i < n; i += chunk) {
		size_t k = n - i < chunk ? n - i : chunk;
		zbytes += ZSTD_compressCCtx(cctx, z, bound, ev + i, k * sizeof(*ev), level);
	}
	double base_s = now() - t0;
	close(devnull);
	ZSTD_freeCCtx(cctx);
	free(z);
	free(ev);

	if (read_n != n) {
		fprintf(stderr, "bench_trace: read %llu of %llu events\n", (unsigned long long)read_n,
			(unsigned long long)n);
		return 1;
	}
	printf("trace format: %llu game-shaped events, 8 threads, one core (checksum %llx, %llu named)\n\n",
	       (unsigned long long)n, (unsigned long long)(check & 0xffff), (unsigned long long)read2);
	printf("| %-34s | %14s | %12s | %10s |\n", "what", "events/s", "bytes/event", "vs baseline");
	printf("|%s|%s|%s|%s|\n", "------------------------------------", "----------------",
	       "--------------", "------------");
	printf("| %-34s | %12.1f M | %12.3f | %9.2fx |\n", "baseline: raw records + zstd", n / base_s / 1e6,
	       (double)zbytes / n, 1.0);
	printf("| %-34s | %12.1f M | %12.3f | %9.2fx |\n", "profev write (wall)", n / write_s / 1e6,
	       (double)size / n, base_s / write_s);
	printf("| %-34s | %12.1f M | %12s | %10s |\n", "profev write (cpu)", n / write_cpu / 1e6, "", "");
	printf("| %-34s | %12.1f M | %12s | %9.2fx |\n", "profev write, batches (wall)", n / batch_s / 1e6, "",
	       base_s / batch_s);
	printf("| %-34s | %12.1f M | %12s | %10s |\n", "profev write, batches (cpu)", n / batch_cpu / 1e6, "", "");
	printf("| %-34s | %12.1f M | %12s | %10s |\n", "profev read, chunks (wall)", n / read_s / 1e6, "", "");
	printf("| %-34s | %12.1f M | %12s | %10s |\n", "profev read, chunks (cpu)", n / read_cpu / 1e6, "", "");
	printf("| %-34s | %12.1f M | %12s | %10s |\n", "profev read, next_event + names", n / read_ev_s / 1e6, "", "");
	printf("\nsize: profev %.3f bytes/event, %.1fx smaller than the baseline's %.3f\n", (double)size / n,
	       (double)zbytes / size, (double)zbytes / n);
	printf("goals: write >= 50 M/s, read >= 100 M/s, <= 1 byte/event\n");
	return 0;
}
