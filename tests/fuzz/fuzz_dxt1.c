/*
 * Fuzz target for the DXT1 encoder (lib/image/dxt1*.c): a differential
 * test of its ISA paths. The input's first two bytes pick the size (4 to
 * 200 pixels wide, so AVX2's whole strips of 16 blocks, AVX-512's of 32
 * then 16, and the rest of a row all occur; 4 to 32 high), the rest are
 * the pixels, repeated to fill the picture. Every path this CPU has must
 * give the plain C path's bytes, top-down and bottom-up (a negative
 * stride), and the blocks must decode. A difference aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	uint32_t w = 4 * (1 + data[0] % 50), h = 4 * (1 + data[1] % 8);
	size_t n = (size_t)w * h * 4, nb = dxt1_size(w, h);
	uint8_t *px = malloc(n), *back = malloc(n), *ref = malloc(nb), *got = malloc(nb);
	if (!px || !back || !ref || !got)
		abort();
	for (size_t i = 0; i < n; i++)
		px[i] = data[2 + i % (size - 2)];
	for (int flip = 0; flip < 2; flip++) {
		const uint8_t *top = flip ? px + (size_t)(h - 1) * w * 4 : px;
		ptrdiff_t stride = flip ? -(ptrdiff_t)w * 4 : (ptrdiff_t)w * 4;
		dxt1_encode_isa(DXT1_SCALAR, top, stride, w, h, ref);
		for (int p = DXT1_SCALAR + 1; p <= (int)dxt1_isa(); p++) {
			memset(got, 0xa5, nb);
			dxt1_encode_isa((enum dxt1_path)p, top, stride, w, h, got);
			if (memcmp(got, ref, nb) != 0) {
				fprintf(stderr, "fuzz_dxt1: %s differs from scalar (%ux%u, flip %d)\n",
					dxt1_isa_name((enum dxt1_path)p), w, h, flip);
				abort();
			}
		}
	}
	dxt1_decode(ref, w, h, back, (ptrdiff_t)w * 4);
	free(px);
	free(back);
	free(ref);
	free(got);
	return 0;
}
