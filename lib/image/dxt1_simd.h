/* Constants of the SIMD DXT1 kernel (dxt1_kernel.h), per 128-bit lane;
 * each macro lists them once for a lane (the _mm256 forms take them twice). */
#ifndef PROFEV_DXT1_SIMD_H
#define PROFEV_DXT1_SIMD_H

#include <immintrin.h>
#include "image/image.h"

/* As dxt1_setup.h: (x * 249 + 1024) >> 11 for 5 bits, (x * 253 + 512) >>
 * 10 for 6, the shifts done as a high multiply by 2^(16 - shift). */
#define Q_MUL1 249, 253, 249, 0
#define Q_ADD1 1024, 512, 1024, 0
#define Q_SHIFT1 32, 64, 32, 0
#define E_HI1 8, 4, 8, 0             /* q << 3 (5 bits), q << 2 (6 bits) */
#define E_LO1 16384, 4096, 16384, 0  /* q >> 2, q >> 4 as a high multiply */
#define C_PACK1 2048, 32, 1, 0       /* r << 11 | g << 5 | b */
#define T_FRAC1 10923, (short)32768, (short)54613, 0 /* 1/6, 1/2, 5/6 of 2^16 */
#define COLORS1 0, 1, 8, 9, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
/* 2^(7 - top bit) for the high and the low nibble; 255 for 0. */
#define TOP_HI1 -1, 8, 4, 4, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1
#define TOP_LO1 -1, (char)128, 64, 64, 32, 32, 32, 32, 16, 16, 16, 16, 16, 16, 16, 16
/* Index by (-boundaries passed) & 15: 0 -> 1, 15 -> 3, 14 -> 2, 13 -> 0. */
#define CODES1 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3

#endif
