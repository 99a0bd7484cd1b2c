/* The reader's frame images: each image chunk decoded to DXT1 blocks and
 * held, a ring of the latest, for the frame_image events that name it. */
#include <stdlib.h>
#include "trace/trace_internal.h"

static int hold_image(struct profev_reader *r, const struct profev_image *im)
{
	if (!r->held && !(r->held = calloc(IMAGE_HOLD_COUNT, sizeof *r->held)))
		return PROFEV_E_NOMEM;
	while (r->nheld && (r->nheld == IMAGE_HOLD_COUNT || r->held_bytes + im->size > IMAGE_HOLD_BYTES)) {
		r->held_bytes -= r->held[r->held_first].img.size;
		r->held_first = (r->held_first + 1) % IMAGE_HOLD_COUNT;
		r->nheld--;
	}
	struct held_image *h = &r->held[(r->held_first + r->nheld) % IMAGE_HOLD_COUNT];
	if (h->cap < im->size) {
		uint8_t *p = realloc(h->data, im->size);
		if (!p)
			return PROFEV_E_NOMEM;
		h->data = p;
		h->cap = im->size;
	}
	if (im->size)
		memcpy(h->data, im->data, im->size);
	h->img = *im;
	h->img.data = h->data;
	r->held_bytes += im->size;
	r->nheld++;
	return 0;
}

int reader_parse_image(struct profev_reader *r, struct cursor *c)
{
	struct profev_image *im = &r->image;
	uint64_t v[6];
	for (int i = 0; i < 6; i++)
		v[i] = cur_varint(c);
	if (c->bad || v[0] > UINT32_MAX || v[1] > UINT32_MAX || v[2] > UINT32_MAX || v[3] > UINT32_MAX)
		return 1;
	*im = (struct profev_image){ (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3],
				     v[4], v[5], c->p, (size_t)(c->end - c->p) };
	c->p = c->end;
	if (im->format != PROFEV_IMG_DXT1Z && im->format != PROFEV_IMG_DXT1RC)
		return hold_image(r, im);
	if (!r->images && !(r->images = image_coder_new(0)))
		return PROFEV_E_NOMEM;
	const char *why;
	int rc = image_decode(r->images, im, &r->image_blocks, &why);
	if (rc == PROFEV_E_NOMEM)
		return rc;
	if (rc)
		return 1;
	im->format = PROFEV_IMG_DXT1;
	im->data = r->image_blocks.data;
	im->size = r->image_blocks.len;
	return hold_image(r, im);
}

const struct profev_image *profev_reader_image(const struct profev_reader *r, uint32_t id)
{
	for (uint32_t k = r->nheld; k-- > 0;) {
		const struct held_image *h = &r->held[(r->held_first + k) % IMAGE_HOLD_COUNT];
		if (h->img.id == id)
			return &h->img;
	}
	return NULL;
}

uint64_t profev_reader_lost_images(const struct profev_reader *r)
{
	return r->lost_images;
}

void reader_images_free(struct profev_reader *r)
{
	image_coder_free(r->images);
	buf_free(&r->image_blocks);
	if (r->held)
		for (uint32_t i = 0; i < IMAGE_HOLD_COUNT; i++)
			free(r->held[i].data);
	free(r->held);
}
