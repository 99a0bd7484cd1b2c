/* DXT1 encoder, AVX-512 path, 256-bit part (this file is compiled with
 * AVX-512 F, BW, VL and VNNI): the AVX2 path's strips of 16 blocks, with
 * VNNI's vpdpbusd for the projection (dxt1_kernel.h, DXT1_VNNI). It takes
 * the columns right of dxt1_avx512.c's strips of 32 blocks. */
#if defined(__AVX512VNNI__) && defined(__AVX512VL__) && defined(__AVX512BW__)
#include <string.h>
#include "image/dxt1_simd.h"

/* The lanes hold blocks 0, 2 and 1, 3: one cross-lane permute puts them
 * in order. */
static inline void store4(uint8_t *out, __m256i v)
{
	_mm256_storeu_si256((__m256i *)(void *)out, _mm256_permute4x64_epi64(v, _MM_SHUFFLE(3, 1, 2, 0)));
}

#define DXT1_VNNI 1
#define VF __m256
#define V __m256i
#define F(op) _mm256_##op
#define FS(op) _mm256_##op##_si256
#define NL 2
#define LANES(...) __VA_ARGS__, __VA_ARGS__
#define LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STORE4(out, v) store4(out, v)
#define SETUP_A setup_a_avx512vl
#define SETUP_B setup_b_avx512vl
#define PIXELS pixels_avx512vl
#include "image/dxt1_kernel.h"

void dxt1_rows_avx512vl(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
			uint8_t *out, uint32_t pitch)
{
	rows_simd(rgba, stride, width, height, out, pitch);
}
#else
/* Not x86: dxt1.c never calls this path. */
typedef int dxt1_no_avx512vl;
#endif
