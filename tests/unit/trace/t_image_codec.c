/* lib/trace/image_codec.c through the writer and the reader: DXT1 images
 * come back block for block, inter-frame coding is used where it pays and
 * never costs more than coding each image alone, and a damaged image chunk
 * loses that image (and the ones coded against it), not the trace. */
#include <stdlib.h>
#include "check.h"
#include "image/image.h"
#include "pictures.h"
#include "tracemem.h"
#include "trace/trace_internal.h"

#define W 320
#define H 180
#define N 8

static uint8_t *frames[N]; /* DXT1 of the moving game scene */

static int fill(struct profev_writer *w)
{
	int rc = 0;
	for (uint32_t i = 0; i < N; i++) {
		struct profev_image img = { i + 1, W, H, PROFEV_IMG_DXT1, 10 + i, 1000 * i,
					    frames[i], dxt1_size(W, H) };
		rc |= profev_writer_image(w, &img);
		if (i == 4) { /* another size in between keeps its own reference */
			static uint8_t small[64];
			memset(small, 0x11, sizeof small);
			struct profev_image s = { 100, 8, 16, PROFEV_IMG_DXT1, 0, 1, small, sizeof small };
			rc |= profev_writer_image(w, &s);
		}
	}
	return rc | profev_writer_close(w);
}

/* A size that is not a multiple of 4, or blocks of the wrong length. */
static int fill_bad(struct profev_writer *w)
{
	struct profev_image bad = { 200, 6, 4, PROFEV_IMG_DXT1, 0, 0, frames[0], 12 };
	CHECK(profev_writer_image(w, &bad) == PROFEV_E_ARG);
	struct profev_image bad2 = { 201, 8, 4, PROFEV_IMG_DXT1, 0, 0, frames[0], 8 };
	CHECK(profev_writer_image(w, &bad2) == PROFEV_E_ARG);
	return profev_writer_close(w);
}

/* Reads every image; got[i] counts image id i + 1 coming back intact. */
static int read_all(const uint8_t *data, size_t len, int got[N], uint64_t *lost)
{
	FILE *f;
	struct profev_error err;
	struct profev_reader *r = tracemem_reader(data, len, &f, &err);
	if (!r)
		return -1;
	struct profev_chunk c;
	int rc;
	memset(got, 0, N * sizeof *got);
	while ((rc = profev_reader_next_chunk(r, &c)) == 1) {
		if (c.kind != PROFEV_CHUNK_IMAGE || !c.image)
			continue;
		const struct profev_image *im = c.image;
		CHECK_EQ(im->format, PROFEV_IMG_DXT1);
		if (im->id == 100) {
			CHECK_EQ(im->size, 64);
			continue;
		}
		if (im->id >= 1 && im->id <= N && im->size == dxt1_size(W, H) &&
		    memcmp(im->data, frames[im->id - 1], im->size) == 0 && im->frame == 9 + im->id)
			got[im->id - 1]++;
	}
	*lost = profev_reader_lost_images(r);
	profev_reader_free(r);
	fclose(f);
	return rc;
}

