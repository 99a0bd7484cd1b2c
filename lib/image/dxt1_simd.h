/* Constants of the SIMD DXT1 kernel (dxt1_kernel.h), per 128-bit lane; the
 * including file's LANES(list) repeats a list once per lane. */
#ifndef PROFEV_DXT1_SIMD_H
#define PROFEV_DXT1_SIMD_H

#include <immintrin.h>
#include "image/image.h"
#include "image/dxt1_setup.h"

/* dxt1_setup.h's roundings as one _mm_mulhrs_epi16, (x * k + 2^14) >> 15:
 * 16 * (x * 249 + 1024) >> 15 is (x * 249 + 1024) >> 11 (5 bits), and
 * 32 * (x * 253 + 512) >> 15 is (x * 253 + 512) >> 10 (6 bits). */
#define Q5 3984
#define Q6 8096
/* Expansion to 8 bits: q << 3 | q >> 2 is (q * 33) >> 2; q << 2 | q >> 4
 * is (q * 65) >> 4 (the two parts never overlap). */
#define X5 33
#define X6 65
/* Bytes R, G, B, A of four dwords to RRRR GGGG BBBB AAAA. */
#define SOA1 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15
/* 2^(7 - top bit) for the high and the low nibble; 255 for 0. */
#define TOP_HI1 -1, 8, 4, 4, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1
#define TOP_LO1 -1, (char)128, 64, 64, 32, 32, 32, 32, 16, 16, 16, 16, 16, 16, 16, 16
/* Place on the ramp (0 color0 ... 3 color1 and beyond, as far as 15) to
 * index; a negative place (beyond color0) gets 0 from the shuffle. */
#define CODES1 0, 2, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1

#endif
