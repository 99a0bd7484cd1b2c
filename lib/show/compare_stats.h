/* The statistics behind pfdump --compare, on sorted samples of durations:
 * summaries, the Mann-Whitney U test, a tail test at the 99th percentile,
 * and a confidence interval for the ratio of two medians. Pure
 * arithmetic, no trace in sight; t_compare_stats holds them to values
 * worked out by hand. Not installed.
 *
 * Both tests take the samples as independent draws; ties get midranks
 * (Mann-Whitney) and are counted on the same side of the threshold
 * (tail), so neither is fooled by a clock's coarse ticks. */
#ifndef PROFEV_COMPARE_STATS_H
#define PROFEV_COMPARE_STATS_H
#include <stdint.h>

/* Sort v[0..n) ascending; scratch holds n values. LSD radix on the bytes
 * that differ, so durations that fit 32 bits take four passes. */
void compare_sort(uint64_t *v, uint64_t n, uint64_t *scratch);

struct sample_summary {
	uint64_t n, total;
	double mean;
	uint64_t median, p90, p99;  /* nearest rank, as pfdump --stats */
};

/* Summary of sorted[0..n); all zero for n = 0. */
void compare_summarize(const uint64_t *sorted, uint64_t n, struct sample_summary *s);

/* Two-sided Mann-Whitney U test of sorted a[0..na) against b[0..nb) (both
 * at least 1), normal approximation with the tie and continuity
 * corrections. *z > 0 when b tends to be the larger. @return the p-value
 * (1 when every value is tied). */
double compare_mann_whitney(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb, double *z);

/* Tail test: q is the pooled sample's 99th percentile (nearest rank); of
 * the K values above q, how many are b's is hypergeometric when a and b
 * come from one distribution (q depends on the pooled values alone). Two
 * sided, normal approximation with continuity correction. *z > 0 when b
 * has more than its share above q. @return the p-value, or -1 when the
 * tail is too thin to test (fewer than TAIL_MIN values above q, or fewer
 * than 5 expected on either side). */
#define TAIL_MIN 20
double compare_tail(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb, double *z);

/* Ratio of b's median to a's (both sorted, n >= 1) with a confidence
 * interval of level 1 - alpha: each median's distribution-free interval
 * from order statistics gives the standard error of its logarithm, and
 * the two combine as independent. A zero median counts as 1 ns. */
void compare_median_ratio(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb, double alpha,
			  double *ratio, double *lo, double *hi);

/* The standard normal's quantile (bisection on erfc, to 1e-12) and its
 * upper tail. */
double compare_normal_quantile(double p);
double compare_normal_upper(double z);
#endif
