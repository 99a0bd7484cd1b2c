/* Test pictures (pictures.h). */
#include <math.h>
#include <stddef.h>
#include "pictures.h"

static uint8_t clamp8(double v)
{
	return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)(v + 0.5);
}

static void put(uint8_t *p, double r, double g, double b)
{
	p[0] = clamp8(r);
	p[1] = clamp8(g);
	p[2] = clamp8(b);
	p[3] = 255;
}

static uint32_t hash2(int32_t x, int32_t y, uint32_t seed)
{
	uint32_t h = (uint32_t)x * 374761393u + (uint32_t)y * 668265263u + seed * 2246822519u;
	h = (h ^ (h >> 13)) * 1274126177u;
	return h ^ (h >> 16);
}

static double vnoise(double x, double y, uint32_t seed)
{
	int32_t xi = (int32_t)floor(x), yi = (int32_t)floor(y);
	double fx = x - xi, fy = y - yi;
	fx = fx * fx * (3 - 2 * fx);
	fy = fy * fy * (3 - 2 * fy);
	double a = hash2(xi, yi, seed) / 4294967296.0, b = hash2(xi + 1, yi, seed) / 4294967296.0;
	double c = hash2(xi, yi + 1, seed) / 4294967296.0, d = hash2(xi + 1, yi + 1, seed) / 4294967296.0;
	return a + (b - a) * fx + (c - a) * fy + (a - b - c + d) * fx * fy;
}

static double fbm(double x, double y, uint32_t seed)
{
	double v = 0, amp = 0.5;
	for (int o = 0; o < 6; o++, amp *= 0.5, x *= 2.03, y *= 2.03)
		v += amp * vnoise(x, y, seed + (uint32_t)o);
	return v;
}

void pic_game(uint8_t *rgba, uint32_t width, uint32_t height, uint32_t frame)
{
	double t = frame;
	for (uint32_t y = 0; y < height; y++)
		for (uint32_t x = 0; x < width; x++) {
			uint8_t *p = rgba + ((size_t)y * width + x) * 4;
			double fy = (double)y / height, fx = (double)x / width;
			double r, g, b;
			if (fy < 0.62) { /* sky */
				r = 40 + 120 * fy;
				g = 90 + 130 * fy;
				b = 200 + 40 * fy;
			} else { /* textured ground with stripes that scroll */
				double s = fmod(fx * 12 + t * 0.05 + 3.0 / (fy - 0.55), 1.0);
				double tex = fbm((x + t * 2) / 6.0, y / 6.0, 5);
				r = 40 + 40 * fy + (s < 0.5 ? 18 : 0) + 60 * tex;
				g = 100 + 20 * fy + (s < 0.5 ? 14 : 0) + 50 * tex;
				b = 30 + 30 * tex;
			}
			/* a sun with a soft halo */
			double dx = x - width * 0.8, dy = y - height * 0.18;
			double d = sqrt(dx * dx + dy * dy) / height;
			if (d < 0.08) {
				r = 255, g = 230, b = 120;
			} else if (d < 0.2) {
				double k = (0.2 - d) / 0.12;
				r += (255 - r) * k * 0.6, g += (230 - g) * k * 0.6, b += (120 - b) * k * 0.3;
			}
			/* moving shapes: shaded balls and boxes */
			for (int i = 0; i < 6; i++) {
				double cx = fmod(width * (0.1 + 0.15 * i) + t * (1.5 + i * 0.7), width);
				double cy = height * (0.35 + 0.1 * sin(t * 0.1 + i));
				double rad = height * (0.05 + 0.015 * i);
				double ex = x - cx, ey = y - cy;
				if (i & 1) {
					if (fabs(ex) < rad && fabs(ey) < rad * 0.7) {
						double k = 0.75 + 0.25 * (ex / rad);
						r = (200 - 25 * i) * k, g = (60 + 30 * i) * k, b = (90 + 20 * i) * k;
					}
				} else if (ex * ex + ey * ey < rad * rad) {
					double k = 0.55 + 0.45 * (1 - (ex + ey) / (2 * rad));
					r = (230 - 30 * i) * k, g = (120 + 20 * i) * k, b = (60 + 35 * i) * k;
				}
			}
			/* film grain and dithering: different in every frame */
			double grain = (hash2((int32_t)x, (int32_t)y, 1000 + frame) & 15) - 7.5;
			put(p, r + grain, g + grain, b + grain);
		}
}

void pic_photo(uint8_t *rgba, uint32_t width, uint32_t height, uint32_t pan)
{
	for (uint32_t y = 0; y < height; y++)
		for (uint32_t x = 0; x < width; x++) {
			double u = (x + pan) / 12.0, v = y / 12.0;
			double land = fbm(u, v, 1), tone = fbm(u * 0.5, v * 0.5, 7);
			double leaf = fbm(u * 4, v * 4, 13);
			double r, g, b;
			if (land > 0.5) { /* foliage: greens and browns with fine detail */
				r = 70 + 120 * tone * leaf;
				g = 90 + 110 * leaf;
				b = 40 + 50 * tone;
			} else { /* sky and water: blues, with a soft edge */
				double e = (0.5 - land) * 8;
				e = e > 1 ? 1 : e;
				r = (110 + 60 * tone) * e + (70 + 120 * tone * leaf) * (1 - e);
				g = (150 + 50 * tone) * e + (90 + 110 * leaf) * (1 - e);
				b = (210 + 30 * leaf) * e + (40 + 50 * tone) * (1 - e);
			}
			double grain = (hash2((int32_t)(x + pan), (int32_t)y, 99) & 47) - 23.5;
			put(rgba + ((size_t)y * width + x) * 4, r + grain, g + grain, b + grain);
		}
}

void pic_noise(uint8_t *rgba, uint32_t width, uint32_t height, uint64_t seed)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
	for (size_t i = 0; i < (size_t)width * height * 4; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		rgba[i] = (uint8_t)(s >> 24);
	}
}
