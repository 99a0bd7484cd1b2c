/* DXT1 encoder, AVX2 path (this file is compiled with -mavx2): strips of
 * 16 blocks, two per vector, one in each 128-bit lane (dxt1_kernel.h). */
#if defined(__AVX2__)
#include <string.h>
#include "image/dxt1_simd.h"

/* The lanes hold blocks 0, 2 and 1, 3: one cross-lane permute puts them
 * in order. */
static inline void store4(uint8_t *out, __m256i v)
{
	_mm256_storeu_si256((__m256i *)(void *)out, _mm256_permute4x64_epi64(v, _MM_SHUFFLE(3, 1, 2, 0)));
}

#define VF __m256
#define V __m256i
#define F(op) _mm256_##op
#define FS(op) _mm256_##op##_si256
#define NL 2
#define LANES(...) __VA_ARGS__, __VA_ARGS__
#define LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STORE4(out, v) store4(out, v)
#define SETUP_A setup_a_avx2
#define SETUP_B setup_b_avx2
#define PIXELS pixels_avx2
#include "image/dxt1_kernel.h"

void dxt1_rows_avx2(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		    uint8_t *out)
{
	rows_simd(rgba, stride, width, height, out, width / 4);
}
#else
/* Not x86: dxt1.c never calls this path. */
typedef int dxt1_no_avx2;
#endif
