/* pfdump --compare where the truth is known, on dist.h's traces (what
 * tests/tools/mkdist writes), in one process so that hundreds of pairs
 * take a second: over pairs drawn from the same distributions with
 * different seeds, the share of rows flagged stays near alpha and not
 * above it; a zone 10% slower is flagged every time at 1000 times a side;
 * a zone whose mean stays but whose p99 doubles is flagged by its tail
 * every time at 10,000 times a side. The seeds are fixed: the same result
 * every run. The sample sizes are the ones pfdump(1) states; test 217
 * runs a few of these pairs through the command. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../check.h"
#include "dist.h"
#include "show/compare.h"

static struct profev_compare_side *side(uint64_t seed, uint64_t frames, const char *changes)
{
	FILE *f = tmpfile();
	struct profev_error err;
	struct profev_compare_side *s = NULL;
	if (!f || dist_write(fileno(f), seed, frames, changes, &err)) {
		CHECK(0);
		if (f)
			fclose(f);
		return NULL;
	}
	rewind(f);
	struct profev_reader *r = profev_reader_new(f, &err);
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(profev_compare_collect(r, &s), 0);
		profev_reader_free(r);
	}
	fclose(f);
	return s;
}

static const struct cmp_row *row(const struct cmp_table *t, const char *name, const char *where)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (strcmp(t->rows[i].name, name) == 0 &&
		    (where ? t->rows[i].where && strcmp(t->rows[i].where, where) == 0 : !t->rows[i].where))
			return &t->rows[i];
	return NULL;
}

/* The rows whose times are drawn independently: not the zone "load", a
 * fixed half from each of its two sites (a stratified sample varies less
 * than the test allows for, so it is flagged less often than alpha), nor
 * "legacy", always 30 us, nor "rare". */
static void count_null(const struct profev_compare_side *a, const struct profev_compare_side *b,
		       const struct profev_compare_opts *o, uint64_t *tested, uint64_t *flagged)
{
	static const struct { enum cmp_kind kind; const char *name, *where; } rows[] = {
		{ CMP_FRAMES, "", NULL },      { CMP_ZONE, "steady", NULL },
		{ CMP_ZONE, "bimodal", NULL }, { CMP_ZONE, "noisy", NULL },
		{ CMP_SITE, "load", "load_mesh assets.c:10" }, { CMP_SITE, "load", "load_texture assets.c:42" },
	};
	struct cmp_table t[3];
	for (int k = 0; k < 3; k++)
		CHECK_EQ(cmp_rows(a, b, (enum cmp_kind)k, o, &t[k]), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct cmp_row *w = row(&t[rows[i].kind], rows[i].name, rows[i].where);
		CHECK(w && (w->verdict == CMP_SAME || w->verdict == CMP_SLOWER || w->verdict == CMP_FASTER));
		if (!w)
			continue;
		(*tested)++;
		*flagged += w->verdict != CMP_SAME;
	}
	for (int k = 0; k < 3; k++)
		cmp_table_free(&t[k]);
}

int main(void)
{
	struct profev_compare_opts o;
	profev_compare_opts_init(&o);

	/* 1. The same distributions, 120 pairs of 1000 frames, no threshold. */
	static const double alphas[2] = { 0.05, 0.2 };
	uint64_t tested[2] = { 0 }, flagged[2] = { 0 };
	const unsigned pairs = 120;
	for (unsigned i = 0; i < pairs; i++) {
		struct profev_compare_side *a = side(1000 + 2 * i, 1000, ""), *b = side(1001 + 2 * i, 1000, "");
		if (!a || !b)
			return CHECK_DONE();
		for (int k = 0; k < 2; k++) {
			o.alpha = alphas[k];
			o.threshold = 0;
			count_null(a, b, &o, &tested[k], &flagged[k]);
		}
		profev_compare_side_free(a);
		profev_compare_side_free(b);
	}
	for (int k = 0; k < 2; k++) {
		double share = (double)flagged[k] / (double)tested[k];
		double sd = sqrt(alphas[k] * (1 - alphas[k]) / (double)tested[k]);
		printf("alpha %g: %llu of %llu rows flagged (%.4f)\n", alphas[k], (unsigned long long)flagged[k],
		       (unsigned long long)tested[k], share);
		CHECK_EQ_U64(tested[k], pairs * 6);
		CHECK(share <= alphas[k] + 3 * sd); /* never systematically above */
		CHECK(share >= alphas[k] * 0.6);    /* and near it */
	}

	/* 2. steady 10% slower, 1000 frames: flagged every time, by its median,
	 * with the true ratio in its interval or close; with the default
	 * threshold, noisy and load_mesh are not flagged. */
	profev_compare_opts_init(&o);
	unsigned slow_flagged = 0, others = 0;
	for (unsigned i = 0; i < 20; i++) {
		struct profev_compare_side *a = side(5000 + 2 * i, 1000, ""), *b = side(5001 + 2 * i, 1000, "slow");
		if (!a || !b)
			return CHECK_DONE();
		struct cmp_table t;
		CHECK_EQ(cmp_rows(a, b, CMP_ZONE, &o, &t), 0);
		const struct cmp_row *w = row(&t, "steady", NULL);
		slow_flagged += w && w->verdict == CMP_SLOWER && !w->by_tail;
		CHECK(w && ((w->lo <= 1.1 && 1.1 <= w->hi) || fabs(w->ratio - 1.1) < 0.03));
		w = row(&t, "noisy", NULL);
		others += w && w->verdict != CMP_SAME;
		cmp_table_free(&t);
		profev_compare_side_free(a);
		profev_compare_side_free(b);
	}
	printf("10%% slower: flagged %u of 20; unchanged noisy flagged %u of 20\n", slow_flagged, others);
	CHECK_EQ(slow_flagged, 20);
	CHECK(others <= 3);

	/* 3. bimodal, same mean, p99 doubled, 10,000 frames: flagged slower by
	 * the tail every time, though its mean moved by less than the
	 * sampling's 5% and its median fell. */
	unsigned tail_flagged = 0;
	for (unsigned i = 0; i < 10; i++) {
		struct profev_compare_side *a = side(7000 + 2 * i, 10000, ""), *b = side(7001 + 2 * i, 10000, "tail");
		if (!a || !b)
			return CHECK_DONE();
		struct cmp_table t;
		CHECK_EQ(cmp_rows(a, b, CMP_ZONE, &o, &t), 0);
		const struct cmp_row *w = row(&t, "bimodal", NULL);
		CHECK(w != NULL);
		if (w) {
			CHECK(fabs(w->sb.mean / w->sa.mean - 1) < 0.05);
			CHECK(w->p99_ratio > 1.8 && w->p99_ratio < 2.2);
			CHECK(w->ratio < 1);
			tail_flagged += w->verdict == CMP_SLOWER && w->by_tail;
		}
		cmp_table_free(&t);
		profev_compare_side_free(a);
		profev_compare_side_free(b);
	}
	printf("p99 doubled: flagged by the tail %u of 10\n", tail_flagged);
	CHECK_EQ(tail_flagged, 10);
	return CHECK_DONE();
}
