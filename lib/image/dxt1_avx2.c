/* DXT1 encoder, AVX2 path (this file is compiled with -mavx2): two
 * neighbouring blocks at once, one in each 128-bit lane. */
#if defined(__AVX2__)
#include <string.h>
#include "image/dxt1_simd.h"

/* The kernel once for 128 bits (an odd last block of a row) ... */
#define V __m128i
#define F(op) _mm_##op
#define FS(op) _mm_##op##_si128
#define LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STORE(out, v) _mm_storel_epi64((__m128i *)(void *)(out), (v))
#define KERNEL block_one
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
#undef V
#undef F
#undef FS
#undef LOAD
#undef STORE
#undef KERNEL
#undef Q_MUL
#undef Q_ADD
#undef Q_SHIFT
#undef E_HI
#undef E_LO
#undef C_PACK
#undef T_FRAC
#undef COLORS_BYTES
#undef TOP_HI
#undef TOP_LO
#undef CODES

/* ... and once for 256 bits. */
static inline void store_pair(uint8_t *out, __m256i v)
{
	_mm_storel_epi64((__m128i *)(void *)out, _mm256_castsi256_si128(v));
	_mm_storel_epi64((__m128i *)(void *)(out + 8), _mm256_extracti128_si256(v, 1));
}
#define V __m256i
#define F(op) _mm256_##op
#define FS(op) _mm256_##op##_si256
#define _mm256_srli_si256_ _mm256_srli_si256
#define LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STORE(out, v) store_pair(out, v)
#define KERNEL block_pair
#define Q_MUL Q_MUL1, Q_MUL1, Q_MUL1, Q_MUL1
#define Q_ADD Q_ADD1, Q_ADD1, Q_ADD1, Q_ADD1
#define Q_SHIFT Q_SHIFT1, Q_SHIFT1, Q_SHIFT1, Q_SHIFT1
#define E_HI E_HI1, E_HI1, E_HI1, E_HI1
#define E_LO E_LO1, E_LO1, E_LO1, E_LO1
#define C_PACK C_PACK1, C_PACK1, C_PACK1, C_PACK1
#define T_FRAC T_FRAC1, T_FRAC1, T_FRAC1, T_FRAC1
#define COLORS_BYTES COLORS1, COLORS1
#define TOP_HI TOP_HI1, TOP_HI1
#define TOP_LO TOP_LO1, TOP_LO1
#define CODES CODES1, CODES1
#include "image/dxt1_kernel.h"

void dxt1_rows_avx2(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		    uint8_t *out)
{
	uint32_t nb = width / 4;
	for (uint32_t by = 0; by < height / 4; by++) {
		const uint8_t *row = rgba + (ptrdiff_t)by * 4 * stride;
		uint32_t bx = 0;
		for (; bx + 2 <= nb; bx += 2, out += 16)
			block_pair(row + bx * 16, stride, out);
		if (bx < nb) {
			block_one(row + bx * 16, stride, out);
			out += 8;
		}
	}
}
#else
/* Not x86: dxt1.c never calls this path. */
typedef int dxt1_no_avx2;
#endif
