# Frame images: sizes are checked and refused ones counted, flip and
# offset are applied, --drop counts what a full queue drops, and a crash
# with images in flight leaves a readable trace.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog shots <<'C'
#include <profev.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
/* 64 x 32: four 32 x 16 quadrants of colors RGB565 holds exactly, so the
 * DXT1 round trip gives them back bit for bit. */
static unsigned char px[64 * 32 * 4], up[64 * 32 * 4];
static const unsigned char quad[4][3] = { { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 255, 255, 255 } };
int main(int argc, char **argv) {
	for (int y = 0; y < 32; y++)
		for (int x = 0; x < 64; x++) {
			unsigned char *p = px + (y * 64 + x) * 4;
			memcpy(p, quad[(y >= 16) * 2 + (x >= 32)], 3);
			p[3] = 255;
		}
	for (int y = 0; y < 32; y++) /* the same picture bottom-up */
		memcpy(up + (31 - y) * 64 * 4, px + y * 64 * 4, 64 * 4);
	if (argc > 1 && !strcmp(argv[1], "burst")) { /* as fast as possible, big */
		int n = atoi(argv[2]);
		unsigned char *big = calloc(1920 * 1080, 4);
		for (int i = 0; i < n; i++) {
			big[i % 1000] = (unsigned char)i;
			PROFEV_FRAME_IMAGE(big, 1920, 1080, 0, 0);
		}
		free(big);
		return 0;
	}
	PROFEV_FRAME_IMAGE(px, 64, 32, 0, 0);      /* frame 0 */
	PROFEV_FRAME_IMAGE(px, 30, 20, 0, 0);      /* refused: not multiples of 4 */
	PROFEV_FRAME_IMAGE(px, 0, 0, 0, 0);        /* refused: empty */
	PROFEV_FRAME_IMAGE(px, 8192, 4, 0, 0);     /* refused: too wide */
	PROFEV_FRAME_IMAGE(NULL, 64, 32, 0, 0);    /* refused: no pixels */
	PROFEV_FRAME_MARK();
	PROFEV_FRAME_IMAGE(up, 64, 32, 0, 1);      /* frame 1, rows bottom-up */
	for (int f = 2; f <= 5; f++)
		PROFEV_FRAME_MARK();
	PROFEV_FRAME_IMAGE(px, 64, 32, 2, 0);      /* in frame 5, of frame 3 */
	if (argc > 1 && !strcmp(argv[1], "kill")) {
		for (int i = 0; i < 3; i++)
			PROFEV_FRAME_IMAGE(up, 64, 32, 0, 1);
		raise(SIGKILL);
	}
	return 0;
}
C
expect_exit 0 pfrec -q -o s.bin ./shots
expect_exit 0 pfdump --stats s.bin
contains out.txt "images:       3 stored, 0 lost, 4 refused"
[ "$(count_type s.bin frame_image)" -eq 3 ] || fail "3 frame_image events expected"
expect_exit 0 pfdump s.bin
contains out.txt "image 1 of frame 0"
contains out.txt "image 2 of frame 1"
contains out.txt "image 3 of frame 3"

# The PNG files decode (python3's zlib) to the picture, top-down every time.
expect_exit 0 pfconv to png -o pngs s.bin
[ "$(ls pngs | tr '\n' ' ')" = "frame-000000.png frame-000001.png frame-000003.png " ] ||
	fail "unexpected files: $(ls pngs | tr '\n' ' ')"
python3 - pngs/frame-000000.png pngs/frame-000001.png pngs/frame-000003.png <<'PY' || fail "PNG check"
import struct, sys, zlib
quad = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
for path in sys.argv[1:]:
    d = open(path, 'rb').read()
    assert d[:8] == b'\x89PNG\r\n\x1a\n', path
    pos, idat, ihdr = 8, b'', None
    while pos < len(d):
        n, kind = struct.unpack('>I4s', d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        assert zlib.crc32(kind + body) == struct.unpack('>I', d[pos + 8 + n:pos + 12 + n])[0], path
        if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
        if kind == b'IDAT': idat += body
        pos += 12 + n
    w, h, depth, ctype = ihdr[:4]
    assert (w, h, depth, ctype) == (64, 32, 8, 2), (path, ihdr)
    raw, bpp, stride = zlib.decompress(idat), 3, 64 * 3
    prev, rows = bytearray(stride), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    for y in range(h):
        for x in range(w):
            want = quad[(y >= 16) * 2 + (x >= 32)]
            got = tuple(rows[y][x * 3:x * 3 + 3])
            assert got == want, (path, x, y, got, want)
print("ok")
PY

# A crash with images in flight: the trace reads, the images in the shared
# file are kept.
expect_exit 137 pfrec -q -o k.bin ./shots kill
expect_exit 0 pfdump --stats k.bin
contains out.txt "images:       6 stored, 0 lost, 4 refused"
expect_exit 0 pfconv to png -o kshots k.bin

# Lossless: every image of a burst is stored. --drop with a recorder that
# cannot keep up (1920 x 1080 images as fast as the program copies them):
# what is not stored is counted lost, and nothing is unaccounted for.
expect_exit 0 pfrec -q -o b.bin ./shots burst 40
expect_exit 0 pfdump --stats b.bin
contains out.txt "images:       40 stored, 0 lost, 0 refused"
expect_exit 0 pfrec -q --drop -o d.bin ./shots burst 200
expect_exit 0 pfdump --stats d.bin
stored=$(sed -n 's/^images: *\([0-9]*\) stored, \([0-9]*\) lost.*/\1/p' out.txt)
lost=$(sed -n 's/^images: *\([0-9]*\) stored, \([0-9]*\) lost.*/\2/p' out.txt)
[ $((stored + lost)) -eq 200 ] || fail "--drop: $stored stored + $lost lost != 200"
[ "$lost" -gt 0 ] || fail "--drop: no image was dropped by a burst of 200 full-HD images"
[ "$(count_type d.bin frame_image)" -eq "$stored" ] || fail "--drop: events and stored images differ"

# pfrec stopped, then killed, while the program waits for an image slot
# (lossless): the client sees the pipe without a reader and runs on.
build_prog shotloop <<'C'
#include <profev.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
	(void)argc;
	int n = atoi(argv[1]);
	unsigned char *big = calloc(1920 * 1080, 4);
	FILE *f = fopen(argv[2], "w");
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	for (int i = 0; i < n; i++) {
		big[i % 4096]++;
		PROFEV_FRAME_IMAGE(big, 1920, 1080, 0, 0);
	}
	fprintf(stderr, "done %d\n", n);
	free(big);
	return 0;
}
C
rm -f pid.txt
pfrec -q -o gone.bin ./shotloop 100000 pid.txt 2>err.txt &
rec=$!
wait_for pid.txt "" 10
prog=$(cat pid.txt)
sleep 0.5
orphan_finishes $rec "$prog" "waiting for an image slot"
contains err.txt "done 100000"
