/* lib/trace/image_rc.c, format 4's body: any blocks come back bit for bit
 * (three-color mode, flat, two-color, random), alone and against a
 * reference; a cut body is refused; random bytes decode to some blocks
 * without a fault; the encoder's pictures cost what the model promises. */
#include <stdlib.h>
#include "check.h"
#include "image/image.h"
#include "pictures.h"
#include "trace/trace_internal.h"

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void roundtrip(const uint8_t *blocks, const uint8_t *ref, uint32_t bw, uint32_t bh,
		      size_t *coded)
{
	size_t n = (size_t)bw * bh * 8;
	struct buf out = { 0 }, s = { 0 };
	uint8_t *back = malloc(n + 1);
	CHECK_EQ(image_rc_encode(blocks, ref, bw, bh, &s, &out), 0);
	CHECK_EQ(image_rc_decode(out.data, out.len, ref, bw, bh, &s, back), 0);
	CHECK(memcmp(back, blocks, n) == 0);
	/* Cut: the last bytes missing. */
	if (out.len > 6)
		CHECK_EQ(image_rc_decode(out.data, out.len - 6, ref, bw, bh, &s, back), PROFEV_E_CORRUPT);
	if (coded)
		*coded = out.len;
	free(back);
	buf_free(&out);
	buf_free(&s);
}

int main(void)
{
	enum { BW = 40, BH = 24, NB = BW * BH };
	static uint8_t blocks[NB * 8], ref[NB * 8];
	/* Random bytes: every mode the bytes can express. */
	for (int i = 0; i < NB * 8; i++)
		blocks[i] = (uint8_t)rnd();
	roundtrip(blocks, NULL, BW, BH, NULL);
	/* A mix: flat blocks, two-color, three-color mode (c0 <= c1), equal
	 * to the reference, extreme endpoints. */
	for (int i = 0; i < NB; i++) {
		uint8_t *b = blocks + 8 * i;
		uint32_t k = rnd() % 6;
		if (k == 0) {
			b[2] = b[0], b[3] = b[1];
			b[4] = b[5] = b[6] = b[7] = 0;
		} else if (k == 1) {
			b[4] &= 0x55, b[5] &= 0x55, b[6] &= 0x55, b[7] &= 0x55;
		} else if (k == 2) {
			b[0] = 0, b[1] = 0, b[2] = 0xff, b[3] = 0xff;
		} else if (k == 3) {
			b[0] = b[1] = 0xff;
		}
	}
	memcpy(ref, blocks, sizeof ref);
	for (int i = 0; i < NB; i += 3)
		ref[8 * i + rnd() % 8] ^= (uint8_t)(1 + rnd() % 255);
	roundtrip(blocks, NULL, BW, BH, NULL);
	size_t alone, against;
	roundtrip(blocks, ref, BW, BH, &against);
	roundtrip(blocks, NULL, BW, BH, &alone);
	CHECK(against < alone); /* two thirds of the blocks are the reference's */
	roundtrip(blocks, NULL, 1, 1, NULL);
	roundtrip(blocks, ref, 1, 1, NULL);
	roundtrip(blocks, NULL, 1, 37, NULL);

	/* A picture: the encoder's blocks, and what the recorder stores. */
	uint8_t *px = malloc(320 * 180 * 4), *bl = malloc(dxt1_size(320, 180));
	pic_photo(px, 320, 180, 0);
	dxt1_encode(px, 320 * 4, 320, 180, bl);
	size_t photo;
	roundtrip(bl, NULL, 80, 45, &photo);
	dxt1_rd(px, 320 * 4, 320, 180, bl, NULL, DXT1_RD_LAMBDA);
	roundtrip(bl, NULL, 80, 45, NULL);
	fprintf(stderr, "photo: %zu bytes of %zu\n", photo, dxt1_size(320, 180));
	CHECK(photo < dxt1_size(320, 180) * 85 / 100);
	free(px);
	free(bl);

	/* Random bodies: some blocks, no fault (the sanitizers watch). */
	uint8_t junk[300];
	struct buf s = { 0 };
	for (int t = 0; t < 200; t++) {
		size_t len = rnd() % sizeof junk;
		for (size_t i = 0; i < len; i++)
			junk[i] = (uint8_t)rnd();
		int rc = image_rc_decode(junk, len, t % 2 ? ref : NULL, 8 + t % 5, 3 + t % 4, &s, blocks);
		CHECK(rc == 0 || rc == PROFEV_E_CORRUPT);
	}
	CHECK_EQ(image_rc_decode(junk, 0, NULL, BW, BH, &s, blocks), PROFEV_E_CORRUPT);
	buf_free(&s);
	return CHECK_DONE();
}
