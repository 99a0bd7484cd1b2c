/* DXT1 encoder, SSE4.1 path (this file is compiled with -msse4.1): one
 * block per vector. */
#if defined(__SSE4_1__)
#include <string.h>
#include "image/dxt1_simd.h"

#define V __m128i
#define F(op) _mm_##op
#define FS(op) _mm_##op##_si128
#define _mm_setzero_si128_ _mm_setzero_si128
#define LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STORE(out, v) _mm_storel_epi64((__m128i *)(void *)(out), (v))
#define KERNEL block_sse41
#define Q_MUL Q_MUL1, Q_MUL1
#define Q_ADD Q_ADD1, Q_ADD1
#define Q_SHIFT Q_SHIFT1, Q_SHIFT1
#define E_HI E_HI1, E_HI1
#define E_LO E_LO1, E_LO1
#define C_PACK C_PACK1, C_PACK1
#define T_FRAC T_FRAC1, T_FRAC1
#define COLORS_BYTES COLORS1
#define TOP_HI TOP_HI1
#define TOP_LO TOP_LO1
#define CODES CODES1
#include "image/dxt1_kernel.h"

void dxt1_rows_sse41(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		     uint8_t *out)
{
	for (uint32_t by = 0; by < height / 4; by++) {
		const uint8_t *row = rgba + (ptrdiff_t)by * 4 * stride;
		for (uint32_t bx = 0; bx < width / 4; bx++, out += 8)
			block_sse41(row + bx * 16, stride, out);
	}
}
#else
/* Not x86: dxt1.c never calls this path. */
typedef int dxt1_no_sse41;
#endif
