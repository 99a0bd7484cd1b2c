# Tracy's Vulkan macros (<tracy/TracyVulkan.hpp>) on profev: a small
# program in the style of a Tracy-instrumented renderer (tracy-vk.cpp),
# built both with the program's own Vulkan prototypes and with
# TRACY_VK_USE_SYMBOL_TABLE, records the same GPU zones, names, order and
# nesting, and the same context name, as the same program written with
# profev's own API (vk-native.c). Without TRACY_ENABLE nothing of profev
# remains. Skips where no Vulkan device can be opened.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/vk-lib.sh"
[ -f /usr/include/vulkan/vulkan.h ] || skip "no <vulkan/vulkan.h> (libvulkan-dev)"
INC="-I$PROFEV_ROOT/lib/include -I$PROFEV_ROOT/lib/include/tracy -I$PROFEV_ROOT/tests/cli"
VKLIB="-lvulkan"
for v in plain table; do
	def=; [ $v = table ] && def=-DTRACY_VK_USE_SYMBOL_TABLE
	$CXX -std=c++11 -O1 -Wall -Wextra -Werror $SANFLAGS -DTRACY_ENABLE $def $INC -o tvk-$v \
		"$PROFEV_ROOT/tests/cli/tracy-vk.cpp" "$PROFEV_BUILD/libprofev-tracy.a" "$CLIENT_A" $VKLIB -pthread ||
		fail "cannot build tracy-vk.cpp ($v)"
done
$CXX -std=c++11 -O1 -Wall $SANFLAGS $INC -o tvk-off "$PROFEV_ROOT/tests/cli/tracy-vk.cpp" $VKLIB -pthread ||
	fail "cannot build tracy-vk.cpp without TRACY_ENABLE"
! nm tvk-off | grep -qi 'profev' || fail "profev symbols without TRACY_ENABLE"
$CC -std=gnu99 -O1 -Wall -Wextra -Werror $SANFLAGS $INC -o native "$PROFEV_ROOT/tests/cli/vk-native.c" "$CLIENT_A" \
	$VKLIB -pthread || fail "cannot build vk-native.c"
vk_probe ./native
build_reader gpuread <"$PROFEV_ROOT/tests/cli/gpu-read.c"

for p in tvk-plain tvk-table native; do
	expect_exit 0 pfrec -q -o $p.bin ./$p
	expect_exit 0 ./gpuread $p.bin
	grep '^ctx ' out.txt | cut -d ' ' -f 2,3,5 >$p.ctx
	# nesting: the depth of each zone, from the order and the times
	grep '^zone ' out.txt | awk '
		{ b = $3; e = $4; while (d > 0 && end[d] <= b) d--; end[++d] = e; print $2, d }' >$p.tree
	expect_exit 0 pfdump --stats $p.bin
	contains out.txt "0 queue (Vulkan): 80 zones"
	expect_exit 0 ./tvk-off
done
[ "$(wc -l <native.tree)" = 80 ] || fail "80 GPU zones expected from vk-native: $(wc -l <native.tree)"
for p in tvk-plain tvk-table; do
	cmp -s $p.tree native.tree || fail "Tracy's macros ($p) and profev's API record other zones: $(diff $p.tree native.tree | head -5)"
	cmp -s $p.ctx native.ctx || fail "contexts differ: $(cat $p.ctx) against $(cat native.ctx)"
done
[ "$(cat native.ctx)" = "0 queue 0" ] || fail "context: $(cat native.ctx)"
head -4 native.tree | tr '\n' ' ' | grep -qx 'frame 1 fill 2 pass-0 2 again 3 ' ||
	fail "the first frame's zones: $(head -4 native.tree | tr '\n' ' ')"
