/* The recorder's lossy steps (image.h): dxt1_flatten() and dxt1_rd(). */
#include <string.h>
#include "image/image.h"

static void expand565(unsigned c, unsigned e[3])
{
	unsigned r = c >> 11, g = c >> 5 & 63, b = c & 31;
	e[0] = r << 3 | r >> 2;
	e[1] = g << 2 | g >> 4;
	e[2] = b << 3 | b >> 2;
}

size_t dxt1_flatten(uint8_t *blocks, size_t nb, unsigned max_diff)
{
	size_t n = 0;
	for (size_t i = 0; i < nb; i++) {
		uint8_t *p = blocks + 8 * i;
		unsigned c0 = p[0] | (unsigned)p[1] << 8, c1 = p[2] | (unsigned)p[3] << 8;
		if (c0 == c1)
			continue;
		unsigned a[3], b[3], m = 0;
		expand565(c0, a);
		expand565(c1, b);
		for (int k = 0; k < 3; k++) {
			unsigned d = a[k] > b[k] ? a[k] - b[k] : b[k] - a[k];
			m = d > m ? d : m;
		}
		if (m > max_diff)
			continue;
		/* The endpoints' mean, channel by channel in RGB565. */
		unsigned r = ((c0 >> 11) + (c1 >> 11) + 1) / 2;
		unsigned g = ((c0 >> 5 & 63) + (c1 >> 5 & 63) + 1) / 2;
		unsigned bl = ((c0 & 31) + (c1 & 31) + 1) / 2;
		unsigned c = r << 11 | g << 5 | bl;
		p[0] = p[2] = (uint8_t)c;
		p[1] = p[3] = (uint8_t)(c >> 8);
		p[4] = p[5] = p[6] = p[7] = 0;
		n++;
	}
	return n;
}

/* ---- dxt1_rd() ---- */

/* A candidate encoding of one block. */
struct cand {
	unsigned c0, c1;
	uint32_t ix;
	uint32_t sse;
};

/* 8-bit RGB to the nearest RGB565. */
static unsigned to565(const int v[3])
{
	int r = (v[0] * 31 + 127) / 255, g = (v[1] * 63 + 127) / 255, b = (v[2] * 31 + 127) / 255;
	r = r < 0 ? 0 : r > 31 ? 31 : r;
	g = g < 0 ? 0 : g > 63 ? 63 : g;
	b = b < 0 ? 0 : b > 31 ? 31 : b;
	return (unsigned)(r << 11 | g << 5 | b);
}

/* The palette dxt1_decode() gives the endpoints: four colors, or with
 * c0 <= c1 three and black (not produced here; computed for exactness). */
static void palette(unsigned c0, unsigned c1, int pal[4][3])
{
	unsigned e0[3], e1[3];
	expand565(c0, e0);
	expand565(c1, e1);
	for (int k = 0; k < 3; k++) {
		pal[0][k] = (int)e0[k];
		pal[1][k] = (int)e1[k];
		if (c0 > c1) {
			pal[2][k] = (int)((2 * e0[k] + e1[k] + 1) / 3);
			pal[3][k] = (int)((e0[k] + 2 * e1[k] + 1) / 3);
		} else {
			pal[2][k] = (int)((e0[k] + e1[k]) / 2);
			pal[3][k] = 0;
		}
	}
}

static inline uint32_t dist(const int a[3], const int b[3])
{
	int d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
	return (uint32_t)(d0 * d0 + d1 * d1 + d2 * d2);
}

/* Indices of the nearest of the first n (2 or 4) palette colors; the
 * error. With four, each pixel's index comes from its projection on the
 * endpoints' axis, then the error of that color; exact up to the palette's
 * rounding, and a third of the work of four distances. */
