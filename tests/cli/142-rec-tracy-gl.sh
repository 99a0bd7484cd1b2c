# Tracy's OpenGL macros (<tracy/TracyOpenGL.hpp>) on profev: a small
# program in the style of Tracy's OpenGL example (tracy-gl.cpp) records
# the same GPU zones, names, order and nesting, and the same context name,
# as the same program written with profev's own API (gl-native.c). Without
# TRACY_ENABLE nothing of profev remains. Skips where no EGL device or GL
# 3.3 context can be had.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Mesa's own
INC="-I$PROFEV_ROOT/lib/include -I$PROFEV_ROOT/lib/include/tracy -I$PROFEV_ROOT/tests/cli"
GL="-lEGL -lGL"
$CXX -std=c++11 -O1 -Wall -Wextra -Werror $SANFLAGS -DTRACY_ENABLE $INC -o tgl "$PROFEV_ROOT/tests/cli/tracy-gl.cpp" \
	"$PROFEV_BUILD/libprofev-tracy.a" "$CLIENT_A" $GL -pthread || fail "cannot build tracy-gl.cpp"
$CXX -std=c++11 -O1 -Wall $SANFLAGS $INC -o tgl-off "$PROFEV_ROOT/tests/cli/tracy-gl.cpp" $GL -pthread ||
	fail "cannot build tracy-gl.cpp without TRACY_ENABLE"
! nm tgl-off | grep -qi 'profev' || fail "profev symbols without TRACY_ENABLE"
$CC -std=gnu99 -O1 -Wall -Wextra -Werror $SANFLAGS $INC -o native "$PROFEV_ROOT/tests/cli/gl-native.c" "$CLIENT_A" \
	$GL -pthread || fail "cannot build gl-native.c"
./native >probe.txt 2>&1
case $? in
0) ;;
3) skip "$(cat probe.txt)" ;;
*) fail "gl-native fails outside pfrec: $(cat probe.txt)" ;;
esac
build_reader gpuread <"$PROFEV_ROOT/tests/cli/gpu-read.c"

for p in tgl native; do
	expect_exit 0 pfrec -q -o $p.bin ./$p
	expect_exit 0 ./gpuread $p.bin
	grep '^zone ' out.txt | cut -d ' ' -f 2,3 >$p.zones
	grep '^ctx ' out.txt | cut -d ' ' -f 2,3 >$p.ctx
	# nesting: the depth of each zone, from the order and the times
	grep '^zone ' out.txt | awk '
		{ b = $3; e = $4; while (d > 0 && end[d] <= b) d--; end[++d] = e; print $2, d }' >$p.tree
	expect_exit 0 ./tgl-off
done
[ "$(wc -l <tgl.tree)" = 60 ] || fail "60 GPU zones expected from tracy-gl: $(wc -l <tgl.tree)"
cmp -s tgl.tree native.tree || fail "Tracy's macros and profev's API record other zones: $(diff tgl.tree native.tree | head -5)"
[ "$(cat tgl.ctx)" = "0 scene" ] || fail "context: $(cat tgl.ctx)"
cmp -s tgl.ctx native.ctx || fail "contexts differ"
head -3 tgl.tree | tr '\n' ' ' | grep -qx 'frame 1 clear 2 pass-0 2 ' ||
	fail "the first frame's zones: $(head -3 tgl.tree | tr '\n' ' ')"
