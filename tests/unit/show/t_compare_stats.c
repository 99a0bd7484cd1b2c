/* pfdump --compare's statistics on samples worked out by hand: the radix
 * sort, summaries, the Mann-Whitney U test with and without ties, the
 * tail test, the ratio of medians and the normal quantile. */
#include <math.h>
#include <stdlib.h>
#include "../check.h"
#include "show/compare_stats.h"

#define NEAR(a, b, tol) CHECK(fabs((a) - (b)) <= (tol))

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void sort_matches_qsort(uint64_t n, uint64_t mask, uint64_t seed)
{
	uint64_t *v = malloc(n * sizeof(*v)), *w = malloc(n * sizeof(*w)), *s = malloc(n * sizeof(*s));
	for (uint64_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = w[i] = (seed >> 7) & mask;
	}
	compare_sort(v, n, s);
	qsort(w, n, sizeof(*w), by_u64);
	uint64_t bad = 0;
	for (uint64_t i = 0; i < n; i++)
		bad += v[i] != w[i];
	CHECK_EQ_U64(bad, 0);
	free(v);
	free(w);
	free(s);
}

int main(void)
{
	/* sorting: small, 32-bit, 64-bit, one byte that varies, all equal */
	sort_matches_qsort(10, ~0ull, 1);
	sort_matches_qsort(10000, 0xffffffffull, 2);
	sort_matches_qsort(10000, ~0ull, 3);
	sort_matches_qsort(10000, 0xff00ull, 4);
	sort_matches_qsort(1000, 0, 5);

	/* summaries: nearest rank, as pfdump --stats */
	uint64_t hundred[100];
	for (int i = 0; i < 100; i++)
		hundred[i] = (uint64_t)i + 1;
	struct sample_summary s;
	compare_summarize(hundred, 100, &s);
	CHECK_EQ_U64(s.n, 100);
	CHECK_EQ_U64(s.total, 5050);
	NEAR(s.mean, 50.5, 1e-12);
	CHECK_EQ_U64(s.median, 50);
	CHECK_EQ_U64(s.p90, 90);
	CHECK_EQ_U64(s.p99, 99);
	compare_summarize(hundred, 0, &s);
	CHECK_EQ_U64(s.n, 0);

	/* Mann-Whitney: {1,2,3} against {4,5,6}: U = 9, mean 4.5, variance
	 * 5.25, z = (9 - 4.5 - 0.5) / sqrt(5.25) */
	double z, p;
	uint64_t a1[] = { 1, 2, 3 }, b1[] = { 4, 5, 6 };
	p = compare_mann_whitney(a1, 3, b1, 3, &z);
	NEAR(z, 4 / sqrt(5.25), 1e-12);
	NEAR(p, 0.0808555983700523, 1e-12);
	p = compare_mann_whitney(b1, 3, a1, 3, &z); /* the other way round */
	NEAR(z, -4 / sqrt(5.25), 1e-12);
	NEAR(p, 0.0808555983700523, 1e-12);
	/* with ties: {1,2,2} against {2,3,3}: midranks 3 and 5.5, U = 8,
	 * variance 9/12 * (7 - 30/30) = 4.5, z = 3 / sqrt(4.5) = sqrt(2) */
	uint64_t a2[] = { 1, 2, 2 }, b2[] = { 2, 3, 3 };
	p = compare_mann_whitney(a2, 3, b2, 3, &z);
	NEAR(z, sqrt(2), 1e-12);
	NEAR(p, 0.15729920705028513, 1e-12);
	/* all tied: no evidence at all */
	uint64_t same[] = { 5, 5 };
	p = compare_mann_whitney(same, 2, same, 2, &z);
	NEAR(p, 1, 0);
	NEAR(z, 0, 0);

	/* Tail: a = b = 1..1000: pooled p99 is 990, 10 above it on each side */
	uint64_t *a = malloc(1000 * sizeof(*a)), *b = malloc(1000 * sizeof(*b));
	for (int i = 0; i < 1000; i++)
		a[i] = b[i] = (uint64_t)i + 1;
	p = compare_tail(a, 1000, b, 1000, &z);
	NEAR(p, 1, 1e-12);
	NEAR(z, 0, 1e-12);
	/* b's top 20 become 5000: pooled p99 is 1000, and all 20 above it
	 * are b's where 10 were expected: variance 20/4 * 1980/1999 */
	for (int i = 980; i < 1000; i++)
		b[i] = 5000;
	p = compare_tail(a, 1000, b, 1000, &z);
	NEAR(z, 9.5 / sqrt(5.0 * 1980 / 1999), 1e-9);
	NEAR(p, 1.9647026306346258e-05, 1e-12);
	p = compare_tail(b, 1000, a, 1000, &z);
	CHECK(z < 0);
	/* too thin: 100 values give a tail of one */
	p = compare_tail(a, 50, b, 50, &z);
	NEAR(p, -1, 0);

	/* ratio of medians: constant samples have an interval of one point */
	for (int i = 0; i < 1000; i++) {
		a[i] = 100;
		b[i] = 110;
	}
	double r, lo, hi;
	compare_median_ratio(a, 1000, b, 1000, 0.05, &r, &lo, &hi);
	NEAR(r, 1.1, 1e-12);
	NEAR(lo, 1.1, 1e-12);
	NEAR(hi, 1.1, 1e-12);
	/* a = 1..1000 and b = 2a: ratio 2; each median's interval spans the
	 * ranks 500 -+ 1.96 * sqrt(1000) / 2 (469 to 532) */
	for (int i = 0; i < 1000; i++) {
		a[i] = (uint64_t)i + 1;
		b[i] = 2 * a[i];
	}
	compare_median_ratio(a, 1000, b, 1000, 0.05, &r, &lo, &hi);
	NEAR(r, 2, 1e-12);
	double se = (log(532.0) - log(469.0)) / (2 * compare_normal_quantile(0.975));
	NEAR(lo, 2 * exp(-compare_normal_quantile(0.975) * se * sqrt(2)), 1e-9);
	NEAR(hi, 2 * exp(compare_normal_quantile(0.975) * se * sqrt(2)), 1e-9);
	CHECK(lo < 2 && hi > 2);

	NEAR(compare_normal_quantile(0.975), 1.959963984540054, 1e-9);
	NEAR(compare_normal_quantile(0.5), 0, 1e-9);
	NEAR(compare_normal_quantile(0.01), -2.3263478740408408, 1e-9);
	NEAR(compare_normal_upper(1.959963984540054), 0.025, 1e-12);
	free(a);
	free(b);
	return CHECK_DONE();
}