static void fit_indices(const int px[16][3], unsigned c0, unsigned c1, int n, struct cand *c)
{
	int pal[4][3];
	palette(c0, c1, pal);
	c->c0 = c0;
	c->c1 = c1;
	c->ix = 0;
	c->sse = 0;
	if (n == 2) {
		for (int i = 0; i < 16; i++) {
			uint32_t d0 = dist(px[i], pal[0]), d1 = dist(px[i], pal[1]);
			unsigned s = d1 < d0;
			c->ix |= (uint32_t)s << (2 * i);
			c->sse += s ? d1 : d0;
		}
		return;
	}
	/* t = 6 (p - e1).a / |a|^2 is in 0..6 along the axis from color1 to
	 * color0: boundaries at 1, 3, 5 between colors 1, 3, 2, 0. */
	int a[3] = { pal[0][0] - pal[1][0], pal[0][1] - pal[1][1], pal[0][2] - pal[1][2] };
	int len = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
	static const unsigned order[4] = { 1, 3, 2, 0 };
	for (int i = 0; i < 16; i++) {
		int t = 6 * ((px[i][0] - pal[1][0]) * a[0] + (px[i][1] - pal[1][1]) * a[1] +
			     (px[i][2] - pal[1][2]) * a[2]);
		unsigned k = (t >= len) + (t >= 3 * len) + (t >= 5 * len), s = order[k];
		c->ix |= (uint32_t)s << (2 * i);
		c->sse += dist(px[i], pal[s]);
	}
}

/* Endpoints that minimise the squared error for the given indices (least
 * squares, channel by channel), as RGB565. weights[i]: pixel i's share of
 * color0, in thirds. @return 0 when the system is singular. */
static int refit(const int px[16][3], uint32_t ix, const int wt[4], unsigned *c0, unsigned *c1)
{
	/* Minimise sum (a_i e0 + b_i e1 - p_i)^2 with a_i = w/3, b_i = 1 - a_i. */
	int aa = 0, ab = 0, bb = 0, ap[3] = { 0 }, bp[3] = { 0 };
	for (int i = 0; i < 16; i++) {
		int w = wt[ix >> (2 * i) & 3], a = w, b = 3 - w;
		aa += a * a, ab += a * b, bb += b * b;
		for (int k = 0; k < 3; k++)
			ap[k] += a * px[i][k], bp[k] += b * px[i][k];
	}
	long det = (long)aa * bb - (long)ab * ab;
	if (!det)
		return 0;
	int e0[3], e1[3];
	for (int k = 0; k < 3; k++) {
		/* Values in thirds: e = 3 * (solution). */
		double x0 = 3.0 * ((double)bb * ap[k] - (double)ab * bp[k]) / (double)det;
		double x1 = 3.0 * ((double)aa * bp[k] - (double)ab * ap[k]) / (double)det;
		e0[k] = (int)(x0 + (x0 < 0 ? -0.5 : 0.5));
		e1[k] = (int)(x1 + (x1 < 0 ? -0.5 : 0.5));
	}
	*c0 = to565(e0);
	*c1 = to565(e1);
	return 1;
}

/* Four colors: the encoder's endpoints (c0 > c1) with their nearest
 * indices (never worse than the encoder's), then one least-squares refit,
 * kept where it is better. */
static void four_color(const int px[16][3], unsigned c0, unsigned c1, struct cand *best)
{
	static const int wt4[4] = { 3, 0, 2, 1 };
	struct cand c;
	fit_indices(px, c0, c1, 4, best);
	unsigned a, b;
	if (!refit(px, best->ix, wt4, &a, &b))
		return;
	if (a < b) {
		unsigned t = a;
		a = b, b = t;
	}
	if (a == b)
		return;
	fit_indices(px, a, b, 4, &c);
	if (c.sse < best->sse)
		*best = c;
}

/* Two colors (indices 0 and 1 only): pixels split between the ends of the
 * four-color fit, each end the mean of its side, then refit. */
static int two_color(const int px[16][3], const struct cand *four, struct cand *best)
{
	static const int wt2[4] = { 3, 0, 3, 0 };
	int sum[2][3] = { { 0 } }, n[2] = { 0 };
	for (int i = 0; i < 16; i++) {
		unsigned s = four->ix >> (2 * i) & 3, side = s == 1 || s == 3;
		n[side]++;
		for (int k = 0; k < 3; k++)
			sum[side][k] += px[i][k];
	}
	if (!n[0] || !n[1])
		return 0;
	int m0[3], m1[3];
	for (int k = 0; k < 3; k++) {
		m0[k] = (sum[0][k] + n[0] / 2) / n[0];
		m1[k] = (sum[1][k] + n[1] / 2) / n[1];
	}
	unsigned a = to565(m0), b = to565(m1);
	best->sse = UINT32_MAX;
	for (int it = 0; it < 2; it++) {
		if (a < b) {
			unsigned t = a;
			a = b, b = t;
		}
		if (a == b)
			break;
		struct cand c;
		fit_indices(px, a, b, 2, &c);
		if (c.sse >= best->sse)
			break;
		*best = c;
		if (it || !refit(px, best->ix, wt2, &a, &b))
			break;
	}
	return best->sse != UINT32_MAX;
}

