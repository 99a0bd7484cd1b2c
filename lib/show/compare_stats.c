/* The statistics of pfdump --compare; see compare_stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "show/compare_stats.h"

void compare_sort(uint64_t *v, uint64_t n, uint64_t *scratch)
{
	if (n < 2)
		return;
	if (n < 64) { /* insertion sort: radix's counts cost more */
		for (uint64_t i = 1; i < n; i++) {
			uint64_t x = v[i], k = i;
			for (; k > 0 && v[k - 1] > x; k--)
				v[k] = v[k - 1];
			v[k] = x;
		}
		return;
	}
	static const unsigned bytes = 8;
	uint64_t all_and = ~0ull, all_or = 0;
	for (uint64_t i = 0; i < n; i++) {
		all_and &= v[i];
		all_or |= v[i];
	}
	uint64_t differ = all_and ^ all_or;
	uint64_t count[8 * 256]; /* 16 KiB */
	memset(count, 0, sizeof(count));
	for (uint64_t i = 0; i < n; i++)
		for (unsigned b = 0; b < bytes; b++)
			if ((differ >> (8 * b)) & 0xff)
				count[b * 256 + ((v[i] >> (8 * b)) & 0xff)]++;
	uint64_t *src = v, *dst = scratch;
	for (unsigned b = 0; b < bytes; b++) {
		if (!((differ >> (8 * b)) & 0xff))
			continue;
		uint64_t *c = count + b * 256, sum = 0;
		for (unsigned k = 0; k < 256; k++) {
			uint64_t x = c[k];
			c[k] = sum;
			sum += x;
		}
		for (uint64_t i = 0; i < n; i++)
			dst[c[(src[i] >> (8 * b)) & 0xff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

static uint64_t nearest_rank(const uint64_t *sorted, uint64_t n, unsigned per_10000)
{
	uint64_t rank = (n * per_10000 + 9999) / 10000;
	return sorted[rank ? rank - 1 : 0];
}

void compare_summarize(const uint64_t *sorted, uint64_t n, struct sample_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	s->n = n;
	long double total = 0;
	uint64_t t = 0;
	for (uint64_t i = 0; i < n; i++) {
		t += sorted[i];
		total += (long double)sorted[i];
	}
	s->total = t;
	s->mean = (double)(total / (long double)n);
	s->median = nearest_rank(sorted, n, 5000);
	s->p90 = nearest_rank(sorted, n, 9000);
	s->p99 = nearest_rank(sorted, n, 9900);
}

double compare_normal_upper(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

double compare_normal_quantile(double p)
{
	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p < 0.5)
		return -compare_normal_quantile(1 - p);
	double lo = 0, hi = 40, want = 1 - p;
	while (hi - lo > 1e-12) {
		double mid = (lo + hi) / 2;
		if (compare_normal_upper(mid) > want)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static double two_sided(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

double compare_mann_whitney(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb, double *z)
{
	long double rank_b = 0, ties = 0;
	uint64_t i = 0, k = 0, pos = 0;
	while (i < na || k < nb) {
		uint64_t v = k == nb || (i < na && a[i] <= b[k]) ? a[i] : b[k];
		uint64_t ca = 0, cb = 0;
		while (i < na && a[i] == v)
			i++, ca++;
		while (k < nb && b[k] == v)
			k++, cb++;
		long double t = (long double)(ca + cb);
		/* the tied values share the ranks pos + 1 .. pos + t */
		rank_b += (long double)cb * ((long double)pos + (t + 1) / 2);
		ties += t * t * t - t;
		pos += ca + cb;
	}
	long double n1 = (long double)na, n2 = (long double)nb, n = n1 + n2;
	long double u = rank_b - n2 * (n2 + 1) / 2;
	long double mean = n1 * n2 / 2;
	long double var = n1 * n2 / 12 * ((n + 1) - (n > 1 ? ties / (n * (n - 1)) : 0));
	if (var <= 0) {
		*z = 0;
		return 1;
	}
	long double d = u - mean;
	long double c = fabsl(d) > 0.5L ? fabsl(d) - 0.5L : 0;
	*z = (double)((d < 0 ? -c : c) / sqrtl(var));
	return two_sided(*z);
}

/* The value of rank k (from 0) of a and b merged. */
static uint64_t merged_rank(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb, uint64_t k)
{
	/* i values come from a and k + 1 - i from b */
	uint64_t lo = k + 1 > nb ? k + 1 - nb : 0, hi = k + 1 < na ? k + 1 : na;
	for (;;) {
		uint64_t i = lo + (hi - lo) / 2, j = k + 1 - i;
		if (i < na && j > 0 && b[j - 1] > a[i]) {
			lo = i + 1;
		} else if (i > 0 && j < nb && a[i - 1] > b[j]) {
			hi = i - 1;
		} else {
			if (!i)
				return b[j - 1];
			if (!j)
				return a[i - 1];
			return a[i - 1] > b[j - 1] ? a[i - 1] : b[j - 1];
		}
	}
}

/* Values of sorted v[0..n) above q. */
static uint64_t above(const uint64_t *v, uint64_t n, uint64_t q)
{
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n - lo;
}

double compare_tail(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb, double *z)
{
	*z = 0;
	uint64_t n = na + nb;
	if (!na || !nb)
		return -1;
	uint64_t rank = (n * 99 + 99) / 100;
	uint64_t q = merged_rank(a, na, b, nb, rank ? rank - 1 : 0);
	uint64_t ka = above(a, na, q), kb = above(b, nb, q), k = ka + kb;
	double N = (double)n, K = (double)k, fa = (double)na / N, fb = (double)nb / N;
	if (k < TAIL_MIN || K * fa < 5 || K * fb < 5)
		return -1;
	double var = K * fa * fb * (N - K) / (N - 1);
	if (var <= 0)
		return -1;
	double d = (double)kb - K * fb;
	double c = fabs(d) > 0.5 ? fabs(d) - 0.5 : 0;
	*z = (d < 0 ? -c : c) / sqrt(var);
	return two_sided(*z);
}

/* The standard error of ln(median) from its order-statistic interval. */
static double log_median_se(const uint64_t *v, uint64_t n, double zq)
{
	double half = zq * sqrt((double)n) / 2;
	double j = floor((double)(n + 1) / 2 - half); /* rank from 1 */
	uint64_t lo = j < 1 ? 0 : (uint64_t)j - 1;
	uint64_t hi = n - 1 - lo;
	if (hi < lo)
		hi = lo;
	double x = (double)(v[lo] ? v[lo] : 1), y = (double)(v[hi] ? v[hi] : 1);
	return (log(y) - log(x)) / (2 * zq);
}

void compare_median_ratio(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb, double alpha,
			  double *ratio, double *lo, double *hi)
{
	double zq = compare_normal_quantile(1 - alpha / 2);
	uint64_t ma = nearest_rank(a, na, 5000), mb = nearest_rank(b, nb, 5000);
	double lr = log((double)(mb ? mb : 1)) - log((double)(ma ? ma : 1));
	double sa = log_median_se(a, na, zq), sb = log_median_se(b, nb, zq);
	double se = sqrt(sa * sa + sb * sb);
	*ratio = (double)(mb ? mb : 1) / (double)(ma ? ma : 1);
	*lo = exp(lr - zq * se);
	*hi = exp(lr + zq * se);
}
