/*
 * bench_image - frame images: DXT1 encoding per ISA path, stored bytes per
 * image step by step, inter-frame coding on moving sequences, the game
 * thread's cost per PROFEV_FRAME_IMAGE against a memcpy of the image,
 * pfrec's CPU time per image, and the conversions (PNG, JPEG).
 *
 *   bench_image            run everything, print the tables
 *   bench_image encode     only the encoding table (for callgrind, too)
 *   bench_image call       only the run under the recorder (the game
 *                          thread's cost, pfrec's, the conversions)
 *
 * PROFEV_BENCH_TINY=1: the encoding table, then the run under the recorder
 * with 20 frames.
 *
 * The pictures are tests/lib/pictures.c's 320 x 180 game frame and
 * photograph-like picture. Baselines measured in the same run: a memcpy of
 * the RGBA image, zstd level 3 of the raw DXT1 blocks (what Tracy stores
 * before its reordering). Tracy's own figures (measured on this machine,
 * issue 15) are printed beside for reference. Times are the best of many
 * runs: the machine is shared.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <turbojpeg.h>
#include <unistd.h>
#include <zstd.h>
#include "bench.h"
#include "image/image.h"
#include "pictures.h"
#include "profev.h"
#include "profev_conv.h"
#include "profev_record.h"
#include "trace/trace_internal.h"

#define W 320
#define H 180
#define SEQ 60

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_seconds(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* 64-byte aligned, as pfrec's page-aligned slots in the shared file are
 * (a row of 320 pixels is 1280 bytes, so every row is): AVX-512's 64-byte
 * loads then never straddle two cache lines. */
static _Alignas(64) uint8_t game[W * H * 4], photo[W * H * 4];

