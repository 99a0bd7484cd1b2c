/*
 * image.h - frame-image codecs (lib/image/): the DXT1 (BC1) encoder and
 * decoder and the picture measures the tests and benchmarks use. Not
 * installed; profev_trace.h declares what readers call.
 *
 * The encoder is one algorithm written four times: plain C, SSE4.1, AVX2
 * and AVX-512 (F, BW, VL, VNNI; files compiled with -msse4.1, -mavx2 and
 * the AVX-512 flags, so everything else stays baseline x86-64; the SIMD
 * paths share dxt1_kernel.h). It is integer arithmetic but for one
 * division per block, which the SIMD paths do in float with the integer
 * quotient's exact result. CPUID and XGETBV pick the path at the first
 * call. Every path gives the same bytes for the same pixels;
 * tests/unit/image/t_dxt1.c and the fuzz target tests/fuzz/fuzz_dxt1.c
 * check it. The code uses only libc, so pfrec and the client may both
 * link it.
 *
 * A block is 8 bytes: color0 and color1 (RGB565, little-endian) and 16
 * two-bit indices, pixel (x, y) at bits 2 * (4y + x). The encoder always
 * writes color0 > color1 (four-color mode), or color0 == color1 with every
 * index 0 (a flat block).
 */
#ifndef PROFEV_IMAGE_H
#define PROFEV_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define dxt1_encode profev__dxt1_encode
#define dxt1_encode_isa profev__dxt1_encode_isa
#define dxt1_isa profev__dxt1_isa
#define dxt1_isa_name profev__dxt1_isa_name
#define dxt1_decode profev__dxt1_decode
#define dxt1_block_setup profev__dxt1_block_setup
#define dxt1_rows_sse41 profev__dxt1_rows_sse41
#define dxt1_rows_avx2 profev__dxt1_rows_avx2
#define dxt1_rows_avx512 profev__dxt1_rows_avx512
#define dxt1_rows_avx512vl profev__dxt1_rows_avx512vl
#define dxt1_rows_neon profev__dxt1_rows_neon
#define image_psnr profev__image_psnr
#define dxt1_flatten profev__dxt1_flatten
#define dxt1_rd profev__dxt1_rd

/* The paths of this architecture, each faster than the one before: a
 * request for one the CPU lacks takes the best below it. */
enum dxt1_path {
	DXT1_SCALAR = 0,
#if defined(__aarch64__)
	DXT1_NEON = 1,
	DXT1_BEST = DXT1_NEON,
#else
	DXT1_SSE41 = 1,
	DXT1_AVX2 = 2,
	DXT1_AVX512 = 3, /* AVX-512 F, BW, VL and VNNI */
	DXT1_BEST = DXT1_AVX512,
#endif
};

/* Bytes of DXT1 for a width x height image (both multiples of 4). */
static inline size_t dxt1_size(uint32_t width, uint32_t height)
{
	return (size_t)(width / 4) * (height / 4) * 8;
}

/* The best path this CPU runs (CPUID, once). */
enum dxt1_path dxt1_isa(void);
const char *dxt1_isa_name(enum dxt1_path p);

/*
 * Encode width x height RGBA8 pixels (alpha ignored) into dxt1_size() bytes
 * at out, blocks in rows from the top. Row y of the picture starts at
 * rgba + y * stride: a negative stride with rgba at the last row reads a
 * bottom-up image. width and height are multiples of 4 (the caller checks).
 */
void dxt1_encode(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		 uint8_t *out);
/* The same on a given path; one this CPU lacks falls back to a lower one.
 * @return the path used. */
enum dxt1_path dxt1_encode_isa(enum dxt1_path p, const uint8_t *rgba, ptrdiff_t stride,
			       uint32_t width, uint32_t height, uint8_t *out);

/* Decode DXT1 blocks into RGBA8 (alpha 255), row y at rgba + y * stride. */
void dxt1_decode(const uint8_t *blocks, uint32_t width, uint32_t height, uint8_t *rgba,
		 ptrdiff_t stride);

/*
 * The recorder's lossy step: a block whose two endpoints differ by at most
 * max_diff in every channel (8-bit units) becomes flat, the endpoints'
 * mean with every index 0. Such blocks are a flat area plus noise (film
 * grain, dithering) that costs index bits and buys little: on the game
 * frame of tests/lib/pictures.c, max_diff DXT1_FLATTEN takes 1.3 dB off
 * the PSNR and a third off the stored size (docs/performance.md, bench_image).
 * @return the blocks made flat.
 */
#define DXT1_FLATTEN 20
size_t dxt1_flatten(uint8_t *blocks, size_t nb, unsigned max_diff);

/*
 * The recorder's rate-distortion step, with the pixels at hand: each block
 * becomes whichever encoding costs least, counting its squared error (over
 * R, G, B) plus lambda times the bits it takes stored (estimates for
 * format 4, formats/trace.md): four colors (the encoder's endpoints with
 * the nearest indices, refitted by least squares where that lowers the
 * error), two colors (indices 0 and 1 only, one bit per pixel), flat, or,
 * given ref (the blocks of the previous image of this size, as stored),
 * that image's block unchanged. lambda 0 keeps four colors and only lowers
 * the error. rgba, stride, width and height as for dxt1_encode(); blocks
 * are what it wrote for them.
 */
#define DXT1_RD_BITS4 52
#define DXT1_RD_BITS2 36
#define DXT1_RD_BITS_FLAT 10
#define DXT1_RD_BITS_SAME 1
#define DXT1_RD_LAMBDA 160
void dxt1_rd(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
	     uint8_t *blocks, const uint8_t *ref, unsigned lambda);

/* PSNR in dB over the R, G and B of two RGBA8 images (99 if equal). */
double image_psnr(const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t height);

/*
 * The plain C path's per-block part that is not per pixel (the SIMD paths
 * compute the same 8 blocks at a time). Given the block's channel minima
 * and maxima (bytes R, G, B), writes the endpoints word (color0 | color1
 * << 16) and, for a block that is not flat, the axis weights w[3] (0..31),
 * the offset and the scale of the index: a pixel whose dot product
 * w[0]*r + w[1]*g + w[2]*b is dot lies at r = ((off - dot) * scale) >> 16
 * on the ramp from color0 (0) to color1 (3), below 0 or above 3 being
 * beyond the ends (dxt1_setup.h). @return 0 for a flat block.
 */
struct dxt1_setup {
	uint32_t colors;
	uint8_t w[4];
	int32_t off, scale;
};
int dxt1_block_setup(const uint8_t mn[3], const uint8_t mx[3], struct dxt1_setup *s);

/* The SIMD paths: blocks of rows [0, height) (dxt1_encode's arguments). */
void dxt1_rows_sse41(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		     uint8_t *out);
void dxt1_rows_avx2(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		    uint8_t *out);
void dxt1_rows_avx512(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		      uint8_t *out);
void dxt1_rows_neon(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		    uint8_t *out);
/* Its 256-bit part, for columns: block rows pitch blocks apart at out. */
void dxt1_rows_avx512vl(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
			uint8_t *out, uint32_t pitch);

#endif
