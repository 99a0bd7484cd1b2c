/* DXT1 encoder, AVX-512 path (this file is compiled with AVX-512 F, BW, VL
 * and VNNI): strips of 32 blocks, four per 512-bit vector, one in each
 * 128-bit lane (dxt1_kernel.h), VNNI's vpdpbusd for the projection; the
 * columns right of the last whole strip go to the 256-bit form of the same
 * (dxt1_avx512vl.c), whose strips are 16 blocks wide. */
#if defined(__AVX512VNNI__) && defined(__AVX512VL__) && defined(__AVX512BW__)
#include <string.h>
#include "image/dxt1_simd.h"

#define DXT1_VNNI 1
#define VF __m512
#define V __m512i
#define F(op) _mm512_##op
#define FS(op) _mm512_##op##_si512
#define NL 4
#define CONST8(...) _mm512_broadcast_i32x4(_mm_setr_epi8(__VA_ARGS__))
#define CMPEQ16(a, b) _mm512_movm_epi16(_mm512_cmpeq_epi16_mask(a, b))
#define LOAD(p) _mm512_loadu_si512((const void *)(p))
/* The lanes hold blocks 0, 4 and 1, 5 and 2, 6 and 3, 7: one permute of
 * the qwords puts them in order. */
#define STORE4(out, v) \
	_mm512_storeu_si512((void *)(out), _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), (v)))
#define SETUP_A setup_a_avx512
#define SETUP_B setup_b_avx512
#define PIXELS pixels_avx512
#include "image/dxt1_kernel.h"

void dxt1_rows_avx512(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		      uint8_t *out)
{
	uint32_t nb = width / 4, wide = nb / (8 * NL) * (8 * NL);
	if (wide)
		rows_simd(rgba, stride, 4 * wide, height, out, nb);
	if (wide < nb)
		dxt1_rows_avx512vl(rgba + 16 * (size_t)wide, stride, width - 4 * wide, height, out + 8 * (size_t)wide,
				   nb);
}
#else
/* Not x86: dxt1.c never calls this path. */
typedef int dxt1_no_avx512;
#endif
