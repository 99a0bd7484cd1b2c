/* DXT1 encoder, SSE4.1 path (this file is compiled with -msse4.1): strips
 * of 8 blocks, one per vector (dxt1_kernel.h). */
#if defined(__SSE4_1__)
#include <string.h>
#include "image/dxt1_simd.h"

#define VF __m128
#define V __m128i
#define F(op) _mm_##op
#define FS(op) _mm_##op##_si128
#define NL 1
#define LANES(...) __VA_ARGS__
#define LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STORE4(out, v) _mm_storeu_si128((__m128i *)(void *)(out), (v))
#define SETUP_A setup_a_sse41
#define SETUP_B setup_b_sse41
#define PIXELS pixels_sse41
#include "image/dxt1_kernel.h"

void dxt1_rows_sse41(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		     uint8_t *out)
{
	rows_simd(rgba, stride, width, height, out, width / 4);
}
#else
/* Not x86: dxt1.c never calls this path. */
typedef int dxt1_no_sse41;
#endif
