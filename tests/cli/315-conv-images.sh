# Frame images of the example game in every output: PNG files, Perfetto
# screenshots (what Perfetto UI's screenshot track queries, checked with
# trace_processor; the JPEG decodes with djpeg), the DevTools filmstrip in
# Chrome JSON (base64 JPEG), and --no-images, --from/--to and --thread.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 0 pfrec -q -o game.bin -- "$PROFEV_BUILD/examples/game" 30
expect_exit 0 pfdump --stats game.bin
contains out.txt "images:       30 stored, 0 lost, 0 refused"

expect_exit 0 pfconv to png -o pngs game.bin
[ "$(ls pngs | wc -l)" -eq 30 ] || fail "$(ls pngs | wc -l) PNG files, not 30"
[ -s pngs/frame-000000.png ] && [ -s pngs/frame-000029.png ] || fail "PNG files not named by frame"

# Chrome: 30 object snapshots whose snapshot is base64 of a JPEG that
# djpeg decodes to the game's 320 x 180.
expect_exit 0 pfconv to chrome -o game.json game.bin
python3 - game.json <<'PY' || fail "Chrome JSON screenshots"
import base64, json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
shots = [e for e in ev if e.get("ph") == "O"]
assert len(shots) == 30, len(shots)
for e in shots:
    assert e["name"] == "Screenshot" and e["cat"] == "disabled-by-default-devtools.screenshot", e
    assert "id" in e and "ts" in e and "pid" in e and "tid" in e, e
    jpg = base64.b64decode(e["args"]["snapshot"], validate=True)
    assert jpg[:3] == b"\xff\xd8\xff" and jpg[-2:] == b"\xff\xd9", "not a JPEG"
open("shot.jpg", "wb").write(jpg)
PY
if command -v djpeg >/dev/null; then
	djpeg -pnm shot.jpg > shot.ppm || fail "djpeg cannot decode the Chrome snapshot"
	[ "$(head -c 2 shot.ppm)" = P6 ] && head -n 2 shot.ppm | tail -n 1 | grep -qx '320 180' ||
		fail "the snapshot is not a 320 x 180 picture"
fi
expect_exit 0 pfconv to chrome --no-images -o plain.json game.bin
! grep -q '"ph":"O"' plain.json || fail "--no-images left screenshots in"

# --from/--to and --thread treat images as other events: the game sends them
# from its main thread.
expect_exit 0 pfconv to chrome --thread render -o render.json game.bin
! grep -q '"ph":"O"' render.json || fail "--thread render kept the main thread's images"
expect_exit 0 pfconv to chrome --thread main -o main.json game.bin
[ "$(grep -o '"ph":"O"' main.json | wc -l)" -eq 30 ] || fail "--thread main lost images"
expect_exit 0 pfconv to png --from 0 --to 1ns -o none game.bin
[ "$(ls none | wc -l)" -eq 0 ] || fail "--to 1ns kept images"

# Perfetto: trace_processor's android_screenshots (the UI's screenshot
# track) lists every image; its jpg_image arg holds a JPEG djpeg decodes.
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
tp_need
expect_exit 0 pfconv -q to perfetto -o game.pftrace game.bin
tp_import_ok game.pftrace
n=$(tp_value game.pftrace "include perfetto module android.screenshots; select count(*) from android_screenshots")
[ "$n" -eq 30 ] || fail "trace_processor finds $n screenshots, not 30"
track=$(tp_value game.pftrace "select distinct t.name from slice s join track t on s.track_id = t.id where s.name = 'Screenshot'")
[ "$track" = Screenshots ] || fail "screenshots are on track '$track'"
tp_value game.pftrace "select a.string_value from slice s join args a using (arg_set_id)
	where s.name = 'Screenshot' and a.key = 'screenshot.jpg_image' limit 1" > jpg.b64
python3 -c "import base64,sys; sys.stdout.buffer.write(base64.b64decode(open('jpg.b64').read().strip()))" > pf.jpg ||
	fail "the jpg_image arg is not base64"
if command -v djpeg >/dev/null; then
	djpeg -pnm pf.jpg > pf.ppm || fail "djpeg cannot decode the Perfetto screenshot"
	head -n 2 pf.ppm | tail -n 1 | grep -qx '320 180' || fail "the Perfetto screenshot is not 320 x 180"
fi
expect_exit 0 pfconv -q to perfetto --no-images -o plain.pftrace game.bin
n=$(tp_value plain.pftrace "select count(*) from slice where name = 'Screenshot'")
[ "$n" -eq 0 ] || fail "--no-images left $n screenshots in"
