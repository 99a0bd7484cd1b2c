/* lib/image/dxt1.c and its SIMD paths: every path gives the same bytes,
 * quality stays above committed bounds, flips and odd widths work. */
#include <stdlib.h>
#include "check.h"
#include "image/image.h"
#include "pictures.h"

/* Committed quality bounds (dB), a little under what the encoder measured
 * when they were set; the decoder is dxt1_decode(). Tracy's encoder gives
 * 29.6 dB on its game frame and 26.7 dB on its photograph. */
#define BOUND_GAME 32.0
#define BOUND_PHOTO 27.5
#define BOUND_GAME_FLAT 30.7

static double roundtrip(const uint8_t *px, uint32_t w, uint32_t h, uint8_t *blocks)
{
	uint8_t *back = malloc((size_t)w * h * 4);
	dxt1_encode(px, (ptrdiff_t)w * 4, w, h, blocks);
	dxt1_decode(blocks, w, h, back, (ptrdiff_t)w * 4);
	double q = image_psnr(px, back, w, h);
	free(back);
	return q;
}

/* Every path this CPU has gives the scalar path's bytes. */
static void same_on_every_path(const uint8_t *px, uint32_t w, uint32_t h, const char *what)
{
	size_t n = dxt1_size(w, h);
	uint8_t *ref = malloc(n), *got = malloc(n);
	CHECK_EQ(dxt1_encode_isa(DXT1_SCALAR, px, (ptrdiff_t)w * 4, w, h, ref), DXT1_SCALAR);
	for (int p = DXT1_SCALAR + 1; p <= (int)dxt1_isa(); p++) {
		memset(got, 0xa5, n);
		CHECK_EQ(dxt1_encode_isa((enum dxt1_path)p, px, (ptrdiff_t)w * 4, w, h, got), p);
		size_t i = 0;
		while (i < n && got[i] == ref[i])
			i++;
		if (i < n)
			fprintf(stderr, "%s: %s differs from scalar at byte %zu (block %zu)\n", what,
				dxt1_isa_name((enum dxt1_path)p), i, i / 8);
		CHECK_EQ(i, n);
	}
	free(ref);
	free(got);
}

