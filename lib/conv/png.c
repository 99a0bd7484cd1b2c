/*
 * png.c - pfconv's png target: each frame image a PNG file (libpng),
 * DIR/frame-NNNNNN.png by its frame number, decoded from DXT1 with its rows
 * top-down (flipped images were turned when recorded). A frame may have
 * several images (two sent in one frame, or one sent later with an offset):
 * the second is DIR/frame-NNNNNN-1.png, the third -2 and so on, in the
 * order they are read, so no stored image is lost. Nothing goes to the
 * sink; every other event is left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <png.h>
#include <stdio.h>
#include "common/u64_map.h"
#include "conv/conv_internal.h"

/* Images written of one frame (the key is the frame number + 1, as 0
 * marks an empty slot). */
struct frame_images {
	uint64_t key;
	uint64_t written;
};

struct pngt {
	struct conv_shots shots;
	struct u64_map frames; /* struct frame_images per frame with an image */
	png_bytep *rows;
	uint32_t nrows;
	char *path;
	size_t path_cap;
};

static int pn_init(struct conv *c)
{
	struct pngt *p = calloc(1, sizeof(struct pngt));
	if (!p)
		return PROFEV_E_NOMEM;
	u64_map_init(&p->frames, sizeof(struct frame_images));
	c->fmt = p;
	return 0;
}

static void pn_fini(struct conv *c)
{
	struct pngt *p = c->fmt;
	if (!p)
		return;
	conv_shots_free(&p->shots);
	u64_map_free(&p->frames);
	free(p->rows);
	free(p->path);
	free(p);
}

static int nothing(struct conv *c)
{
	(void)c;
	return 0;
}

static int no_thread(struct conv *c, struct conv_thread *t)
{
	(void)c, (void)t;
	return 0;
}

static int no_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	(void)c, (void)t, (void)z, (void)edge;
	return 0;
}

static int no_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts, int edge)
{
	(void)c, (void)t, (void)z, (void)ts, (void)edge;
	return 0;
}

static int no_event(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	(void)c, (void)t, (void)ev;
	return 0;
}

static int no_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const char *text, size_t len)
{
	(void)c, (void)t, (void)ev, (void)text, (void)len;
	return 0;
}

static int no_counter(struct conv *c, const struct profev_event *ev)
{
	(void)c, (void)ev;
	return 0;
}

/* libpng reports errors by longjmp: the file is closed and removed. */
static int write_png(FILE *f, png_bytep *rows, uint32_t w, uint32_t h)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return PROFEV_E_NOMEM;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		return PROFEV_E_IO;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	/* Speed first: these are previews, and zlib's level 1 with the Sub
	 * filter keeps most of the size of its best effort. */
	png_set_compression_level(png, 1);
	png_set_filter(png, 0, PNG_FILTER_SUB);
	png_write_info(png, info);
	png_set_filler(png, 0, PNG_FILLER_AFTER); /* rows are RGBA: the alpha is dropped */
	png_write_image(png, rows);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	return 0;
}

static int pn_image(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		     const struct profev_image *img)
{
	struct pngt *p = c->fmt;
	(void)t;
	int rc = conv_shot_rgba(&p->shots, img);
	if (rc)
		return rc == PROFEV_E_NOMEM ? rc : 0; /* an image of another format: left out */
	if (img->height > p->nrows) {
		png_bytep *r = realloc(p->rows, img->height * sizeof *r);
		if (!r)
			return PROFEV_E_NOMEM;
		p->rows = r;
		p->nrows = img->height;
	}
	for (uint32_t y = 0; y < img->height; y++)
		p->rows[y] = p->shots.rgba + (size_t)y * img->width * 4;
	size_t need = strlen(c->opts->image_dir) + 64; /* /frame-N-N.png: two 20-digit numbers */
	if (need > p->path_cap) {
		char *s = realloc(p->path, need);
		if (!s)
			return PROFEV_E_NOMEM;
		p->path = s;
		p->path_cap = need;
	}
	/* Frame 2^64 - 1 has no key: a trace that claims it gets one file. */
	struct frame_images none = { 0, 0 };
	struct frame_images *fi = ev->frame == UINT64_MAX ? &none
				  : u64_map_insert(&p->frames, ev->frame + 1, NULL);
	if (!fi)
		return PROFEV_E_NOMEM;
	if (fi->written)
		snprintf(p->path, p->path_cap, "%s/frame-%06" PRIu64 "-%" PRIu64 ".png",
			 c->opts->image_dir, ev->frame, fi->written);
	else
		snprintf(p->path, p->path_cap, "%s/frame-%06" PRIu64 ".png", c->opts->image_dir,
			 ev->frame);
	FILE *f = fopen(p->path, "wb");
	if (!f)
		return PROFEV_E_IO;
	rc = write_png(f, p->rows, img->width, img->height);
	if (fclose(f) != 0 && !rc)
		rc = PROFEV_E_IO;
	if (rc)
		remove(p->path);
	else
		fi->written++;
	return rc;
}

const struct conv_ops conv_png_ops = {
	.name = "png",
	.split_ok = 0,
	.init = pn_init,
	.fini = pn_fini,
	.part_begin = nothing,
	.part_end = nothing,
	.thread = no_thread,
	.zone_begin = no_zone_begin,
	.zone_end = no_zone_end,
	.instant = no_event,
	.message = no_message,
	.lost = no_event,
	.counter = no_counter,
	.image = pn_image,
};
