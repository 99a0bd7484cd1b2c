/*
 * image_codec.c - how frame images in DXT1 are stored (formats/trace.md,
 * "Image"). Format 4, what the writer stores: the blocks by context
 * modelling and a range coder (image_rc.c), optionally against the
 * previous image of the same size. Format 3, what older writers stored and
 * readers still read: the blocks' bytes regrouped into planes, optionally
 * XORed with the planes of the previous image of the same size, then zstd.
 * The writer and the reader each keep the last image of every size they
 * met (up to IMAGE_REFS sizes), so a reader decodes in one pass.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "trace/trace_internal.h"

#define IMAGE_REFS 4
#define IMAGE_LEVEL 3 /* zstd level of format 3's planes */

struct image_ref {
	uint32_t id, width, height;
	struct buf blocks;
};

struct image_coder {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	int level;
	uint32_t format;
	uint32_t next; /* the reference slot replaced next */
	struct image_ref refs[IMAGE_REFS];
	struct buf planes, xored, z1, z2, scratch;
};

struct image_coder *image_coder_new(int level)
{
	struct image_coder *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->level = level ? level : IMAGE_LEVEL;
	c->format = PROFEV_IMG_DXT1RC;
	return c;
}

int image_coder_set_format(struct image_coder *c, uint32_t format)
{
	if (format != PROFEV_IMG_DXT1Z && format != PROFEV_IMG_DXT1RC)
		return PROFEV_E_ARG;
	c->format = format;
	return 0;
}

uint32_t image_coder_format(const struct image_coder *c)
{
	return c->format;
}

void image_coder_free(struct image_coder *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cctx);
	ZSTD_freeDCtx(c->dctx);
	for (int i = 0; i < IMAGE_REFS; i++)
		buf_free(&c->refs[i].blocks);
	buf_free(&c->planes);
	buf_free(&c->xored);
	buf_free(&c->z1);
	buf_free(&c->z2);
	buf_free(&c->scratch);
	free(c);
}

/* Plane order: color0's low bytes, its high bytes, color1's low and high
 * bytes, then the four index bytes (rows 0..3), each plane one byte per
 * block: like bytes sit together. */
void image_planes(const uint8_t *blocks, size_t nb, uint8_t *planes)
{
	for (size_t i = 0; i < nb; i++)
		for (int k = 0; k < 8; k++)
			planes[k * nb + i] = blocks[8 * i + k];
}

void image_unplanes(const uint8_t *planes, size_t nb, uint8_t *blocks)
{
	for (size_t i = 0; i < nb; i++)
		for (int k = 0; k < 8; k++)
			blocks[8 * i + k] = planes[k * nb + i];
}

static struct image_ref *ref_find(struct image_coder *c, uint32_t width, uint32_t height)
{
	for (int i = 0; i < IMAGE_REFS; i++)
		if (c->refs[i].blocks.len && c->refs[i].width == width && c->refs[i].height == height)
			return &c->refs[i];
	return NULL;
}

static int ref_keep(struct image_coder *c, uint32_t id, uint32_t width, uint32_t height,
		    const uint8_t *blocks, size_t len)
{
	struct image_ref *r = ref_find(c, width, height);
	if (!r)
		r = &c->refs[c->next++ % IMAGE_REFS];
	r->id = id;
	r->width = width;
	r->height = height;
	buf_reset(&r->blocks);
	return buf_put(&r->blocks, blocks, len);
}

static int compress(struct image_coder *c, const uint8_t *src, size_t len, struct buf *out)
{
	if (!c->cctx && !(c->cctx = ZSTD_createCCtx()))
		return PROFEV_E_NOMEM;
	size_t bound = ZSTD_compressBound(len);
	buf_reset(out);
	if (buf_reserve(out, bound))
		return PROFEV_E_NOMEM;
	size_t z = ZSTD_compressCCtx(c->cctx, out->data, bound, src, len, c->level);
	if (ZSTD_isError(z))
		return PROFEV_E_NOMEM;
	out->len = z;
	return 0;
}

/* Format 3: planes, XORed with the reference's planes when ref, then zstd. */
static int encode_planes(struct image_coder *c, const uint8_t *blocks, const uint8_t *ref, size_t n,
			 struct buf *out)
{
	buf_reset(&c->planes);
	if (buf_reserve(&c->planes, n ? n : 1))
		return PROFEV_E_NOMEM;
	image_planes(blocks, n / 8, c->planes.data);
	if (ref) {
		buf_reset(&c->xored);
		if (buf_reserve(&c->xored, n))
			return PROFEV_E_NOMEM;
		image_planes(ref, n / 8, c->xored.data);
		for (size_t i = 0; i < n; i++)
			c->planes.data[i] ^= c->xored.data[i];
	}
	return compress(c, c->planes.data, n, out);
}