static void flat_color(const int px[16][3], struct cand *c)
{
	int m[3] = { 0, 0, 0 }, sq = 0;
	for (int i = 0; i < 16; i++)
		for (int k = 0; k < 3; k++)
			m[k] += px[i][k], sq += px[i][k] * px[i][k];
	int sum[3] = { m[0], m[1], m[2] };
	for (int k = 0; k < 3; k++)
		m[k] = (m[k] + 8) / 16;
	unsigned v = to565(m);
	int pal[4][3];
	palette(v, v, pal);
	c->c0 = c->c1 = v;
	c->ix = 0;
	/* sum (p - q)^2 = sum p^2 - 2 q sum p + 16 q^2 */
	int e = sq;
	for (int k = 0; k < 3; k++)
		e += 16 * pal[0][k] * pal[0][k] - 2 * pal[0][k] * sum[k];
	c->sse = (uint32_t)e;
}

static void put(uint8_t *b, const struct cand *c)
{
	b[0] = (uint8_t)c->c0;
	b[1] = (uint8_t)(c->c0 >> 8);
	b[2] = (uint8_t)c->c1;
	b[3] = (uint8_t)(c->c1 >> 8);
	b[4] = (uint8_t)c->ix;
	b[5] = (uint8_t)(c->ix >> 8);
	b[6] = (uint8_t)(c->ix >> 16);
	b[7] = (uint8_t)(c->ix >> 24);
}

/* The error of a block as it is. */
static void block_error(const int px[16][3], const uint8_t *b, struct cand *c)
{
	int pal[4][3];
	c->c0 = b[0] | (unsigned)b[1] << 8;
	c->c1 = b[2] | (unsigned)b[3] << 8;
	c->ix = b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
	palette(c->c0, c->c1, pal);
	c->sse = 0;
	for (int i = 0; i < 16; i++)
		c->sse += dist(px[i], pal[c->ix >> (2 * i) & 3]);
}

void dxt1_rd(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
	     uint8_t *blocks, const uint8_t *ref, unsigned lambda)
{
	const uint8_t *start = blocks;
	for (uint32_t by = 0; by < height / 4; by++)
		for (uint32_t bx = 0; bx < width / 4; bx++, blocks += 8) {
			int px[16][3];
			for (int y = 0; y < 4; y++) {
				const uint8_t *row = rgba + (ptrdiff_t)(by * 4 + (uint32_t)y) * stride + bx * 16;
				for (int x = 0; x < 4; x++)
					for (int k = 0; k < 3; k++)
						px[4 * y + x][k] = row[4 * x + k];
			}
			struct cand four, two, flat, same;
			unsigned c0 = blocks[0] | (unsigned)blocks[1] << 8, c1 = blocks[2] | (unsigned)blocks[3] << 8;
			uint64_t js = UINT64_MAX;
			if (ref && lambda) {
				block_error(px, ref + (blocks - start), &same);
				js = same.sse + (uint64_t)lambda * DXT1_RD_BITS_SAME;
				/* No other encoding can cost less than the flat one's bits. */
				if (js <= (uint64_t)lambda * DXT1_RD_BITS_FLAT) {
					memcpy(blocks, ref + (blocks - start), 8);
					continue;
				}
			}
			flat_color(px, &flat);
			const struct cand *pick = &flat;
			uint64_t jp = flat.sse + (uint64_t)lambda * DXT1_RD_BITS_FLAT;
			/* Four or two colors cost at least their bits. */
			if (c0 > c1 && jp > (uint64_t)lambda * DXT1_RD_BITS2) {
				four_color(px, c0, c1, &four);
				uint64_t j4 = four.sse + (uint64_t)lambda * DXT1_RD_BITS4;
				if (j4 < jp)
					pick = &four, jp = j4;
				if (lambda && jp > (uint64_t)lambda * DXT1_RD_BITS2 && two_color(px, &four, &two) &&
				    two.sse + (uint64_t)lambda * DXT1_RD_BITS2 < jp)
					pick = &two, jp = two.sse + (uint64_t)lambda * DXT1_RD_BITS2;
			}
			if (js <= jp) {
				memcpy(blocks, ref + (blocks - start), 8);
				continue;
			}
			put(blocks, pick);
		}
}
