/* Test pictures for the frame-image codecs (RGBA8, rows top-down): a
 * synthetic game frame (a gradient sky, ground, moving shapes with edges
 * and shading) and a photograph-like picture (fractal value noise in
 * several colors with soft edges and grain), made procedurally so that no
 * binary picture needs committing. Both are deterministic. */
#ifndef PROFEV_PICTURES_H
#define PROFEV_PICTURES_H
#include <stdint.h>

/* Frame `frame` of a moving scene: shapes move by a few pixels a frame. */
void pic_game(uint8_t *rgba, uint32_t width, uint32_t height, uint32_t frame);
/* A photograph-like picture; pan shifts the view by that many pixels
 * (a camera pan, for the moving sequences). */
void pic_photo(uint8_t *rgba, uint32_t width, uint32_t height, uint32_t pan);
/* Uniform noise (every byte random): the hardest case for a codec. */
void pic_noise(uint8_t *rgba, uint32_t width, uint32_t height, uint64_t seed);
#endif
