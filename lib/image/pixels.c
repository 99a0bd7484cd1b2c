/* profev_image_rgba(): an image as a reader hands it out, as RGBA8. */
#include <string.h>
#include "image/image.h"
#include "profev_trace.h"

int profev_image_rgba(const struct profev_image *img, uint8_t *rgba, size_t stride)
{
	if (!img || !rgba || !img->width || !img->height || img->width > PROFEV_IMAGE_MAX_SIDE ||
	    img->height > PROFEV_IMAGE_MAX_SIDE || stride < (size_t)img->width * 4)
		return PROFEV_E_ARG;
	size_t row = (size_t)img->width * 4;
	if (img->format == PROFEV_IMG_RGBA8) {
		if (img->size != row * img->height)
			return PROFEV_E_ARG;
		for (uint32_t y = 0; y < img->height; y++)
			memcpy(rgba + y * stride, (const uint8_t *)img->data + y * row, row);
		return 0;
	}
	if (img->format != PROFEV_IMG_DXT1 || img->width % 4 || img->height % 4 ||
	    img->size != dxt1_size(img->width, img->height))
		return PROFEV_E_ARG;
	dxt1_decode(img->data, img->width, img->height, rgba, (ptrdiff_t)stride);
	return 0;
}