int main(void)
{
	uint8_t *px = malloc((size_t)W * H * 4);
	for (int i = 0; i < N; i++) {
		frames[i] = malloc(dxt1_size(W, H));
		pic_game(px, W, H, i < 3 ? 0 : (uint32_t)i); /* 0..2 stand still */
		dxt1_encode(px, W * 4, W, H, frames[i]);
	}

	struct tracemem m;
	struct profev_error err;
	CHECK_EQ(tracemem_write(&m, fill, NULL, &err), 0);
	struct tracemem mb;
	tracemem_write(&mb, fill_bad, NULL, &err);
	free(mb.data);
	int got[N];
	uint64_t lost = 9;
	CHECK_EQ(read_all(m.data, m.len, got, &lost), 0);
	for (int i = 0; i < N; i++)
		CHECK_EQ(got[i], 1);
	CHECK_EQ(lost, 0);

	/* The coder on its own: a picture that stands still costs next to
	 * nothing against its predecessor; a moving one never more than
	 * coding it alone. */
	struct image_coder *ic = image_coder_new(0);
	struct buf out = { 0 };
	struct image_code_stats st[N];
	size_t stored[N];
	for (int i = 0; i < N; i++) {
		struct profev_image img = { (uint32_t)i + 1, W, H, PROFEV_IMG_DXT1, 0, 0, frames[i],
					    dxt1_size(W, H) };
		buf_reset(&out);
		CHECK_EQ(image_encode(ic, &img, 1, &out, &st[i]), 0);
		stored[i] = out.len;
		CHECK(stored[i] <= st[i].intra + 2);
		if (i == 1 || i == 2) /* frames 0..2 stand still */
			CHECK(st[i].inter > 0);
	}
	CHECK(st[0].inter == 0);
	CHECK(stored[1] < st[1].intra / 20); /* frames 0..2 are equal */
	fprintf(stderr, "intra %zu bytes, still frame %zu, moving frame %zu (intra %zu, inter %zu)\n",
		st[0].intra, stored[1], stored[5], st[5].intra, st[5].inter);
	image_coder_free(ic);

	/* Format 3, as older writers stored images, still decodes, and a
	 * reader's references carry across formats: frames 0..3 in format 3,
	 * the rest in format 4, each against its predecessor where smaller. */
	struct image_coder *w3 = image_coder_new(0), *rd = image_coder_new(0);
	CHECK_EQ(image_coder_set_format(w3, 7), PROFEV_E_ARG);
	struct buf blocks = { 0 };
	int inter3 = 0;
	for (int i = 0; i < N; i++) {
		uint32_t fmt = i < 4 ? PROFEV_IMG_DXT1Z : PROFEV_IMG_DXT1RC;
		CHECK_EQ(image_coder_set_format(w3, fmt), 0);
		struct profev_image img = { (uint32_t)i + 1, W, H, PROFEV_IMG_DXT1, 0, 0, frames[i],
					    dxt1_size(W, H) };
		buf_reset(&out);
		CHECK_EQ(image_encode(w3, &img, 1, &out, &st[i]), 0);
		inter3 += i < 4 && out.data[0] != 0;
		struct profev_image coded = { (uint32_t)i + 1, W, H, fmt, 0, 0, out.data, out.len };
		const char *why = NULL;
		CHECK_EQ(image_decode(rd, &coded, &blocks, &why), 0);
		CHECK(blocks.len == dxt1_size(W, H) && memcmp(blocks.data, frames[i], blocks.len) == 0);
	}
	CHECK(inter3 >= 2); /* frames 1 and 2 stand still */
	image_coder_free(w3);
	image_coder_free(rd);
	buf_free(&blocks);
	buf_free(&out);

	/* Damage the third image chunk's body: that image is lost, and so are
	 * the ones coded against it until a frame coded alone; the rest of
	 * the trace reads. Find the chunk by walking the headers. */
	uint8_t *bad = malloc(m.len);
	memcpy(bad, m.data, m.len);
	size_t off = 16;
	int images = 0;
	while (off + 24 <= m.len) {
		uint16_t kind = (uint16_t)(bad[off] | bad[off + 1] << 8);
		uint32_t stored_size = (uint32_t)bad[off + 8] | (uint32_t)bad[off + 9] << 8 |
				       (uint32_t)bad[off + 10] << 16 | (uint32_t)bad[off + 11] << 24;
		if (kind == PROFEV_CHUNK_IMAGE && ++images == 3) {
			bad[off + 24 + stored_size / 2] ^= 0x40;
			break;
		}
		off += 24 + stored_size;
	}
	CHECK_EQ(images, 3);
	CHECK_EQ(read_all(bad, m.len, got, &lost), 0);
	CHECK_EQ(got[0], 1);
	CHECK_EQ(got[1], 1);
	CHECK_EQ(got[2], 0);
	CHECK(lost >= 1);
	int later = 0;
	for (int i = 3; i < N; i++)
		later += got[i];
	CHECK_EQ(later + (int)lost, N - 2); /* each of the rest is read or counted lost */
	free(bad);

	free(m.data);
	for (int i = 0; i < N; i++)
		free(frames[i]);
	free(px);
	return CHECK_DONE();
}