static double best_encode(enum dxt1_path p, const uint8_t *px, uint8_t *out, int runs)
{
	double best = 1e9;
	for (int r = 0; r < runs; r++) {
		double t0 = now();
		dxt1_encode_isa(p, px, W * 4, W, H, out);
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

static double best_memcpy(uint8_t *dst, const uint8_t *src, size_t n, int runs)
{
	double best = 1e9;
	for (int r = 0; r < runs; r++) {
		double t0 = now();
		memcpy(dst, src, n);
		__asm__ volatile("" ::"r"(dst) : "memory");
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

static double decoded_psnr(const uint8_t *px, const uint8_t *blocks)
{
	static uint8_t back[W * H * 4];
	dxt1_decode(blocks, W, H, back, W * 4);
	return image_psnr(px, back, W, H);
}

/* Tracy's encoding time of the same picture on its path (issue 15). */
static const char *tracy_time(enum dxt1_path p)
{
#if defined(__aarch64__)
	(void)p;
	return "";
#else
	return p >= DXT1_AVX2 ? "15.3 us (AVX2)" : p == DXT1_SSE41 ? "24.2 us (SSE4.1)" : "";
#endif
}

static void encoding(void)
{
	static uint8_t blocks[W * H / 2], copy[W * H * 4];
	printf("encoding %dx%d (best of 400; baseline: memcpy of the RGBA image)\n", W, H);
	printf("  %-8s %-8s %10s %10s   %s\n", "picture", "path", "time", "PSNR", "Tracy (issue 15)");
	const struct { const char *name; const uint8_t *px; const char *tracy; } pics[] = {
		{ "game", game, "29.6 dB" }, { "photo", photo, "26.7 dB" } };
	for (int i = 0; i < 2; i++) {
		for (int p = (int)dxt1_isa(); p >= DXT1_SCALAR; p--) {
			double t = best_encode((enum dxt1_path)p, pics[i].px, blocks, p == DXT1_SCALAR ? 50 : 400);
			printf("  %-8s %-8s %8.2f us %7.2f dB   %s\n", pics[i].name, dxt1_isa_name((enum dxt1_path)p),
			       t * 1e6, decoded_psnr(pics[i].px, blocks),
			       tracy_time((enum dxt1_path)p));
		}
		printf("  %-8s %-8s %8.2f us\n", pics[i].name, "memcpy", best_memcpy(copy, pics[i].px, sizeof copy, 400) * 1e6);
	}
	printf("  Tracy's PSNR after encoding: %s (game), %s (photo), on its own pictures\n",
	       pics[0].tracy, pics[1].tracy);
}

static size_t zstd_size(const void *p, size_t n, int level)
{
	size_t bound = ZSTD_compressBound(n);
	void *z = malloc(bound);
	size_t r = ZSTD_compress(z, bound, p, n, level);
	free(z);
	return ZSTD_isError(r) ? 0 : r;
}

static size_t coded_size(uint32_t format, const uint8_t *blocks, double *us)
{
	struct image_coder *c = image_coder_new(0);
	image_coder_set_format(c, format);
	struct buf out = { 0 };
	struct profev_image img = { 1, W, H, PROFEV_IMG_DXT1, 0, 0, blocks, W * H / 2 };
	double best = 1e9;
	for (int r = 0; r < (us ? 20 : 1); r++) {
		buf_reset(&out);
		double t0 = now();
		image_encode(c, &img, 0, &out, NULL);
		double t = now() - t0;
		best = t < best ? t : best;
	}
	if (us)
		*us = best * 1e6;
	size_t n = out.len;
	buf_free(&out);
	image_coder_free(c);
	return n;
}

/* Stored bytes step by step, the PSNR (against the source RGBA) beside. */
static void storage(void)
{
	static uint8_t enc[W * H / 2], blocks[W * H / 2], planes[W * H / 2];
	printf("\nstored bytes per %dx%d image, PSNR against the source RGBA (raw DXT1: %d bytes)\n", W, H,
	       W * H / 2);
	const struct { const char *name; const uint8_t *px; double tracy_b, tracy_db; } pics[] = {
		{ "game", game, 17276, 29.6 }, { "photo", photo, 26472, 26.7 } };
	for (int i = 0; i < 2; i++) {
		const uint8_t *px = pics[i].px;
		dxt1_encode(px, W * 4, W, H, enc);
		double q = decoded_psnr(px, enc);
		printf("  %s (Tracy stores %.0f bytes at %.1f dB; goal <= %.0f bytes at >= %.1f dB)\n", pics[i].name,
		       pics[i].tracy_b, pics[i].tracy_db, 0.8 * pics[i].tracy_b, pics[i].tracy_db);
		printf("    %-52s %7zu B %6.2f dB %6.3fx Tracy\n", "zstd level 3 of the encoder's DXT1 (baseline)",
		       zstd_size(enc, sizeof enc, 3), q, (double)zstd_size(enc, sizeof enc, 3) / pics[i].tracy_b);
		image_planes(enc, sizeof enc / 8, planes);
		size_t pl = zstd_size(planes, sizeof planes, 3);
		printf("    %-52s %7zu B %6.2f dB %6.3fx\n", "planes + zstd 3 (format 3)", pl, q, pl / pics[i].tracy_b);
		memcpy(blocks, enc, sizeof blocks);
		dxt1_flatten(blocks, sizeof blocks / 8, DXT1_FLATTEN);
		size_t f3 = coded_size(PROFEV_IMG_DXT1Z, blocks, NULL);
		printf("    %-52s %7zu B %6.2f dB %6.3fx\n", "+ flattening near-flat blocks (pfrec before)", f3,
		       decoded_psnr(px, blocks), f3 / pics[i].tracy_b);
		double us4;
		size_t f4 = coded_size(PROFEV_IMG_DXT1RC, enc, &us4);
		printf("    %-52s %7zu B %6.2f dB %6.3fx  (%.0f us)\n", "format 4: context model + range coder", f4, q,
		       f4 / pics[i].tracy_b, us4);
		memcpy(blocks, enc, sizeof blocks);
		dxt1_rd(px, W * 4, W, H, blocks, NULL, 0);
		size_t r0 = coded_size(PROFEV_IMG_DXT1RC, blocks, NULL);
		printf("    %-52s %7zu B %6.2f dB %6.3fx\n", "+ nearest indices, endpoints refitted (lambda 0)", r0,
		       decoded_psnr(px, blocks), r0 / pics[i].tracy_b);
		static const unsigned lambdas[] = { 40, 80, 120, DXT1_RD_LAMBDA, 240 };
		for (size_t k = 0; k < sizeof lambdas / sizeof *lambdas; k++) {
			double t = 1e9;
			for (int r = 0; r < 10; r++) { /* best of 10: the machine is shared */
				memcpy(blocks, enc, sizeof blocks);
				double t0 = now();
				dxt1_rd(px, W * 4, W, H, blocks, NULL, lambdas[k]);
				double d = now() - t0;
				t = d < t ? d : t;
			}
			size_t n = coded_size(PROFEV_IMG_DXT1RC, blocks, NULL);
			char what[80];
			snprintf(what, sizeof what, "+ rate-distortion step, lambda %u%s", lambdas[k],
				 lambdas[k] == DXT1_RD_LAMBDA ? " (as pfrec stores)" : "");
			printf("    %-52s %7zu B %6.2f dB %6.3fx  (step %.0f us)\n", what, n, decoded_psnr(px, blocks),
			       n / pics[i].tracy_b, t * 1e6);
		}
	}
}

/* A moving sequence: each frame coded alone (the rate-distortion step
 * without a reference, coded alone), and as pfrec stores it (the step may
 * keep blocks of the previous image, which the coder codes against). */
static void sequence(const char *name, void (*make)(uint8_t *, uint32_t))
{
	static uint8_t px[W * H * 4], enc[W * H / 2], blocks[W * H / 2], prev[W * H / 2];
	struct image_coder *c1 = image_coder_new(0), *c2 = image_coder_new(0);
	struct buf out = { 0 };
	size_t alone = 0, stored = 0, inter = 0;
	double q1 = 0, q2 = 0;
	for (uint32_t f = 0; f < SEQ; f++) {
		make(px, f);
		dxt1_encode(px, W * 4, W, H, enc);
		memcpy(blocks, enc, sizeof blocks);
		dxt1_rd(px, W * 4, W, H, blocks, NULL, DXT1_RD_LAMBDA);
		q1 += decoded_psnr(px, blocks);
		struct profev_image img = { f + 1, W, H, PROFEV_IMG_DXT1, f, f, blocks, sizeof blocks };
		buf_reset(&out);
		image_encode(c1, &img, 0, &out, NULL);
		alone += out.len;

		memcpy(blocks, enc, sizeof blocks);
		dxt1_rd(px, W * 4, W, H, blocks, f ? prev : NULL, DXT1_RD_LAMBDA);
		q2 += decoded_psnr(px, blocks);
		struct image_code_stats st;
		buf_reset(&out);
		image_encode(c2, &img, 1, &out, &st);
		stored += out.len;
		inter += out.data[0] != 0;
		memcpy(prev, blocks, sizeof prev);
	}
	printf("  %-28s %9.0f B %6.2f dB %9.0f B %6.2f dB %7.2fx %5d of %d\n", name, (double)alone / SEQ, q1 / SEQ,
	       (double)stored / SEQ, q2 / SEQ, (double)alone / (double)stored, (int)inter, SEQ);
	buf_free(&out);
	image_coder_free(c1);
	image_coder_free(c2);
}

static void game_frames(uint8_t *px, uint32_t f) { pic_game(px, W, H, f); }
static void photo_pan(uint8_t *px, uint32_t f) { pic_photo(px, W, H, f); }
static void photo_pan4(uint8_t *px, uint32_t f) { pic_photo(px, W, H, 4 * f); }
static void photo_still(uint8_t *px, uint32_t f) { (void)f; pic_photo(px, W, H, 0); }

static void sequences(void)
{
	printf("\n%d-frame moving sequences: bytes per image and mean PSNR, each frame coded alone and as pfrec\n"
	       "stores them (blocks of the previous image kept where that pays, coded against it where smaller)\n", SEQ);
	printf("  %-28s %20s %20s %8s %12s\n", "sequence", "frame by frame", "as pfrec stores", "gain",
	       "inter frames");
	sequence("game, moving, new grain", game_frames);
	sequence("photo, pan 1 px a frame", photo_pan);
	sequence("photo, pan 4 px a frame", photo_pan4);
	sequence("photo, standing still", photo_still);
}

/* ---- under the recorder: the program's side and pfrec's ---- */

/*
 * The game thread's side. The game renders a frame (pic_game: the source
 * is hot in the game's cache, as after a readback), sends it and waits for
 * its next frame: FRAME_NS apart, so pfrec (about 1 ms of CPU per image)
 * keeps up and the figures are the call's, not lossless mode's waits for a
 * slot. Each call is timed; best and median are printed, and baselines
 * measured in the same process right after:
 *   - hot: memcpy of the image into one buffer, again and again (lines the
 *     game's core owns);
 *   - paced: memcpy into 4 buffers in turn, FRAME_NS apart like the calls:
 *     what a copy costs after the thread slept (other programs ran on its
 *     core meanwhile), pfrec or not;
 *   - hand-off: memcpy into one buffer that a thread on the other core
 *     reads after each copy, as pfrec reads a slot (and as Tracy's
 *     compression thread reads its copy): the copy takes the lines back
 *     from the reader's core;
 *   - hand-off in turn: the same with 4 buffers used in turn, as the
 *     client takes its 4 slots;
 *   - the same where the reader then works on 1.5 MB of its own, so that
 *     the buffers' lines have left its core's cache for the shared L3:
 *     what a cross-core hand-off can cost at best here.
 * The load average is printed at both ends: the machine is shared.
 */
#define FRAME_NS 4000000L
#define HANDOFF_BUFS 4
#define NBASE 5 /* baselines */

#define EVICT_BYTES (3u << 19)

static uint8_t handoff_buf[HANDOFF_BUFS][W * H * 4];
static uint8_t evict_buf[EVICT_BYTES];
static int handoff_turn, handoff_which, handoff_evict;
static volatile uint64_t handoff_sink;

/* Until *p != v; yields now and then, since on a loaded machine the other
 * thread may wait for this core. */
static int spin_while(int *p, int v)
{
	int t;
	for (unsigned k = 1; (t = __atomic_load_n(p, __ATOMIC_ACQUIRE)) == v; k++)
		if (k % 4096 == 0)
			sched_yield();
	return t;
}

static void *handoff_reader(void *arg)
{
	(void)arg;
	for (;;) {
		if (spin_while(&handoff_turn, 0) == 2)
			return NULL;
		const uint8_t *b = handoff_buf[__atomic_load_n(&handoff_which, __ATOMIC_RELAXED)];
		uint64_t s = 0;
		for (size_t i = 0; i < sizeof handoff_buf[0]; i += 8)
			s += *(const uint64_t *)(const void *)(b + i);
		/* Then work on 1.5 MB of its own, more than its core's L2
		 * (1 MB here): the buffer's lines leave that cache for the
		 * shared L3, which is what the copy then finds. */
		if (handoff_evict)
			for (size_t i = 0; i < sizeof evict_buf; i += 64)
				s += evict_buf[i];
		handoff_sink = s;
		__atomic_store_n(&handoff_turn, 0, __ATOMIC_RELEASE);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Best and median of t[0..n), which it sorts. */
static void best_median(double *t, int n, double *best, double *median)
{
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	*best = n ? t[0] : 0;
	*median = n ? t[n / 2] : 0;
}

/* The next frame's start, FRAME_NS after the last. */
static void next_frame(struct timespec *next)
{
	next->tv_nsec += FRAME_NS;
	if (next->tv_nsec >= 1000000000L) {
		next->tv_nsec -= 1000000000L;
		next->tv_sec++;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
}

/* Pins the calling thread to cpu; -1 leaves it as it is. */
static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (cpu >= 0)
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* A CPU this thread may run on other than cpu, or -1. */
static int other_cpu(int cpu)
{
	cpu_set_t set;
	if (pthread_getaffinity_np(pthread_self(), sizeof set, &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != cpu && CPU_ISSET(c, &set))
			return c;
	return -1;
}

static int reader_cpu;

static void *pinned_reader(void *arg)
{
	pin(reader_cpu);
	return handoff_reader(arg);
}

/*
 * A copy into buffer (i % bufs) each time. handoff 1: another thread, on
 * another core (both pinned, so that the scheduler cannot put them on one
 * core), reads the buffer after each copy; 2: and then works on memory of
 * its own. paced: FRAME_NS between copies, as the calls are.
 */
static void copies(const uint8_t *src, int n, int bufs, int handoff, int paced, double *t)
{
	pthread_t th;
	cpu_set_t saved;
	int pinned = handoff && pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
	handoff_evict = handoff > 1;
	/* The last round's reader was told to stop with 2: a new reader that
	 * still found 2 would stop at once, and the first hand-off would wait
	 * for it for ever. */
	__atomic_store_n(&handoff_turn, 0, __ATOMIC_RELEASE);
	if (handoff) {
		int me = sched_getcpu();
		reader_cpu = other_cpu(me);
		if (reader_cpu < 0 || pthread_create(&th, NULL, pinned_reader, NULL))
			handoff = 0; /* one CPU: no hand-off to measure */
		else
			pin(me);
	}
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int i = 0; i < n; i++) {
		uint8_t *dst = handoff_buf[i % bufs];
		double t0 = now();
		memcpy(dst, src, sizeof handoff_buf[0]);
		__asm__ volatile("" ::"r"(dst) : "memory");
		t[i] = now() - t0;
		if (handoff) {
			__atomic_store_n(&handoff_which, i % bufs, __ATOMIC_RELAXED);
			__atomic_store_n(&handoff_turn, 1, __ATOMIC_RELEASE);
			spin_while(&handoff_turn, 1);
		}
		if (paced)
			next_frame(&next);
	}
	if (handoff) {
		__atomic_store_n(&handoff_turn, 2, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
	}
	if (pinned)
		pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
}

static void loadavg(double *l)
{
	FILE *f = fopen("/proc/loadavg", "r");
	if (!f || fscanf(f, "%lf", l) != 1)
		*l = -1;
	if (f)
		fclose(f);
}

static int client(int n)
{
	static uint8_t buf[W * H * 4];
	double *t = calloc((size_t)n + 1, sizeof *t), load0, load1, r[2 + 2 * NBASE];
	if (!t)
		return 1;
	loadavg(&load0);
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int i = 0; i < n; i++) {
		pic_game(buf, W, H, (uint32_t)i % 8);
		double t0 = now();
		PROFEV_FRAME_IMAGE(buf, W, H, 0, 0);
		t[i] = now() - t0;
		PROFEV_FRAME_MARK();
		next_frame(&next);
	}
	best_median(t, n, &r[0], &r[1]);
	/* hot; paced as the calls; hand-off; in turn; in turn, let go */
	static const int how[NBASE][4] = { { 1, 0, 0 }, { HANDOFF_BUFS, 0, 1 }, { 1, 1, 0 }, { HANDOFF_BUFS, 1, 0 },
					   { HANDOFF_BUFS, 2, 0 } };
	for (int k = 0; k < NBASE; k++) {
		copies(buf, n, how[k][0], how[k][1], how[k][2], t);
		best_median(t, n, &r[2 + 2 * k], &r[3 + 2 * k]);
	}
	loadavg(&load1);
	for (int k = 0; k < 2 + 2 * NBASE; k++)
		fprintf(stderr, "%.9f ", r[k]);
	fprintf(stderr, "%.2f %.2f\n", load0, load1);
	free(t);
	return 0;
}

static int record(char **argv, const char *out, int errfd)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = fd;
	o.child_stdout = -1;
	struct profev_error err;
	int saved = dup(2);
	dup2(errfd, 2);
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	struct profev_record_result res;
	int rc = r ? profev_recorder_run(r, &res) : -1;
	dup2(saved, 2);
	close(saved);
	profev_recorder_free(r);
	close(fd);
	return rc;
}

static int count_bytes(void *ctx, const void *data, size_t len)
{
	(void)data;
	*(uint64_t *)ctx += len;
	return 0;
}

/* CPU seconds of the conversion, or -1 when it fails (said on stderr). */
static double convert(const char *trace, int format, unsigned flags, const char *dir, uint64_t *bytes)
{
	FILE *f = fopen(trace, "rb");
	struct profev_error err;
	struct profev_reader *r = f ? profev_reader_new(f, &err) : NULL;
	if (!r) {
		bench_cannot("the conversions", "cannot read '%s'", trace);
		if (f)
			fclose(f);
		return -1;
	}
	struct profev_conv_opts o;
	profev_conv_opts_init(&o, format);
	o.flags = flags;
	o.image_dir = dir;
	*bytes = 0;
	struct profev_conv_sink sink = { NULL, count_bytes, NULL, bytes };
	double c0 = cpu_seconds(RUSAGE_SELF);
	int rc = profev_conv_run(r, &o, &sink, NULL, &err);
	double c = cpu_seconds(RUSAGE_SELF) - c0;
	profev_reader_free(r);
	fclose(f);
	if (rc < 0) {
		bench_cannot("the conversions", "pfconv to %s: %s", profev_conv_format_name(format), err.message);
		return -1;
	}
	return c;
}

static void recorded(const char *self)
{
	const int n = bench_tiny() ? 20 : 600;
	char tmp[] = "/tmp/profev-bench-image-XXXXXX";
	if (!mkdtemp(tmp))
		return;
	char trace[512], errs[512], dir[512], count[16];
	snprintf(trace, sizeof trace, "%s/t.bin", tmp);
	snprintf(errs, sizeof errs, "%s/err.txt", tmp);
	snprintf(dir, sizeof dir, "%s/png", tmp);
	mkdir(dir, 0755);
	double rec[2];
	for (int k = 0; k < 2; k++) {
		snprintf(count, sizeof count, "%d", k ? n : 0);
		char *argv[] = { (char *)self, "client", count, NULL };
		int efd = open(errs, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		double c0 = cpu_seconds(RUSAGE_SELF);
		int rc = record(argv, trace, efd);
		rec[k] = cpu_seconds(RUSAGE_SELF) - c0;
		close(efd);
		if (rc < 0) {
			bench_cannot("the images under the recorder", "the recording of %s frames failed", count);
			goto out;
		}
	}
	/* The client's figures: its stderr, one line of numbers (client()). */
	double f[4 + 2 * NBASE] = { 0 };
	FILE *e = fopen(errs, "r");
	int got = 0;
	while (e && got < 4 + 2 * NBASE && fscanf(e, "%lf", &f[got]) == 1)
		got++;
	if (e)
		fclose(e);
	struct stat st;
	if (stat(trace, &st) != 0 || st.st_size == 0) {
		bench_cannot("the images under the recorder", "no trace in '%s'", trace);
		goto out;
	}
	printf("\nunder the recorder: %d game frames %dx%d, %.0f ms apart, lossless", n, W, H, FRAME_NS / 1e6);
	if (got == 4 + 2 * NBASE)
		printf("; load average %.2f, then %.2f", f[2 + 2 * NBASE], f[3 + 2 * NBASE]);
	printf("\n");
	int timed = got == 4 + 2 * NBASE;
	for (int i = 0; timed && i < 2 + 2 * NBASE; i++)
		timed = f[i] > 0;
	if (!timed) {
		bench_cannot("the game thread's cost", "the client printed %d of its %d figures, or a time of 0, in '%s'",
			     got, 4 + 2 * NBASE, errs);
	} else {
		printf("  %-46s %8s %8s %s\n", "the game thread's cost", "best", "median", "(the call: best, median)");
		printf("  %-46s %5.2f us %5.2f us\n", "PROFEV_FRAME_IMAGE", f[0] * 1e6, f[1] * 1e6);
		const char *base[NBASE] = { "memcpy, hot buffer (baseline)", "memcpy, 4 buffers in turn, paced as the calls",
					    "memcpy, buffer another core reads", "memcpy, 4 buffers in turn another core reads",
					    "the same, the reader's cache has let them go" };
		for (int i = 0; i < NBASE; i++)
			printf("  %-46s %5.2f us %5.2f us  call %.2fx, %.2fx\n", base[i], f[2 + 2 * i] * 1e6,
			       f[3 + 2 * i] * 1e6, f[0] / f[2 + 2 * i], f[1] / f[3 + 2 * i]);
	}
	printf("  %-44s %8.1f us (both its threads; run without images subtracted)\n", "pfrec CPU time per image",
	       (rec[1] - rec[0]) * 1e6 / n);
	printf("  %-44s %8.0f bytes per image (whole trace)\n", "trace size", (double)st.st_size / n);

	uint64_t b0, b1;
	double png = convert(trace, PROFEV_CONV_PNG, 0, dir, &b0);
	double pf = convert(trace, PROFEV_CONV_PERFETTO, 0, NULL, &b1);
	double pf0 = convert(trace, PROFEV_CONV_PERFETTO, PROFEV_CONV_NO_IMAGES, NULL, &b0);
	if (png >= 0)
		printf("  %-44s %8.1f us per image (CPU, reading included)\n", "pfconv to png", png * 1e6 / n);
	if (pf >= 0 && pf0 >= 0 && b1 > b0)
		printf("  %-44s %8.1f us per image (CPU, the run with --no-images subtracted), %.0f bytes\n",
		       "pfconv to perfetto: JPEG screenshots", (pf - pf0) * 1e6 / n, (double)(b1 - b0) / n);
	else if (pf >= 0 && pf0 >= 0)
		bench_cannot("the JPEG screenshots", "the Perfetto output is no larger with the images than without");
out:;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_image: could not remove %s\n", tmp);
}

static void jpeg(void)
{
	static uint8_t blocks[W * H / 2], rgba[W * H * 4], back[W * H * 4];
	tjhandle tc = tjInitCompress(), td = tjInitDecompress();
	printf("\nJPEG of the stored DXT1 (what Perfetto and Chrome get: pfrec's blocks decoded; TurboJPEG quality 85, 4:2:0)\n");
	printf("  %-8s %10s %18s %18s\n", "picture", "bytes", "PSNR vs original", "PSNR vs DXT1");
	const struct { const char *name; const uint8_t *px; } pics[] = { { "game", game }, { "photo", photo } };
	for (int i = 0; i < 2; i++) {
		dxt1_encode(pics[i].px, W * 4, W, H, blocks);
		dxt1_rd(pics[i].px, W * 4, W, H, blocks, NULL, DXT1_RD_LAMBDA);
		dxt1_decode(blocks, W, H, rgba, W * 4);
		unsigned char *jpg = NULL;
		unsigned long len = 0;
		tjCompress2(tc, rgba, W, 0, H, TJPF_RGBA, &jpg, &len, TJSAMP_420, 85, TJFLAG_FASTDCT);
		tjDecompress2(td, jpg, len, back, W, 0, H, TJPF_RGBA, 0);
		printf("  %-8s %10lu %15.2f dB %15.2f dB\n", pics[i].name, len, image_psnr(pics[i].px, back, W, H),
		       image_psnr(rgba, back, W, H));
		tjFree(jpg);
	}
	tjDestroy(tc);
	tjDestroy(td);
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "client") == 0)
		return client(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "call") == 0) {
		recorded(argv[0]);
		return bench_status();
	}
	pic_game(game, W, H, 7);
	pic_photo(photo, W, H, 0);
	printf("best DXT1 path on this machine: %s\n\n", dxt1_isa_name(dxt1_isa()));
	encoding();
	if (argc > 1 && strcmp(argv[1], "encode") == 0)
		return 0;
	if (!bench_tiny()) {
		storage();
		sequences();
		jpeg();
	}
	recorded(argv[0]);
	return bench_status();
}
