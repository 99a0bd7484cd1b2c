# The default listing: one line per event with time, thread, type, name and
# value or duration; stacks indented below their event.
. "$PROFEV_ROOT/tests/cli/lib.sh"
expect_exit 0 pfdump "$GOLDEN/allkinds.bin"
contains out.txt "main(4242)             zone_end    Physics [game]  1.000 us"
contains out.txt "zone_end    Update [game]  1.900 us"
contains out.txt "counter     fps = 59.94"
contains out.txt 'message     [game] player "one" joined\n\ttab'
contains out.txt "alloc       0x7f0000001000 4096 bytes pool textures"
contains out.txt "lost        17 events lost"
contains out.txt "frame       #2 vsync"
contains out.txt "#0  inner_inlined src/game.c:10 (inlined)"
contains out.txt "#1  libfoo.so+0x42"
# 16 events, each on its own line; control characters never split a line.
[ "$(grep -c '^ *[0-9]*\.[0-9]\{9\}  ' out.txt)" -eq 16 ] || fail "expected 16 event lines"
cmp -s out.txt "$GOLDEN/allkinds.txt" || { diff "$GOLDEN/allkinds.txt" out.txt >&2; fail "text differs from golden"; }
