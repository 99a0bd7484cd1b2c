/* The per-block part of the DXT1 encoder that is not per pixel, as the
 * plain C path (dxt1.c) computes it; the SIMD paths (dxt1_kernel.h) take
 * the same steps for 8 blocks at a time. */
#ifndef PROFEV_DXT1_SETUP_H
#define PROFEV_DXT1_SETUP_H

#include "image/image.h"

/*
 * Endpoints are the block's bounding box, inset by 1/16 of its extent on
 * each side (the extremes of a 4-color ramp lie inside the range it
 * covers), rounded to RGB565. The axis weights are the endpoints'
 * difference scaled by a power of two so that the largest is 16..31, which
 * keeps every dot product of a pixel with them inside 16 bits. A pixel's
 * place on the ramp is r = ((off - dot) * scale) >> 16, about
 * 3 * (d0 - dot) / d + 1/2, with d0 the first endpoint's dot product and d
 * the endpoints' difference's: 0 is color0, 3 color1, below 0 beyond
 * color0, above 3 beyond color1. The pixels lie in the box, which keeps r
 * below 8 (the box's inset and the RGB565 rounding are small beside d),
 * so the index comes from a 16-entry table of r (dxt1.c, dxt1_simd.h). scale = round(3 * 2^16 / d), as an integer division; d is
 * at least 64, so scale fits 12 bits, and the SIMD paths get the same
 * quotient from a float division (numerator and divisor below 2^24).
 */
#define DXT1_SCALE_NUM (3 << 16)
static inline __attribute__((always_inline)) int block_setup(const uint8_t mn[3], const uint8_t mx[3],
							     struct dxt1_setup *s)
{
	unsigned q0[3], q1[3], e0[3], e1[3];
	for (int c = 0; c < 3; c++) {
		unsigned ins = (unsigned)(mx[c] - mn[c]) >> 4;
		unsigned hi = mx[c] - ins, lo = mn[c] + ins;
		if (c == 1) {
			q0[c] = (hi * 253 + 512) >> 10;
			q1[c] = (lo * 253 + 512) >> 10;
			e0[c] = q0[c] << 2 | q0[c] >> 4;
			e1[c] = q1[c] << 2 | q1[c] >> 4;
		} else {
			q0[c] = (hi * 249 + 1024) >> 11;
			q1[c] = (lo * 249 + 1024) >> 11;
			e0[c] = q0[c] << 3 | q0[c] >> 2;
			e1[c] = q1[c] << 3 | q1[c] >> 2;
		}
	}
	uint32_t c0 = q0[0] << 11 | q0[1] << 5 | q0[2];
	uint32_t c1 = q1[0] << 11 | q1[1] << 5 | q1[2];
	s->colors = c0 | c1 << 16;
	if (c0 == c1)
		return 0;
	unsigned a0 = e0[0] - e1[0], a1 = e0[1] - e1[1], a2 = e0[2] - e1[2];
	unsigned m = a0 | a1 | a2; /* same top bit as the largest */
	unsigned e = 31u - (unsigned)__builtin_clz(m);
	s->w[0] = (uint8_t)((a0 << 4) >> e);
	s->w[1] = (uint8_t)((a1 << 4) >> e);
	s->w[2] = (uint8_t)((a2 << 4) >> e);
	s->w[3] = 0;
	int32_t d0 = (int32_t)(s->w[0] * e0[0] + s->w[1] * e0[1] + s->w[2] * e0[2]);
	uint32_t d = s->w[0] * a0 + s->w[1] * a1 + s->w[2] * a2;
	s->off = d0 + (int32_t)((d * 10923u) >> 16);
	s->scale = (int32_t)((2 * DXT1_SCALE_NUM + d) / (2 * d));
	return 1;
}

/* A block's 8 bytes: the two endpoints, then the 16 indices, little-endian. */
static inline void block_store(uint8_t *out, uint32_t colors, uint32_t idx)
{
	for (int i = 0; i < 4; i++) {
		out[i] = (uint8_t)(colors >> (8 * i));
		out[4 + i] = (uint8_t)(idx >> (8 * i));
	}
}

#endif
