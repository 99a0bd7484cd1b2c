/*
 * shots.c - what the targets share for frame images: the pixels of an
 * image as RGBA, its JPEG (libjpeg-turbo's TurboJPEG API) and base64.
 */
#include <turbojpeg.h>
#include "conv/conv_internal.h"

void conv_shots_free(struct conv_shots *s)
{
	if (s->tj)
		tjDestroy(s->tj);
	tjFree(s->jpg);
	free(s->rgba);
	memset(s, 0, sizeof *s);
}

int conv_shot_rgba(struct conv_shots *s, const struct profev_image *img)
{
	size_t need = (size_t)img->width * img->height * 4;
	if (need > s->rgba_cap) {
		uint8_t *p = realloc(s->rgba, need);
		if (!p)
			return PROFEV_E_NOMEM;
		s->rgba = p;
		s->rgba_cap = need;
	}
	return profev_image_rgba(img, s->rgba, (size_t)img->width * 4);
}

int conv_shot_jpeg(struct conv_shots *s, const struct profev_image *img, const uint8_t **jpg,
		   size_t *len)
{
	int rc = conv_shot_rgba(s, img);
	if (rc)
		return rc;
	if (!s->tj && !(s->tj = tjInitCompress()))
		return PROFEV_E_NOMEM;
	unsigned long n = s->jpg_cap;
	/* The buffer is kept between images (TJFLAG_NOREALLOC is not set, so
	 * TurboJPEG grows it when an image needs more). */
	if (tjCompress2(s->tj, s->rgba, (int)img->width, 0, (int)img->height, TJPF_RGBA, &s->jpg, &n,
			TJSAMP_420, CONV_JPEG_QUALITY, TJFLAG_FASTDCT) != 0)
		return PROFEV_E_ARG;
	if (n > s->jpg_cap)
		s->jpg_cap = n;
	*jpg = s->jpg;
	*len = n;
	return 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void conv_base64(struct outbuf *o, const uint8_t *p, size_t n)
{
	uint8_t *q = o->p;
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		q[0] = (uint8_t)b64[v >> 18];
		q[1] = (uint8_t)b64[v >> 12 & 63];
		q[2] = (uint8_t)b64[v >> 6 & 63];
		q[3] = (uint8_t)b64[v & 63];
		q += 4;
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
		q[0] = (uint8_t)b64[v >> 18];
		q[1] = (uint8_t)b64[v >> 12 & 63];
		q[2] = i + 1 < n ? (uint8_t)b64[v >> 6 & 63] : '=';
		q[3] = '=';
		q += 4;
	}
	o->p = q;
}
