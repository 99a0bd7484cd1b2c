/* dxt1_flatten(): the recorder's lossy rate-distortion step (image.h). */
#include "image/image.h"

static void expand565(unsigned c, unsigned e[3])
{
	unsigned r = c >> 11, g = c >> 5 & 63, b = c & 31;
	e[0] = r << 3 | r >> 2;
	e[1] = g << 2 | g >> 4;
	e[2] = b << 3 | b >> 2;
}

size_t dxt1_flatten(uint8_t *blocks, size_t nb, unsigned max_diff)
{
	size_t n = 0;
	for (size_t i = 0; i < nb; i++) {
		uint8_t *p = blocks + 8 * i;
		unsigned c0 = p[0] | (unsigned)p[1] << 8, c1 = p[2] | (unsigned)p[3] << 8;
		if (c0 == c1)
			continue;
		unsigned a[3], b[3], m = 0;
		expand565(c0, a);
		expand565(c1, b);
		for (int k = 0; k < 3; k++) {
			unsigned d = a[k] > b[k] ? a[k] - b[k] : b[k] - a[k];
			m = d > m ? d : m;
		}
		if (m > max_diff)
			continue;
		/* The endpoints' mean, channel by channel in RGB565. */
		unsigned r = ((c0 >> 11) + (c1 >> 11) + 1) / 2;
		unsigned g = ((c0 >> 5 & 63) + (c1 >> 5 & 63) + 1) / 2;
		unsigned bl = ((c0 & 31) + (c1 & 31) + 1) / 2;
		unsigned c = r << 11 | g << 5 | bl;
		p[0] = p[2] = (uint8_t)c;
		p[1] = p[3] = (uint8_t)(c >> 8);
		p[4] = p[5] = p[6] = p[7] = 0;
		n++;
	}
	return n;
}
