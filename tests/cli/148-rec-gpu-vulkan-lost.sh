# A Vulkan query ring too small for the frames before the first collect
# (examples/vk_compute.c with 16 queries, collecting from frame 20 on):
# the zones that find it full are lost and counted, and the program runs
# to its end without waiting for the GPU; once the collects run every
# frame's zones are read again. Under -DPROFEV_DISABLE the example builds
# with nothing of profev left in it. Skips where no Vulkan device can be
# opened.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/vk-lib.sh"
vk_example
vk_probe "$VK" 1
build_reader gpuread <"$PROFEV_ROOT/tests/cli/gpu-read.c"

# 16 queries hold the zones of two frames: until the first collect, at
# frame 20, the rest are lost; then every frame's zones are read.
expect_exit 0 pfrec -q -o small.bin "$VK" 40 16 20
expect_exit 0 ./gpuread small.bin
zones=$(grep -c '^zone ' out.txt)
lost=$(sed -n 's/^ctx 0 compute [0-9]* //p' out.txt)
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "no zone lost with a ring of 16 queries: $(grep '^ctx' out.txt)"
[ $((zones + lost)) -eq 160 ] || fail "$zones zones and $lost lost do not make 160"
[ "$zones" -ge 80 ] || fail "only $zones zones recorded"
# What was recorded is whole frames, nested as issued.
grep '^zone ' out.txt | awk '{ print $2 }' | paste -sd ' ' | grep -qE '^(frame simulate shade post ?)+$' ||
	fail "the zones recorded are not whole frames: $(grep '^zone ' out.txt | awk '{ print $2 }' | head -8 | paste -sd ' ')"
expect_exit 0 pfdump --stats small.bin
contains out.txt "0 compute (Vulkan): $zones zones"
contains out.txt "$lost lost"

# -DPROFEV_DISABLE: the example compiles and links with no profev symbol
# and no client library, and runs.
$CC -std=gnu17 -O1 -Wall -Wextra -Werror $SANFLAGS -DPROFEV_DISABLE -I"$PROFEV_ROOT/lib/include" \
	-I"$PROFEV_BUILD/examples" -o off "$PROFEV_ROOT/examples/vk_compute.c" -ldl ||
	fail "vk_compute.c does not build under -DPROFEV_DISABLE"
! nm off | grep -qi 'profev' || fail "profev symbols under -DPROFEV_DISABLE: $(nm off | grep -i profev | head -3)"
expect_exit 0 ./off 3
