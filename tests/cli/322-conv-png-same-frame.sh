# Several images of one frame (a second one sent in the frame, flipped, and
# a third sent a frame later with offset 1) each get a PNG file of their
# own, in the order they were read: frame-NNNNNN.png, then -1, -2. A second
# conversion into the same directory replaces the files, not adds to them.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
mkdir -p t322 && cd t322 || exit 1
build_prog shots <<'C'
#include <profev.h>
#include <string.h>
/* 64 x 32 pictures in colors RGB565 holds exactly: red; green over blue
 * sent bottom-up (so its memory starts with the blue rows); white. */
static unsigned char red[64 * 32 * 4], up[64 * 32 * 4], white[64 * 32 * 4];
static void fill(unsigned char *p, int y0, int y1, int r, int g, int b)
{
	for (int i = y0 * 64; i < y1 * 64; i++) {
		p[i * 4] = (unsigned char)r, p[i * 4 + 1] = (unsigned char)g;
		p[i * 4 + 2] = (unsigned char)b, p[i * 4 + 3] = 255;
	}
}
int main(void)
{
	fill(red, 0, 32, 255, 0, 0);
	fill(up, 0, 16, 0, 0, 255);
	fill(up, 16, 32, 0, 255, 0);
	fill(white, 0, 32, 255, 255, 255);
	for (int f = 0; f < 12; f++) {         /* frames 0 to 11, one image each */
		if (f)
			PROFEV_FRAME_MARK();
		PROFEV_FRAME_IMAGE(red, 64, 32, 0, 0);
	}
	PROFEV_FRAME_IMAGE(up, 64, 32, 0, 1);   /* frame 11 again, flipped */
	PROFEV_FRAME_MARK();
	PROFEV_FRAME_IMAGE(white, 64, 32, 1, 0); /* in frame 12, of frame 11 */
	return 0;
}
C
expect_exit 0 pfrec -q -o s.bin ./shots
expect_exit 0 pfdump --stats s.bin
contains out.txt "images:       14 stored, 0 lost, 0 refused"

expect_exit 0 pfconv to png -o pngs s.bin
lacks err.txt "warning"
[ "$(ls pngs | wc -l)" -eq 14 ] || fail "$(ls pngs | wc -l) PNG files for 14 images: $(ls pngs | tr '\n' ' ')"
for f in 0 1 10 11 11-1 11-2; do
	[ -s "pngs/frame-$(printf %06d "${f%%-*}")${f#"${f%%-*}"}.png" ] || fail "no file for image $f: $(ls pngs | tr '\n' ' ')"
done
# The top-left pixel of each image of frame 11: every filter leaves the
# first pixel of the first row as it is.
python3 - pngs/frame-000011.png pngs/frame-000011-1.png pngs/frame-000011-2.png <<'PY' || fail "the images of frame 11"
import struct, sys, zlib
want = [(255, 0, 0), (0, 255, 0), (255, 255, 255)]
for path, rgb in zip(sys.argv[1:], want):
    d = open(path, 'rb').read()
    assert d[:8] == b'\x89PNG\r\n\x1a\n', path
    pos, idat = 8, b''
    while pos < len(d):
        n, kind = struct.unpack('>I4s', d[pos:pos + 8])
        if kind == b'IDAT':
            idat += d[pos + 8:pos + 8 + n]
        pos += 12 + n
    got = tuple(zlib.decompress(idat)[1:4])
    assert got == rgb, (path, got, rgb)
PY
expect_exit 0 pfconv to png -o pngs s.bin
[ "$(ls pngs | wc -l)" -eq 14 ] || fail "a second conversion made $(ls pngs | wc -l) files: $(ls pngs | tr '\n' ' ')"
