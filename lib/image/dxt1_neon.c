/* DXT1 encoder, NEON path (aarch64, where Advanced SIMD is part of the
 * base architecture; dxt1_isa() still asks the kernel's HWCAP). One block
 * at a time: the bounding box by vector min/max, the per-block setup as
 * the plain C path takes it (dxt1_setup.h), then the 16 pixels' places on
 * the ramp in vectors, with the same integer steps as the plain C path,
 * so that the bytes are the same. */
#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#include <string.h>
#include "image/image.h"
#include "image/dxt1_setup.h"

/* Place on the ramp to index, as dxt1.c's code_of[]; a place saturated
 * to a negative byte keeps its top bit, and the table gives 0 for it. */
static const uint8_t code_of[16] = { 0, 2, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
/* Each pixel's 2 bits moved to its place within its row's byte. */
static const int8_t row_shift[16] = { 0, 2, 4, 6, 0, 2, 4, 6, 0, 2, 4, 6, 0, 2, 4, 6 };

/* The smallest (or largest) R, G and B of the 4 pixels of v, in mn[0..2]. */
static void reduce(uint8x16_t v, int largest, uint8_t out[3])
{
	uint8x16_t h = vextq_u8(v, v, 8);
	v = largest ? vmaxq_u8(v, h) : vminq_u8(v, h);
	h = vextq_u8(v, v, 4);
	v = largest ? vmaxq_u8(v, h) : vminq_u8(v, h);
	out[0] = vgetq_lane_u8(v, 0);
	out[1] = vgetq_lane_u8(v, 1);
	out[2] = vgetq_lane_u8(v, 2);
}

/* The 16 pixels' places, ((off - dot) * scale) >> 16, to 16 indices. */
static uint32_t indices(const uint8x16x4_t *px, const struct dxt1_setup *s)
{
	uint16x8_t dot[2];
	for (int half = 0; half < 2; half++) {
		uint8x8_t r = half ? vget_high_u8(px->val[0]) : vget_low_u8(px->val[0]);
		uint8x8_t g = half ? vget_high_u8(px->val[1]) : vget_low_u8(px->val[1]);
		uint8x8_t b = half ? vget_high_u8(px->val[2]) : vget_low_u8(px->val[2]);
		/* At most 3 * 255 * 31: the sum fits 16 bits. */
		uint16x8_t d = vmull_u8(r, vdup_n_u8(s->w[0]));
		d = vmlal_u8(d, g, vdup_n_u8(s->w[1]));
		dot[half] = vmlal_u8(d, b, vdup_n_u8(s->w[2]));
	}
	int32x4_t off = vdupq_n_s32(s->off), scale = vdupq_n_s32(s->scale);
	int16x8_t place[2];
	for (int half = 0; half < 2; half++) {
		int32x4_t lo = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(dot[half])));
		int32x4_t hi = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(dot[half])));
		lo = vshrq_n_s32(vmulq_s32(vsubq_s32(off, lo), scale), 16);
		hi = vshrq_n_s32(vmulq_s32(vsubq_s32(off, hi), scale), 16);
		place[half] = vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi));
	}
	/* Saturated to a signed byte, as the plain C path clamps it. */
	uint8x16_t p = vreinterpretq_u8_s8(vcombine_s8(vqmovn_s16(place[0]), vqmovn_s16(place[1])));
	uint8x16_t code = vqtbl1q_u8(vld1q_u8(code_of), vandq_u8(p, vdupq_n_u8(0x8f)));
	/* Bits 2x..2x+1 of each row's byte; the four bytes of a row add up
	 * to it, as no two overlap. */
	code = vshlq_u8(code, vld1q_s8(row_shift));
	uint32x4_t rows = vpaddlq_u16(vpaddlq_u8(code));
	return vgetq_lane_u32(rows, 0) | vgetq_lane_u32(rows, 1) << 8 | vgetq_lane_u32(rows, 2) << 16 |
	       vgetq_lane_u32(rows, 3) << 24;
}

static void block_neon(const uint8_t *p, ptrdiff_t stride, uint8_t *out)
{
	uint8_t rows[64];
	uint8x16_t mn = vdupq_n_u8(255), mx = vdupq_n_u8(0);
	for (int y = 0; y < 4; y++) {
		uint8x16_t row = vld1q_u8(p + y * stride);
		vst1q_u8(rows + 16 * y, row);
		mn = vminq_u8(mn, row);
		mx = vmaxq_u8(mx, row);
	}
	uint8_t lo[3], hi[3];
	reduce(mn, 0, lo);
	reduce(mx, 1, hi);
	struct dxt1_setup s;
	uint32_t idx = 0;
	if (block_setup(lo, hi, &s)) {
		/* R, G, B, A of the 16 pixels, in the order of their indices. */
		uint8x16x4_t px = vld4q_u8(rows);
		idx = indices(&px, &s);
	}
	block_store(out, s.colors, idx);
}

void dxt1_rows_neon(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		    uint8_t *out)
{
	for (uint32_t by = 0; by < height / 4; by++) {
		const uint8_t *row = rgba + (ptrdiff_t)by * 4 * stride;
		for (uint32_t bx = 0; bx < width / 4; bx++, out += 8)
			block_neon(row + bx * 16, stride, out);
	}
}
#else
/* Not aarch64: dxt1.c never calls this path. */
typedef int dxt1_no_neon;
#endif
