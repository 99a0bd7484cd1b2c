# GPU zones of real OpenGL work (examples/gpu_game.c on EGL's surfaceless
# platform: Mesa's llvmpipe here): per frame a GPU zone "frame" holding
# shadow, opaque and post, in that order. Counts and names are exact; each
# zone begins no earlier than the CPU time its begin was recorded at, less
# the calibration's stated error, and ends before the collect that read it
# returned (the counter "gpu zones collected" follows each collect); zones
# nest and follow each other as issued. A query ring too small for the
# frames before the first collect loses zones, counted, and the program
# runs on. Skips where no EGL device or GL 3.3 context can be had.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
GAME="$PROFEV_BUILD/examples/gpu_game"
[ -x "$GAME" ] || fail "no $GAME"
# Mesa's own allocations outlive the program: not ours to report.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
"$GAME" 1 >probe.txt 2>&1
case $? in
0) ;;
3) skip "$(cat probe.txt)" ;;
*) fail "gpu_game fails outside pfrec: $(cat probe.txt)" ;;
esac
build_reader gpuread <"$PROFEV_ROOT/tests/cli/gpu-read.c"

expect_exit 0 pfrec -q -o gl.bin "$GAME" 30
expect_exit 0 ./gpuread gl.bin
cp out.txt read.txt
grep -c '^zone ' read.txt | grep -qx 120 || fail "120 GPU zones expected: $(grep -c '^zone ' read.txt)"
grep -q '^ctx 0 GL main [0-9]* 0$' read.txt || fail "context 0 'GL main' with nothing lost: $(grep '^ctx' read.txt)"
awk -v names="frame shadow opaque post" -v max_err=1000000 -f "$PROFEV_ROOT/tests/cli/gpu-zones.awk" read.txt || fail "GPU zones out of place"

expect_exit 0 pfdump --stats gl.bin
contains out.txt "0 GL main (OpenGL): 120 zones"
contains out.txt ", 0 lost"
grep -E '^  (frame|shadow|opaque|post) +GL main +30 ' out.txt | wc -l | grep -qx 4 || fail "30 of each GPU zone in --stats"
contains out.txt "images:       30 stored"

# 16 queries hold the zones of two frames: until the first collect, at
# frame 20, the rest are lost; then every frame's zones are read again.
expect_exit 0 pfrec -q -o small.bin "$GAME" 40 16 20
expect_exit 0 ./gpuread small.bin
zones=$(grep -c '^zone ' out.txt)
lost=$(sed -n 's/^ctx 0 GL main [0-9]* //p' out.txt)
[ "$lost" -gt 0 ] || fail "no zone lost with a ring of 16 queries"
[ $((zones + lost)) -eq 160 ] || fail "$zones zones and $lost lost do not make 160"
[ "$zones" -ge 80 ] || fail "only $zones zones recorded"
expect_exit 0 pfdump --stats small.bin
contains out.txt "$lost lost"
