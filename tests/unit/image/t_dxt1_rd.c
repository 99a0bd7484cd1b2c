/* lib/image/dxt1_rd.c: the recorder's rate-distortion step keeps the PSNR
 * above Tracy's stored PSNR on both test pictures while format 4 stores
 * them in under 0.8 times Tracy's stored bytes (issue 15's goal); lambda 0
 * only lowers the error; every block it writes is valid and of the kind it
 * claims; a bottom-up image (negative stride) gives the same blocks. */
#include <stdlib.h>
#include "check.h"
#include "image/image.h"
#include "pictures.h"
#include "trace/trace_internal.h"

#define W 320
#define H 180

/* Tracy's stored figures on its pictures (issue 15). */
#define TRACY_GAME_BYTES 17276
#define TRACY_GAME_DB 29.6
#define TRACY_PHOTO_BYTES 26472
#define TRACY_PHOTO_DB 26.7

static double psnr_of(const uint8_t *px, const uint8_t *blocks, uint32_t w, uint32_t h)
{
	uint8_t *back = malloc((size_t)w * h * 4);
	dxt1_decode(blocks, w, h, back, (ptrdiff_t)w * 4);
	double q = image_psnr(px, back, w, h);
	free(back);
	return q;
}

static size_t stored_bytes(const uint8_t *blocks, uint32_t w, uint32_t h)
{
	struct image_coder *c = image_coder_new(0);
	struct buf out = { 0 };
	struct profev_image img = { 1, w, h, PROFEV_IMG_DXT1, 0, 0, blocks, dxt1_size(w, h) };
	CHECK_EQ(image_encode(c, &img, 0, &out, NULL), 0);
	size_t n = out.len;
	buf_free(&out);
	image_coder_free(c);
	return n;
}

/* Flat: equal endpoints and every index 0; otherwise four-color mode. */
static void check_valid(const uint8_t *blocks, size_t nb, size_t *flat, size_t *two)
{
	*flat = *two = 0;
	for (size_t i = 0; i < nb; i++) {
		const uint8_t *b = blocks + 8 * i;
		unsigned c0 = b[0] | (unsigned)b[1] << 8, c1 = b[2] | (unsigned)b[3] << 8;
		uint32_t ix = b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
		if (c0 == c1) {
			CHECK_EQ(ix, 0);
			(*flat)++;
		} else {
			CHECK(c0 > c1);
			*two += (ix & 0xaaaaaaaau) == 0;
		}
	}
}

static void picture(const char *name, const uint8_t *px, size_t tracy_bytes, double tracy_db)
{
	size_t n = dxt1_size(W, H), nb = n / 8, flat, two;
	uint8_t *enc = malloc(n), *rd0 = malloc(n), *rd = malloc(n);
	dxt1_encode(px, W * 4, W, H, enc);
	double q_enc = psnr_of(px, enc, W, H);

	memcpy(rd0, enc, n);
	dxt1_rd(px, W * 4, W, H, rd0, NULL, 0);
	double q0 = psnr_of(px, rd0, W, H);
	check_valid(rd0, nb, &flat, &two);
	CHECK(q0 >= q_enc);

	memcpy(rd, enc, n);
	dxt1_rd(px, W * 4, W, H, rd, NULL, DXT1_RD_LAMBDA);
	double q = psnr_of(px, rd, W, H);
	check_valid(rd, nb, &flat, &two);
	size_t before = stored_bytes(enc, W, H), after = stored_bytes(rd, W, H);
	fprintf(stderr, "%s: encoder %.2f dB %zu bytes; lambda 0 %.2f dB; lambda %d %.2f dB %zu bytes "
			"(%.3f of Tracy's), %zu flat, %zu two-color of %zu blocks\n",
		name, q_enc, before, q0, DXT1_RD_LAMBDA, q, after, (double)after / (double)tracy_bytes, flat,
		two, nb);
	CHECK(q >= tracy_db + 0.5);
	CHECK(after * 10 <= tracy_bytes * 8);
	CHECK(after < before);
	CHECK(two > 0);
	free(enc);
	free(rd0);
	free(rd);
}

int main(void)
{
	uint8_t *px = malloc((size_t)W * H * 4);
	pic_game(px, W, H, 7);
	picture("game", px, TRACY_GAME_BYTES, TRACY_GAME_DB);
	pic_photo(px, W, H, 0);
	picture("photo", px, TRACY_PHOTO_BYTES, TRACY_PHOTO_DB);

	/* Bottom-up rows through a negative stride give the blocks of the
	 * picture turned over. */
	uint8_t *up = malloc((size_t)W * H * 4);
	for (uint32_t y = 0; y < H; y++)
		memcpy(up + (size_t)(H - 1 - y) * W * 4, px + (size_t)y * W * 4, (size_t)W * 4);
	size_t n = dxt1_size(W, H);
	uint8_t *a = malloc(n), *b = malloc(n);
	dxt1_encode(px, W * 4, W, H, a);
	dxt1_rd(px, W * 4, W, H, a, NULL, DXT1_RD_LAMBDA);
	const uint8_t *last = up + (size_t)(H - 1) * W * 4;
	dxt1_encode(last, -(ptrdiff_t)W * 4, W, H, b);
	dxt1_rd(last, -(ptrdiff_t)W * 4, W, H, b, NULL, DXT1_RD_LAMBDA);
	CHECK(memcmp(a, b, n) == 0);

	/* A block of one color becomes flat at any lambda; noise, small
	 * pictures and extreme colors give valid blocks. */
	for (uint64_t seed = 1; seed <= 12; seed++) {
		uint32_t ww = 4 * (uint32_t)(1 + seed % 7), hh = 4 * (uint32_t)(1 + seed % 4);
		size_t m = dxt1_size(ww, hh), flat, two;
		pic_noise(px, ww, hh, seed);
		if (seed % 3 == 0)
			for (size_t i = 0; i < (size_t)ww * hh * 4; i++)
				px[i] = px[i] & 0x80 ? 255 : 0;
		if (seed % 4 == 0)
			memset(px, (int)(seed * 19), (size_t)ww * hh * 4);
		dxt1_encode(px, (ptrdiff_t)ww * 4, ww, hh, a);
		double q = psnr_of(px, a, ww, hh);
		dxt1_rd(px, (ptrdiff_t)ww * 4, ww, hh, a, NULL, seed % 2 ? 0 : DXT1_RD_LAMBDA * (unsigned)seed);
		check_valid(a, m / 8, &flat, &two);
		if (seed % 2)
			CHECK(psnr_of(px, a, ww, hh) >= q);
		if (seed % 4 == 0)
			CHECK_EQ(flat, m / 8);
	}
	free(a);
	free(b);
	free(up);
	free(px);
	return CHECK_DONE();
}
