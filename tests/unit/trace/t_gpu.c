/* GPU contexts, calibrations and zones through the writer and the reader:
 * zones come back with their GPU ticks and placed on the CPU timeline by
 * the calibrations (a known clock ratio, within 1 us; between two
 * calibrations on the line through them), impossible calibrations are
 * refused and counted, zones that cannot be placed are flagged. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "tracemem.h"
#include "profev_trace.h"

#define CPU0 5000000000ull
#define GPU0 1000ull
#define PERIOD 2.5 /* ns per GPU tick: a 400 MHz clock */

static uint64_t expect_ns(uint64_t gpu)
{
	return CPU0 + (uint64_t)llround((double)(gpu - GPU0) * PERIOD);
}

static int fill(struct profev_writer *w)
{
	struct profev_gpu_context c = { .id = 0, .kind = PROFEV_GPU_MANUAL, .tid = 7, .period_ns = PERIOD };
	struct profev_gpu_context bad = { .id = 3, .kind = PROFEV_GPU_OPENGL, .tid = 7, .period_ns = 0 };
	int rc = profev_writer_gpu_context(w, &c, "queue") | profev_writer_gpu_context(w, &bad, "broken");
	struct profev_gpu_calibration cal = { 0, 50, GPU0, CPU0 };
	rc |= profev_writer_gpu_calibration(w, &cal);
	cal = (struct profev_gpu_calibration){ 3, 0, 10, 20 };
	rc |= profev_writer_gpu_calibration(w, &cal);
	uint32_t draw = profev_writer_cstring(w, "draw"), post = profev_writer_cstring(w, "post");
	struct profev_gpu_zone z[100];
	for (int i = 0; i < 100; i++)
		z[i] = (struct profev_gpu_zone){ .gpu_begin = GPU0 + 1000 + (uint64_t)i * 4000,
						 .gpu_end = GPU0 + 3000 + (uint64_t)i * 4000,
						 .cpu_ns = CPU0 + (uint64_t)i * 10000, .ctx = 0,
						 .name = i % 2 ? post : draw, .tid = 7 };
	z[99].gpu_end = z[99].gpu_begin - 5; /* backwards */
	rc |= profev_writer_gpu_zones(w, z, 100);
	struct profev_gpu_zone zb = { .gpu_begin = 100, .gpu_end = 200, .ctx = 3, .name = draw, .tid = 7 };
	rc |= profev_writer_gpu_zones(w, &zb, 1);
	rc |= profev_writer_gpu_lost(w, 0, 7);
	rc |= profev_writer_flush(w);
	/* A second calibration 1 us late against the period; then one going
	 * backwards, refused. Zones between the two lie on their line. */
	cal = (struct profev_gpu_calibration){ 0, 50, GPU0 + 400000000ull, CPU0 + 1000000000ull + 1000 };
	rc |= profev_writer_gpu_calibration(w, &cal);
	cal = (struct profev_gpu_calibration){ 0, 50, GPU0 + 300000000ull, CPU0 + 1200000000ull };
	rc |= profev_writer_gpu_calibration(w, &cal);
	struct profev_gpu_zone mid = { .gpu_begin = GPU0 + 200000000ull, .gpu_end = GPU0 + 500000000ull,
				       .cpu_ns = CPU0, .ctx = 0, .name = draw, .tid = 8 };
	rc |= profev_writer_gpu_zones(w, &mid, 1);
	return rc | profev_writer_close(w);
}

struct got {
	int calls;
	size_t zones;
};

static void on_zones(void *arg, const struct profev_gpu_zone *z, size_t n)
{
	struct got *g = arg;
	g->calls++;
	g->zones += n;
	(void)z;
}

