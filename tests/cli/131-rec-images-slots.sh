# Frame images through the slots: a program sends images of two sizes in
# bursts longer than the 4 slots, with pauses between, so that pfrec
# sometimes keeps up (the same slot again and again) and sometimes frees
# slots while others are still busy. Every image arrives with its own
# pixels, in the order sent, and the caller's buffer is free once the
# call returns; with --drop what is not stored is counted, and what is
# stored is still right and in order.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
mkdir -p t131 && cd t131 || exit 1
build_prog bursts <<'C'
#include <profev.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* Image i is one color RGB565 holds exactly: (i, 63 - i, 3 i) in 5, 6, 5
 * bits; every third is 128 x 64, the others 32 x 16. */
static unsigned char px[128 * 64 * 4];
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 40;
	for (int i = 0; i < n; i++) {
		unsigned r = (unsigned)i & 31, g = 63 - (unsigned)i, b = (3u * (unsigned)i) & 31;
		int w = i % 3 ? 32 : 128, h = i % 3 ? 16 : 64;
		for (int k = 0; k < w * h * 4; k += 4) {
			px[k] = (unsigned char)(r << 3 | r >> 2);
			px[k + 1] = (unsigned char)(g << 2 | g >> 4);
			px[k + 2] = (unsigned char)(b << 3 | b >> 2);
			px[k + 3] = 255;
		}
		PROFEV_FRAME_IMAGE(px, w, h, 0, i & 1);
		memset(px, 0x55, sizeof px); /* the call copied them */
		PROFEV_FRAME_MARK();
		if (i % 7 == 6)
			usleep(3000);
	}
	return 0;
}
C
build_reader check <<'C'
#include <profev.h>
#include <profev_trace.h>
#include <stdio.h>
#include <string.h>
/* Prints how many images the trace holds; fails unless each decodes to
 * the one color of its number, at its size, numbers rising. */
static unsigned char px[128 * 64 * 4];
int main(int argc, char **argv) {
	(void)argc;
	FILE *f = fopen(argv[1], "rb");
	struct profev_error err;
	struct profev_reader *r = f ? profev_reader_new(f, &err) : NULL;
	if (!r)
		return 2;
	struct profev_event e;
	struct profev_event_info in;
	int got, count = 0, last = -1;
	while ((got = profev_reader_next_event(r, &e, &in)) == 1) {
		if (e.type != PROFEV_EV_FRAME_IMAGE)
			continue;
		const struct profev_image *im = profev_reader_image(r, (uint32_t)e.payload);
		if (!im || profev_image_rgba(im, px, im->width * 4) != 0) {
			printf("image %d does not decode\n", count);
			return 1;
		}
		int i = 63 - (px[1] >> 2);
		unsigned w = i % 3 ? 32 : 128, h = i % 3 ? 16 : 64;
		unsigned char c[3] = { (unsigned char)((i & 31) << 3 | (i & 31) >> 2),
				       (unsigned char)((63 - i) << 2 | (63 - i) >> 4),
				       (unsigned char)(((3 * i) & 31) << 3 | ((3 * i) & 31) >> 2) };
		if (i <= last || im->width != w || im->height != h) {
			printf("image %d: number %d after %d, %ux%u\n", count, i, last, im->width, im->height);
			return 1;
		}
		for (unsigned k = 0; k < w * h * 4; k += 4)
			if (memcmp(px + k, c, 3) != 0) {
				printf("image %d (number %d): pixel %u is %d,%d,%d, not %d,%d,%d\n", count, i, k / 4,
				       px[k], px[k + 1], px[k + 2], c[0], c[1], c[2]);
				return 1;
			}
		last = i;
		count++;
	}
	printf("%d images\n", count);
	profev_reader_free(r);
	fclose(f);
	return got == 0 ? 0 : 1;
}
C
expect_exit 0 pfrec -q -o l.bin ./bursts 40
./check l.bin > check.txt || fail "lossless: $(cat check.txt)"
contains check.txt "40 images"
expect_exit 0 pfdump --stats l.bin
contains out.txt "images:       40 stored, 0 lost, 0 refused"

expect_exit 0 pfrec -q --drop -o d.bin ./bursts 60
./check d.bin > check.txt || fail "--drop: $(cat check.txt)"
expect_exit 0 pfdump --stats d.bin
stored=$(sed -n 's/^images: *\([0-9]*\) stored, \([0-9]*\) lost.*/\1/p' out.txt)
lost=$(sed -n 's/^images: *\([0-9]*\) stored, \([0-9]*\) lost.*/\2/p' out.txt)
[ $((stored + lost)) -eq 60 ] || fail "--drop: $stored stored + $lost lost != 60"
contains check.txt "$stored images"