int main(void)
{
	const uint32_t w = 320, h = 180;
	uint8_t *px = malloc((size_t)w * h * 4), *blocks = malloc(dxt1_size(w, h));
	fprintf(stderr, "best path: %s\n", dxt1_isa_name(dxt1_isa()));
	/* Paths above it are not tested on this CPU: say so. */
	for (int p = (int)dxt1_isa() + 1; p <= DXT1_BEST; p++)
		fprintf(stderr, "SKIP: path %s: this CPU lacks it, its bytes are not checked here\n",
			dxt1_isa_name((enum dxt1_path)p));
	/* Asking for a path the CPU lacks gives the best one it has. */
	memset(px, 77, 64);
	CHECK_EQ(dxt1_encode_isa(DXT1_BEST, px, 16, 4, 4, blocks), dxt1_isa());
	/* The x86-64 machines profev builds on have SSE4.1 at least. */
#if defined(__x86_64__)
	CHECK(dxt1_isa() >= DXT1_SSE41);
#elif defined(__aarch64__)
	CHECK(dxt1_isa() == DXT1_NEON); /* Advanced SIMD is part of ARMv8-A */
#endif

	pic_game(px, w, h, 7);
	double qg = roundtrip(px, w, h, blocks);
	same_on_every_path(px, w, h, "game");
	pic_photo(px, w, h, 0);
	double qp = roundtrip(px, w, h, blocks);
	same_on_every_path(px, w, h, "photo");
	fprintf(stderr, "PSNR: game %.2f dB, photo %.2f dB\n", qg, qp);
	CHECK(qg >= BOUND_GAME);
	CHECK(qp >= BOUND_PHOTO);

	/* The recorder's lossy step: smaller planes, PSNR still above the
	 * committed bound (Tracy's stored PSNR is 29.6 dB on its game frame). */
	{
		pic_game(px, w, h, 7);
		size_t nb = dxt1_size(w, h) / 8;
		uint8_t *back = malloc((size_t)w * h * 4);
		dxt1_encode(px, (ptrdiff_t)w * 4, w, h, blocks);
		size_t flat0 = 0, flat1;
		for (size_t i = 0; i < nb; i++)
			flat0 += memcmp(blocks + 8 * i, blocks + 8 * i + 2, 2) == 0;
		flat1 = dxt1_flatten(blocks, nb, DXT1_FLATTEN);
		dxt1_decode(blocks, w, h, back, (ptrdiff_t)w * 4);
		double q = image_psnr(px, back, w, h);
		fprintf(stderr, "flatten: %zu blocks flat before, %zu more after, PSNR %.2f dB\n", flat0, flat1, q);
		CHECK(flat1 > nb / 4);
		CHECK(q >= BOUND_GAME_FLAT);
		for (size_t i = 0; i < nb; i++) /* a flat block has equal endpoints and index 0 */
			if (memcmp(blocks + 8 * i, blocks + 8 * i + 2, 2) == 0)
				CHECK_EQ(blocks[8 * i + 4] | blocks[8 * i + 5] | blocks[8 * i + 6] | blocks[8 * i + 7], 0);
		CHECK_EQ(dxt1_flatten(blocks, nb, DXT1_FLATTEN), 0); /* nothing left to do */
		free(back);
	}

	/* Noise reaches every corner of the arithmetic; rows of 1 to 61 blocks
	 * take the SIMD paths' whole strips (8 blocks for SSE4.1, 16 for AVX2,
	 * 32 and then 16 for AVX-512) and the rest of a row, alone and after
	 * whole strips; flat pictures the flat blocks. */
	for (uint64_t seed = 1; seed <= 24; seed++) {
		uint32_t ww = 4 * (uint32_t)(1 + seed * 7 % 61), hh = 4 * (uint32_t)(1 + seed % 5);
		pic_noise(px, ww, hh, seed);
		if (seed % 4 == 0) /* low contrast: the axis scale at its largest */
			for (size_t i = 0; i < (size_t)ww * hh * 4; i++)
				px[i] = (uint8_t)(100 + (px[i] & 3));
		if (seed % 5 == 0)
			memset(px, (int)(seed * 11), (size_t)ww * hh * 4);
		same_on_every_path(px, ww, hh, "noise");
	}

	/* A flat picture decodes to the nearest RGB565 color. */
	for (size_t i = 0; i < 16 * 4; i += 4) {
		px[i] = 255, px[i + 1] = 0, px[i + 2] = 0, px[i + 3] = 255;
	}
	dxt1_encode(px, 16, 4, 4, blocks);
	CHECK_EQ(blocks[0] | blocks[1] << 8, 0xf800);
	CHECK_EQ(blocks[2] | blocks[3] << 8, 0xf800);
	CHECK_EQ(blocks[4] | blocks[5] | blocks[6] | blocks[7], 0);

	/* A negative stride reads the picture bottom-up: the flipped encoding
	 * of a picture equals the encoding of the picture flipped by hand, on
	 * the whole picture and on one of 21 blocks a row (a strip and a rest). */
	for (int p = DXT1_SCALAR; p <= (int)dxt1_isa(); p++) {
		const uint32_t fw = 84, fh = 12;
		uint8_t a[84 * 12 * 4], b[84 * 12 * 4], ea[21 * 3 * 8], eb[21 * 3 * 8];
		pic_photo(a, fw, fh, 5);
		for (uint32_t y = 0; y < fh; y++)
			memcpy(b + (size_t)y * fw * 4, a + (size_t)(fh - 1 - y) * fw * 4, (size_t)fw * 4);
		dxt1_encode_isa((enum dxt1_path)p, a + (size_t)(fh - 1) * fw * 4, -(ptrdiff_t)fw * 4, fw, fh, ea);
		dxt1_encode_isa((enum dxt1_path)p, b, (ptrdiff_t)fw * 4, fw, fh, eb);
		CHECK(memcmp(ea, eb, sizeof ea) == 0);
	}
	pic_game(px, w, h, 3);
	uint8_t *flipped = malloc((size_t)w * h * 4), *b2 = malloc(dxt1_size(w, h));
	for (uint32_t y = 0; y < h; y++)
		memcpy(flipped + (size_t)y * w * 4, px + (size_t)(h - 1 - y) * w * 4, (size_t)w * 4);
	for (int p = DXT1_SCALAR; p <= (int)dxt1_isa(); p++) {
		dxt1_encode_isa((enum dxt1_path)p, px + (size_t)(h - 1) * w * 4, -(ptrdiff_t)w * 4, w, h,
				blocks);
		dxt1_encode_isa((enum dxt1_path)p, flipped, (ptrdiff_t)w * 4, w, h, b2);
		CHECK(memcmp(blocks, b2, dxt1_size(w, h)) == 0);
	}

	/* In a two-color block every pixel comes back nearer its own color
	 * than the other one. */
	for (int i = 0; i < 16; i++) {
		uint8_t *p = px + i * 4;
		int on = (i * 7) % 3 == 0;
		p[0] = on ? 0xf8 : 0x08, p[1] = on ? 0xfc : 0x10, p[2] = on ? 0x00 : 0x84, p[3] = 255;
	}
	dxt1_encode(px, 16, 4, 4, blocks);
	dxt1_decode(blocks, 4, 4, flipped, 16);
	for (int i = 0; i < 16; i++) {
		int on = (i * 7) % 3 == 0, d_on = 0, d_off = 0;
		const uint8_t a[3] = { 0xf8, 0xfc, 0x00 }, b[3] = { 0x08, 0x10, 0x84 };
		for (int c = 0; c < 3; c++) {
			int v = flipped[i * 4 + c];
			d_on += (v - a[c]) * (v - a[c]);
			d_off += (v - b[c]) * (v - b[c]);
		}
		CHECK(on ? d_on < d_off : d_off < d_on);
	}

	free(flipped);
	free(b2);
	free(px);
	free(blocks);
	return CHECK_DONE();
}
