# Frame images stored by the format-3 writer of earlier versions (zstd
# planes, tests/golden/images-v3.bin) and by today's format 4 (context
# modelling and a range coder) give the same PNG files, byte for byte;
# format 4 is the smaller; a cut format-4 trace is an error that names
# the file, not a crash.
. "$PROFEV_ROOT/tests/cli/lib.sh"
mkdir -p t318 && cd t318 || exit 1
expect_exit 0 pfconv to png -o v3 "$GOLDEN/images-v3.bin"
"$MKTRACE" images v4.bin || fail "mktrace images"
expect_exit 0 pfconv to png -o v4 v4.bin
[ "$(ls v3 | wc -l)" -eq 13 ] || fail "$(ls v3 | wc -l) PNG files from the format-3 trace, not 13"
diff -r v3 v4 > diff.txt || fail "format 3 and format 4 decode to different pictures: $(cat diff.txt)"
python3 - v4/frame-000000.png v4/frame-000050.png <<'PY' || fail "PNG files"
import struct, sys, zlib
for path, want in zip(sys.argv[1:], [(64, 48), (8, 12)]):
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", path
    w, h = struct.unpack(">II", d[16:24])
    assert (w, h) == want, (path, w, h)
PY
s3=$(wc -c < "$GOLDEN/images-v3.bin") s4=$(wc -c < v4.bin)
[ "$s4" -lt "$s3" ] || fail "format 4 takes $s4 bytes, format 3 $s3"
expect_exit 0 pfdump --stats v4.bin
contains out.txt "images:       13 stored, 0 lost, 0 refused"

# Cut in the middle of the images: exit 1 with the file named.
head -c $((s4 / 2)) v4.bin > cut.bin
expect_exit 1 pfconv to png -o cut cut.bin
contains err.txt "'cut.bin'"