static void read_back(const struct tracemem *m)
{
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(m->data, m->len, &f, &err);
	CHECK(r != NULL);
	struct got g = { 0, 0 };
	profev_reader_on_gpu_zones(r, on_zones, &g);
	struct profev_chunk c;
	int rc, chunks = 0;
	while ((rc = profev_reader_next_chunk(r, &c)) == 1) {
		if (c.kind != PROFEV_CHUNK_GPU_ZONES)
			continue;
		chunks++;
		if (chunks == 1) {
			CHECK_EQ(c.ngpu_zones, 101);
			for (uint32_t i = 0; i < 100; i++) {
				const struct profev_gpu_zone *z = &c.gpu_zones[i];
				CHECK_EQ(z->ctx, 0);
				CHECK_STR(profev_reader_string(r, z->name), i % 2 ? "post" : "draw");
				CHECK_EQ(z->tid, 7);
				CHECK_EQ_U64(z->cpu_ns, CPU0 + i * 10000ull);
				CHECK_EQ_U64(z->gpu_begin, GPU0 + 1000 + i * 4000ull);
				if (i < 99) {
					CHECK_EQ(z->flags, 0);
					CHECK(llabs((long long)(z->begin_ns - expect_ns(z->gpu_begin))) <= 1000);
					CHECK(llabs((long long)(z->end_ns - expect_ns(z->gpu_end))) <= 1000);
					CHECK_EQ_U64(z->end_ns - z->begin_ns, 5000);
				} else {
					CHECK_EQ(z->flags, PROFEV_GPUZ_BACKWARDS);
					CHECK_EQ_U64(z->end_ns, z->begin_ns);
				}
			}
			CHECK_EQ(c.gpu_zones[100].flags, PROFEV_GPUZ_UNMAPPED);
			CHECK_EQ_U64(c.gpu_zones[100].begin_ns, 0);
		} else {
			CHECK_EQ(c.ngpu_zones, 1);
			const struct profev_gpu_zone *z = &c.gpu_zones[0];
			/* Halfway between the calibrations: half the 1 us late. */
			CHECK(llabs((long long)(z->begin_ns - (expect_ns(z->gpu_begin) + 500))) <= 1);
			/* Past the last one: its period from there. */
			CHECK(llabs((long long)(z->end_ns - (expect_ns(z->gpu_end) + 1000))) <= 1);
			CHECK_EQ(z->tid, 8);
		}
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ(chunks, 2);
	CHECK_EQ(g.calls, 2);
	CHECK_EQ(g.zones, 102);
	const struct profev_gpu_context *c0 = profev_reader_gpu_context(r, 0);
	const struct profev_gpu_context *c3 = profev_reader_gpu_context(r, 3);
	CHECK(c0 && c3 && !profev_reader_gpu_context(r, 1) && !profev_reader_gpu_context(r, 300));
	if (c0 && c3) {
		CHECK_STR(profev_reader_string(r, c0->name), "queue");
		CHECK_EQ(c0->kind, PROFEV_GPU_MANUAL);
		CHECK_EQ(c0->tid, 7);
		CHECK_EQ(c0->calibrations, 2);
		CHECK_EQ(c0->bad_calibrations, 1);
		CHECK_EQ(c0->lost, 7);
		CHECK(fabs(c0->max_drift_ns - 1000) < 1);
		CHECK(fabs(c0->drift_ppm - 1.0) < 0.01);
		CHECK_EQ(c3->calibrations, 0);
		CHECK_EQ(c3->bad_calibrations, 1);
		CHECK_EQ(c3->unmapped, 1);
	}
	uint64_t ns = 0;
	CHECK_EQ(profev_reader_gpu_time(r, 0, GPU0, &ns), 0);
	CHECK_EQ_U64(ns, CPU0);
	CHECK_EQ(profev_reader_gpu_time(r, 3, GPU0, &ns), -1);
	CHECK_EQ(profev_reader_gpu_time(r, 9, GPU0, &ns), -1);
	profev_reader_free(r);
	fclose(f);
}

/* A zone of a context never defined: the chunk is corrupt, named. */
static int fill_undefined(struct profev_writer *w)
{
	struct profev_gpu_zone z = { .gpu_begin = 1, .gpu_end = 2, .ctx = 5 };
	int rc = profev_writer_gpu_zones(w, &z, 1);
	return rc | profev_writer_close(w);
}

static void undefined_context(void)
{
	struct tracemem m;
	struct profev_error err;
	CHECK_EQ(tracemem_write(&m, fill_undefined, NULL, &err), 0);
	FILE *f;
	struct profev_reader *r = tracemem_reader(m.data, m.len, &f, &err);
	struct profev_chunk c;
	int rc;
	while ((rc = profev_reader_next_chunk(r, &c)) == 1)
		;
	CHECK_EQ(rc, PROFEV_E_CORRUPT);
	CHECK(strstr(profev_reader_error(r)->message, "gpu zones chunk") != NULL);
	profev_reader_free(r);
	fclose(f);
	free(m.data);
}

int main(void)
{
	struct tracemem m;
	struct profev_error err;
	CHECK_EQ(tracemem_write(&m, fill, NULL, &err), 0);
	read_back(&m);
	/* Every cut reads what came before and fails cleanly. */
	for (size_t cut = 0; cut < m.len; cut += 7) {
		FILE *f;
		struct profev_reader *r = tracemem_reader(m.data, cut, &f, &err);
		if (!r)
			continue;
		struct profev_chunk c;
		int rc;
		while ((rc = profev_reader_next_chunk(r, &c)) == 1)
			;
		CHECK(rc < 0);
		profev_reader_free(r);
		fclose(f);
	}
	free(m.data);
	undefined_context();
	struct profev_writer *w = NULL;
	(void)w;
	return CHECK_DONE();
}
