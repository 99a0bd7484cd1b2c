# GPU zones from the manual API (<profev_gpu.h>) through pfrec: a clock of
# known period (2.5 ns per tick) and a known offset; every zone comes back
# with its name, thread and GPU ticks, placed on the CPU timeline within
# 1 us of where the known ratio puts it; a later calibration going
# backwards is refused and counted, lost zones are counted, a context with
# an impossible period is refused; pfdump lists and sums them up.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"

build_prog gpuman <"$PROFEV_ROOT/tests/cli/gpu-manual.c"
build_reader gpuread <"$PROFEV_ROOT/tests/cli/gpu-read.c"
expect_exit 0 pfrec -q -o gpu.bin ./gpuman
cp out.txt expected.txt
expect_exit 0 ./gpuread gpu.bin
grep '^zone ' out.txt | cut -d ' ' -f 2,3,4,6,7,8 >zones.txt
[ "$(wc -l <zones.txt)" -eq 30 ] || fail "30 GPU zones expected, got $(wc -l <zones.txt)"
# name, begin and end within 1 us of the known ratio, in the order issued
paste -d ' ' expected.txt zones.txt | awk '
	function abs(x) { return x < 0 ? -x : x }
	$1 != $4 { print "zone " NR ": " $1 " read as " $4; bad = 1 }
	abs($2 - $5) > 1000 || abs($3 - $6) > 1000 { print "zone " NR " " $1 " placed " $5 - $2 " / " $6 - $3 " ns off"; bad = 1 }
	$7 != 0 || $8 != 0 { print "zone " NR " ctx " $7 " flags " $8; bad = 1 }
	END { exit bad }' || fail "GPU zones not where the clock puts them"
[ "$(grep -c ' gpuman$' zones.txt)" = 30 ] || fail "zones not of the program's thread"

expect_exit 0 pfdump --stats gpu.bin
contains out.txt "GPU contexts:"
contains out.txt "0 compute (manual): 30 zones"
contains out.txt "5 lost"
contains out.txt "GPU time per frame (9 frames)"
contains out.txt "calibrations: 1 accepted, 1 refused"
contains out.txt "top GPU zones by total time:"
grep -E '^  pass +compute +10 ' out.txt >/dev/null || fail "pass not counted 10 times"
grep -E '^  shadow +compute +10 ' out.txt >/dev/null || fail "shadow not counted 10 times"
lacks out.txt broken

expect_exit 0 pfdump gpu.bin
[ "$(grep -c ' gpu_zone ' out.txt)" -eq 30 ] || fail "30 gpu_zone lines expected"
grep -E 'gpu_zone +shadow \[gpu 0 compute\]  99\.99[0-9] us' out.txt >/dev/null || fail "shadow's line"
expect_exit 0 pfdump --jsonl gpu.bin
[ "$(grep -c '"type":"gpu_zone","name":"opaque","gpu_context":0,"gpu":"compute","duration_ns":' out.txt)" -eq 10 ] ||
	fail "10 opaque zones in JSON Lines"
