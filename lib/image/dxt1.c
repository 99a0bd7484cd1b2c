/* DXT1 (BC1): the plain C encoder, the dispatch by CPUID (HWCAP on
 * aarch64), the decoder. */
#include <math.h>
#include <string.h>
#include "image/image.h"
#include "image/dxt1_setup.h"
#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

int dxt1_block_setup(const uint8_t mn[3], const uint8_t mx[3], struct dxt1_setup *s)
{
	return block_setup(mn, mx, s);
}

/* Place on the ramp (0: color0 ... 3: color1, beyond it up to 15) to
 * the index of that palette entry, as the SIMD paths' byte shuffle. */
static const uint8_t code_of[16] = { 0, 2, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };

static void block_scalar(const uint8_t *p, ptrdiff_t stride, uint8_t *out)
{
	uint8_t mn[3] = { 255, 255, 255 }, mx[3] = { 0, 0, 0 };
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 4; x++)
			for (int c = 0; c < 3; c++) {
				uint8_t v = p[y * stride + x * 4 + c];
				mn[c] = v < mn[c] ? v : mn[c];
				mx[c] = v > mx[c] ? v : mx[c];
			}
	struct dxt1_setup s;
	uint32_t idx = 0;
	if (block_setup(mn, mx, &s))
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 4; x++) {
				const uint8_t *q = p + y * stride + x * 4;
				int32_t dot = q[0] * s.w[0] + q[1] * s.w[1] + q[2] * s.w[2];
				int32_t r = ((s.off - dot) * s.scale) >> 16;
				/* Saturated to a signed byte, as the SIMD paths pack it. */
				uint32_t code = r < 0 ? 0 : code_of[(r > 127 ? 127 : r) & 15];
				idx |= code << (2 * (4 * y + x));
			}
	block_store(out, s.colors, idx);
}

static void rows_scalar(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
			uint8_t *out)
{
	for (uint32_t by = 0; by < height / 4; by++) {
		const uint8_t *row = rgba + (ptrdiff_t)by * 4 * stride;
		for (uint32_t bx = 0; bx < width / 4; bx++, out += 8)
			block_scalar(row + bx * 16, stride, out);
	}
}

enum dxt1_path dxt1_isa(void)
{
	static int path = -1;
	int p = __atomic_load_n(&path, __ATOMIC_RELAXED);
	if (p < 0) {
#if defined(__x86_64__) || defined(__i386__)
		/* CPUID, and XGETBV for the register state the OS saves: libgcc
		 * (and compiler-rt) report AVX and AVX-512 features only where
		 * XCR0 enables the YMM (and opmask and ZMM) state. */
		__builtin_cpu_init();
		p = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
				    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")
			    ? DXT1_AVX512
		    : __builtin_cpu_supports("avx2")   ? DXT1_AVX2
		    : __builtin_cpu_supports("sse4.1") ? DXT1_SSE41
						       : DXT1_SCALAR;
#elif defined(__aarch64__)
		p = getauxval(AT_HWCAP) & HWCAP_ASIMD ? DXT1_NEON : DXT1_SCALAR;
#else
		p = DXT1_SCALAR;
#endif
		__atomic_store_n(&path, p, __ATOMIC_RELAXED);
	}
	return (enum dxt1_path)p;
}

const char *dxt1_isa_name(enum dxt1_path p)
{
#if defined(__aarch64__)
	return p == DXT1_NEON ? "neon" : "scalar";
#else
	return p == DXT1_AVX512 ? "avx512" : p == DXT1_AVX2 ? "avx2" : p == DXT1_SSE41 ? "sse4.1" : "scalar";
#endif
}

enum dxt1_path dxt1_encode_isa(enum dxt1_path p, const uint8_t *rgba, ptrdiff_t stride,
			       uint32_t width, uint32_t height, uint8_t *out)
{
	enum dxt1_path best = dxt1_isa();
	if (p > best)
		p = best;
#if defined(__x86_64__) || defined(__i386__)
	if (p == DXT1_AVX512) {
		dxt1_rows_avx512(rgba, stride, width, height, out);
		return p;
	}
	if (p == DXT1_AVX2) {
		dxt1_rows_avx2(rgba, stride, width, height, out);
		return p;
	}
	if (p == DXT1_SSE41) {
		dxt1_rows_sse41(rgba, stride, width, height, out);
		return p;
	}
#elif defined(__aarch64__)
	if (p == DXT1_NEON) {
		dxt1_rows_neon(rgba, stride, width, height, out);
		return p;
	}
#endif
	rows_scalar(rgba, stride, width, height, out);
	return DXT1_SCALAR;
}

void dxt1_encode(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		 uint8_t *out)
{
	dxt1_encode_isa(dxt1_isa(), rgba, stride, width, height, out);
}

void dxt1_decode(const uint8_t *blocks, uint32_t width, uint32_t height, uint8_t *rgba,
		 ptrdiff_t stride)
{
	for (uint32_t by = 0; by < height / 4; by++)
		for (uint32_t bx = 0; bx < width / 4; bx++, blocks += 8) {
			unsigned c0 = blocks[0] | blocks[1] << 8, c1 = blocks[2] | blocks[3] << 8;
			uint32_t idx = (uint32_t)blocks[4] | (uint32_t)blocks[5] << 8 |
				       (uint32_t)blocks[6] << 16 | (uint32_t)blocks[7] << 24;
			uint8_t pal[4][4];
			unsigned e[2][3];
			for (int i = 0; i < 2; i++) {
				unsigned c = i ? c1 : c0;
				unsigned r = c >> 11, g = c >> 5 & 63, b = c & 31;
				e[i][0] = r << 3 | r >> 2;
				e[i][1] = g << 2 | g >> 4;
				e[i][2] = b << 3 | b >> 2;
			}
			for (int ch = 0; ch < 3; ch++) {
				pal[0][ch] = (uint8_t)e[0][ch];
				pal[1][ch] = (uint8_t)e[1][ch];
				if (c0 > c1) {
					pal[2][ch] = (uint8_t)((2 * e[0][ch] + e[1][ch] + 1) / 3);
					pal[3][ch] = (uint8_t)((e[0][ch] + 2 * e[1][ch] + 1) / 3);
				} else {
					pal[2][ch] = (uint8_t)((e[0][ch] + e[1][ch]) / 2);
					pal[3][ch] = 0;
				}
			}
			pal[0][3] = pal[1][3] = pal[2][3] = 255;
			pal[3][3] = c0 > c1 ? 255 : 0;
			for (int y = 0; y < 4; y++) {
				uint8_t *o = rgba + (ptrdiff_t)(by * 4 + y) * stride + bx * 16;
				for (int x = 0; x < 4; x++)
					memcpy(o + 4 * x, pal[idx >> (2 * (4 * y + x)) & 3], 4);
			}
		}
}

double image_psnr(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height)
{
	uint64_t se = 0;
	size_t n = (size_t)width * height;
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++) {
			int d = a[4 * i + c] - b[4 * i + c];
			se += (uint64_t)(d * d);
		}
	if (!se || !n)
		return 99.0;
	double mse = (double)se / (3.0 * (double)n);
	return 10.0 * log10(255.0 * 255.0 / mse);
}
