/*
 * image_codec.c - how frame images in DXT1 are stored (formats/trace.md,
 * "Image", format 3): the blocks' bytes regrouped into planes, optionally
 * XORed with the planes of the previous image of the same size, then zstd.
 * The writer and the reader each keep the last image of every size they
 * met (up to IMAGE_REFS sizes), so a reader decodes in one pass.
 */
#include <stdlib.h>
#include <zstd.h>
#include "trace/trace_internal.h"

#define IMAGE_REFS 4
#define IMAGE_LEVEL 3 /* zstd level of image planes (see the README's figures) */

struct image_ref {
	uint32_t id, width, height;
	struct buf planes;
};

struct image_coder {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	int level;
	uint32_t next; /* the reference slot replaced next */
	struct image_ref refs[IMAGE_REFS];
	struct buf planes, xored, z1, z2;
};

struct image_coder *image_coder_new(int level)
{
	struct image_coder *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->level = level ? level : IMAGE_LEVEL;
	return c;
}

void image_coder_free(struct image_coder *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cctx);
	ZSTD_freeDCtx(c->dctx);
	for (int i = 0; i < IMAGE_REFS; i++)
		buf_free(&c->refs[i].planes);
	buf_free(&c->planes);
	buf_free(&c->xored);
	buf_free(&c->z1);
	buf_free(&c->z2);
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
		if (c->refs[i].planes.len && c->refs[i].width == width && c->refs[i].height == height)
			return &c->refs[i];
	return NULL;
}

static int ref_keep(struct image_coder *c, uint32_t id, uint32_t width, uint32_t height,
		    const uint8_t *planes, size_t len)
{
	struct image_ref *r = ref_find(c, width, height);
	if (!r)
		r = &c->refs[c->next++ % IMAGE_REFS];
	r->id = id;
	r->width = width;
	r->height = height;
	buf_reset(&r->planes);
	return buf_put(&r->planes, planes, len);
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

int image_encode(struct image_coder *c, const struct profev_image *img, int allow_inter,
		 struct buf *out, struct image_code_stats *st)
{
	size_t n = img->size, nb = n / 8;
	buf_reset(&c->planes);
	if (buf_reserve(&c->planes, n ? n : 1))
		return PROFEV_E_NOMEM;
	image_planes(img->data, nb, c->planes.data);
	c->planes.len = n;
	int rc = compress(c, c->planes.data, n, &c->z1);
	if (rc)
		return rc;
	struct buf *best = &c->z1;
	uint32_t ref = 0;
	struct image_ref *r = allow_inter ? ref_find(c, img->width, img->height) : NULL;
	if (st) {
		st->intra = c->z1.len;
		st->inter = 0;
	}
	if (r && r->planes.len == n) {
		buf_reset(&c->xored);
		if (buf_reserve(&c->xored, n))
			return PROFEV_E_NOMEM;
		for (size_t i = 0; i < n; i++)
			c->xored.data[i] = c->planes.data[i] ^ r->planes.data[i];
		if ((rc = compress(c, c->xored.data, n, &c->z2)))
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
	return ref_keep(c, img->id, img->width, img->height, c->planes.data, n);
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
	size_t n = (size_t)img->width / 4 * (img->height / 4) * 8, nb = n / 8;
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
	c->planes.len = n;
	if (ref) {
		struct image_ref *r = ref_find(c, img->width, img->height);
		if (!r || r->id != ref || r->planes.len != n) {
			*why = "the image it was coded against is missing";
			return PROFEV_E_CORRUPT;
		}
		for (size_t i = 0; i < n; i++)
			c->planes.data[i] ^= r->planes.data[i];
	}
	buf_reset(blocks);
	if (buf_reserve(blocks, n))
		return PROFEV_E_NOMEM;
	image_unplanes(c->planes.data, nb, blocks->data);
	blocks->len = n;
	return ref_keep(c, img->id, img->width, img->height, c->planes.data, n);
}
