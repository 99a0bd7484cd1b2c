/* Frame statistics (frame_stats.c) against references computed here the
 * plain way: percentiles from the sorted frame times, the mean and the
 * standard deviation, the ten longest frames, and each one's zones from
 * every span of three threads, one in step with the marks, one behind them
 * in the file and one ahead. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "profev_dump.h"
#include "show/frame_stats.h"

#define FRAMES 3000
#define THREADS 3
#define SPANS 20000

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct act {
	uint64_t key;       /* file position: time plus the thread's lag */
	int kind;           /* 0 mark, 1 switch */
	uint32_t ti;
	uint64_t ts;
	uint32_t name;      /* the zone innermost before the switch, 0 none */
	uint64_t frame;
};

static int by_key(const void *a, const void *b)
{
	const struct act *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t marks[FRAMES + 1];
static struct act acts[FRAMES + 1 + THREADS * SPANS];
static uint64_t sorted[FRAMES];

/* The exact nearest rank, computed without frame_percentile(). */
static uint64_t nearest_rank(double p)
{
	uint64_t rank = (uint64_t)ceil(p * FRAMES - 1e-9);
	return sorted[rank ? rank - 1 : 0];
}

static struct profev_reader *empty_reader(FILE *f)
{
	struct profev_writer *w = profev_writer_new(fileno(f), NULL, NULL);
	CHECK(w != NULL);
	CHECK_EQ(profev_writer_close(w), 0);
	profev_writer_free(w);
	rewind(f);
	return profev_reader_new(f, NULL);
}

int main(void)
{
	FILE *f = tmpfile();
	struct profev_reader *r = empty_reader(f);
	CHECK(r != NULL);
	struct frame_stats *fs = frame_stats_new(r);
	uint64_t n = 0, t = 1000000;
	for (uint32_t i = 0; i <= FRAMES; i++) {
		marks[i] = t;
		/* mostly 16 ms, some long ones, ties included */
		t += 16000000 + next_rand() % 1000 + (next_rand() % 50 == 0 ? (next_rand() % 8) * 5000000 : 0);
		acts[n++] = (struct act){ marks[i] * 4, 0, 0, marks[i], 0, i + 100 };
	}
	static const int64_t lag[THREADS] = { 0, 40000000, -40000000 }; /* in step, behind, ahead */
	for (uint32_t ti = 0; ti < THREADS; ti++) {
		uint64_t ts = marks[0] - 5000000;
		for (uint32_t k = 0; k < SPANS; k++) {
			ts += 1 + next_rand() % 5000000;
			acts[n++] = (struct act){ (uint64_t)((int64_t)ts * 4 + lag[ti] * 4) + 1 + ti, 1, ti, ts,
						  k ? 1 + (uint32_t)(next_rand() % 6) : 0, 0 };
		}
	}
	qsort(acts, n, sizeof(*acts), by_key);
	for (uint64_t i = 0; i < n; i++) {
		const struct act *a = &acts[i];
		if (a->kind == 0) {
			struct profev_event ev = { .ts = a->ts, .frame = a->frame, .tid = 1, .type = PROFEV_EV_FRAME_MARK };
			CHECK_EQ(frame_stats_mark(fs, &ev), 0);
		} else {
			CHECK_EQ(frame_stats_switch(fs, a->ti, 100 + a->ti, a->ts, a->name != 0, a->name), 0);
		}
	}
	struct profev_stats s;
	memset(&s, 0, sizeof(s));
	CHECK_EQ(frame_stats_finish(fs, &s), 0);
	frame_stats_free(fs);
	CHECK_EQ(s.nframe_sets, 1);
	const struct profev_frame_set *set = &s.frame_sets[0];
	CHECK_EQ(set->count, FRAMES);
	CHECK_EQ(set->zones_partial, 0);

	/* The figures against the sorted reference. */
	double total = 0;
	for (uint32_t i = 0; i < FRAMES; i++) {
		sorted[i] = marks[i + 1] - marks[i];
		total += (double)sorted[i];
		CHECK_EQ_U64(set->frames[i].ns, sorted[i]);
		CHECK_EQ_U64(set->frames[i].number, i + 100);
	}
	qsort(sorted, FRAMES, sizeof(*sorted), by_u64);
	CHECK_EQ_U64(set->min_ns, sorted[0]);
	CHECK_EQ_U64(set->max_ns, sorted[FRAMES - 1]);
	CHECK_EQ_U64(set->p50_ns, nearest_rank(0.5));
	CHECK_EQ_U64(set->p90_ns, nearest_rank(0.9));
	CHECK_EQ_U64(set->p99_ns, nearest_rank(0.99));
	CHECK_EQ_U64(set->p999_ns, nearest_rank(0.999));
	CHECK_EQ_U64(frame_percentile(sorted, FRAMES, 10000), sorted[FRAMES - 1]);
	CHECK_EQ_U64(frame_percentile(sorted, FRAMES, 1), sorted[0]);
	CHECK_EQ_U64(frame_percentile(sorted, 1, 9990), sorted[0]);
	double mean = total / FRAMES, var = 0;
	for (uint32_t i = 0; i < FRAMES; i++)
		var += ((double)sorted[i] - mean) * ((double)sorted[i] - mean);
	CHECK(fabs(set->mean_ns - mean) < 1e-6 * mean);
	CHECK(fabs(set->stddev_ns - sqrt(var / FRAMES)) < 1e-6 * mean);
	CHECK(fabs(set->fps - 1e9 / mean) < 1e-9 * set->fps);

	/* The ten longest, ties by start, and each one's top zones by brute force. */
	CHECK_EQ(set->nworst, PROFEV_WORST_FRAMES);
	uint64_t prev_ns = UINT64_MAX, prev_start = 0;
	for (uint32_t w = 0; w < set->nworst; w++) {
		const struct profev_worst_frame *wf = &set->worst[w];
		CHECK(wf->f.ns < prev_ns || (wf->f.ns == prev_ns && wf->f.start_ts > prev_start));
		prev_ns = wf->f.ns;
		prev_start = wf->f.start_ts;
		/* no frame left out is longer, or as long and earlier */
		for (uint32_t i = 0; i < FRAMES; i++) {
			uint64_t d = marks[i + 1] - marks[i];
			int in = 0;
			for (uint32_t k = 0; k < set->nworst; k++)
				in |= set->worst[k].f.start_ts == marks[i];
			if (!in)
				CHECK(d < set->worst[set->nworst - 1].f.ns ||
				      (d == set->worst[set->nworst - 1].f.ns && marks[i] > set->worst[set->nworst - 1].f.start_ts));
		}
		uint64_t a = wf->f.start_ts, b = a + wf->f.ns;
		uint64_t share[THREADS][7];
		memset(share, 0, sizeof(share));
		uint64_t last[THREADS] = { 0 };
		for (uint64_t i = 0; i < n; i++) { /* every span, in its thread's order */
			const struct act *x = &acts[i];
			if (x->kind != 1)
				continue;
			uint64_t from = last[x->ti];
			last[x->ti] = x->ts;
			if (!x->name || !from)
				continue;
			uint64_t lo = from > a ? from : a, hi = x->ts < b ? x->ts : b;
			if (hi > lo)
				share[x->ti][x->name] += hi - lo;
		}
		for (uint32_t z = 0; z < PROFEV_FRAME_ZONES; z++) { /* take the best three in turn */
			uint32_t bt = 0, bn = 0;
			uint64_t best = 0;
			for (uint32_t ti = 0; ti < THREADS; ti++)
				for (uint32_t nm = 1; nm < 7; nm++)
					if (share[ti][nm] > best)
						best = share[ti][nm], bt = ti, bn = nm;
			if (!best)
				break;
			CHECK(z < wf->nzones);
			CHECK_EQ(wf->zones[z].tid, 100 + bt);
			CHECK_EQ(wf->zones[z].name, bn);
			CHECK_EQ_U64(wf->zones[z].ns, best);
			share[bt][bn] = 0;
		}
	}
	frame_stats_release(&s);
	profev_reader_free(r);
	fclose(f);
	return CHECK_DONE();
}