static int encode_as(struct image_coder *c, const struct profev_image *img, const uint8_t *ref,
		     struct buf *out)
{
	if (c->format == PROFEV_IMG_DXT1Z)
		return encode_planes(c, img->data, ref, img->size, out);
	buf_reset(out);
	return image_rc_encode(img->data, ref, img->width / 4, img->height / 4, &c->scratch, out);
}

static int shares_block(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i += 8)
		if (memcmp(a + i, b + i, 8) == 0)
			return 1;
	return 0;
}

int image_encode(struct image_coder *c, const struct profev_image *img, int allow_inter,
		 struct buf *out, struct image_code_stats *st)
{
	size_t n = img->size;
	int rc = encode_as(c, img, NULL, &c->z1);
	if (rc)
		return rc;
	struct buf *best = &c->z1;
	uint32_t ref = 0;
	struct image_ref *r = allow_inter ? ref_find(c, img->width, img->height) : NULL;
	if (st) {
		st->intra = c->z1.len;
		st->inter = 0;
	}
	/* In format 4, an image that shares no block with the reference costs
	 * more against it (a "same" bit per block, nothing saved): not tried. */
	if (r && r->blocks.len == n && c->format == PROFEV_IMG_DXT1RC && !shares_block(img->data, r->blocks.data, n))
		r = NULL;
	if (r && r->blocks.len == n) {
		if ((rc = encode_as(c, img, r->blocks.data, &c->z2)))
			return rc;
		if (st)
			st->inter = c->z2.len;
		if (c->z2.len < c->z1.len) {
			best = &c->z2;
			ref = r->id;
		}
	}
	if (buf_varint(out, ref) || buf_put(out, best->data, best->len))
		return PROFEV_E_NOMEM;
	return ref_keep(c, img->id, img->width, img->height, img->data, n);
}

int image_decode(struct image_coder *c, const struct profev_image *img, struct buf *blocks,
		 const char **why)
{
	const uint8_t *p = img->data, *end = p + img->size;
	uint64_t ref = 0;
	unsigned shift = 0;
	for (;;) {
		if (p == end || shift > 35) {
			*why = "malformed image data";
			return PROFEV_E_CORRUPT;
		}
		uint8_t b = *p++;
		ref |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (img->width % 4 || img->height % 4 || !img->width || !img->height ||
	    (uint64_t)img->width * img->height > PROFEV_IMAGE_MAX_PIXELS) {
		*why = "image size not a multiple of 4 or too large";
		return PROFEV_E_CORRUPT;
	}
	if (img->format != PROFEV_IMG_DXT1Z && img->format != PROFEV_IMG_DXT1RC) {
		*why = "not a coded DXT1 image";
		return PROFEV_E_CORRUPT;
	}
	size_t n = (size_t)img->width / 4 * (img->height / 4) * 8, nb = n / 8;
	const uint8_t *rb = NULL;
	if (ref) {
		struct image_ref *r = ref_find(c, img->width, img->height);
		if (!r || r->id != ref || r->blocks.len != n) {
			*why = "the image it was coded against is missing";
			return PROFEV_E_CORRUPT;
		}
		rb = r->blocks.data;
	}
	buf_reset(blocks);
	if (buf_reserve(blocks, n))
		return PROFEV_E_NOMEM;
	if (img->format == PROFEV_IMG_DXT1RC) {
		int rc = image_rc_decode(p, (size_t)(end - p), rb, img->width / 4, img->height / 4,
					 &c->scratch, blocks->data);
		if (rc) {
			*why = rc == PROFEV_E_CORRUPT ? "image data does not decode" : "out of memory";
			return rc;
		}
	} else {
		if (!c->dctx && !(c->dctx = ZSTD_createDCtx()))
			return PROFEV_E_NOMEM;
		buf_reset(&c->planes);
		if (buf_reserve(&c->planes, n))
			return PROFEV_E_NOMEM;
		size_t got = ZSTD_decompressDCtx(c->dctx, c->planes.data, n, p, (size_t)(end - p));
		if (ZSTD_isError(got) || got != n) {
			*why = "image data does not decode";
			return PROFEV_E_CORRUPT;
		}
		if (rb) {
			buf_reset(&c->xored);
			if (buf_reserve(&c->xored, n))
				return PROFEV_E_NOMEM;
			image_planes(rb, nb, c->xored.data);
			for (size_t i = 0; i < n; i++)
				c->planes.data[i] ^= c->xored.data[i];
		}
		image_unplanes(c->planes.data, nb, blocks->data);
	}
	blocks->len = n;
	return ref_keep(c, img->id, img->width, img->height, blocks->data, n);
}
