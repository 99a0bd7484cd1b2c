# GPU zones of real Vulkan work (examples/vk_compute.c on the first Vulkan
# device: Mesa's lavapipe here): per frame a GPU zone "frame" holding
# simulate, shade and post, one dispatch each. Counts and names are
# exact; each zone begins no earlier than the CPU time its begin was
# recorded at, less the calibration's stated error, and ends before the
# collect that read it returned (the counter "gpu zones collected"
# follows each collect); zones nest and follow each other as issued. So
# with VK_EXT_calibrated_timestamps (lavapipe's CLOCK_MONOTONIC domain:
# the error is the driver's deviation) and with the write-and-wait
# calibration (the error is half the wait). trace_processor loads the
# Perfetto output with no import error, the zones as slices on a GPU track
# named as the context. Skips where no Vulkan device can be opened.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/vk-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
vk_example
vk_probe "$VK" 1
build_reader gpuread <"$PROFEV_ROOT/tests/cli/gpu-read.c"

check_zones() { # READ-OUTPUT: the zones' names, nesting and times
	awk -v names="frame simulate shade post" -v max_err=100000000 -f "$PROFEV_ROOT/tests/cli/gpu-zones.awk" "$1" || fail "GPU zones out of place ($1)"
}

for mode in calibrated wait; do
	arg=; [ $mode = wait ] && arg="65536 0 wait"
	expect_exit 0 pfrec -q -o $mode.bin "$VK" 30 $arg
	expect_exit 0 ./gpuread $mode.bin
	cp out.txt $mode.txt
	grep -c '^zone ' $mode.txt | grep -qx 120 || fail "$mode: 120 GPU zones expected: $(grep -c '^zone ' $mode.txt)"
	grep -q '^ctx 0 compute [0-9]* 0$' $mode.txt || fail "$mode: context 0 'compute' with nothing lost: $(grep '^ctx' $mode.txt)"
	[ "$(grep -c '^ctx ' $mode.txt)" = 1 ] || fail "$mode: one context expected"
	check_zones $mode.txt
	expect_exit 0 pfdump --stats $mode.bin
	contains out.txt "0 compute (Vulkan): 120 zones"
	contains out.txt ", 0 lost"
	grep -E '^  (frame|simulate|shade|post) +compute +30 ' out.txt | wc -l | grep -qx 4 || fail "$mode: 30 of each GPU zone in --stats"
	grep -qE 'calibrations: [1-9][0-9]* accepted, 0 refused' out.txt || fail "$mode: calibrations: $(grep calibrations out.txt)"
	contains out.txt "images:       30 stored"
done
# lavapipe's calibrated timestamps read both clocks at once: an error of a
# few ns, where writing and waiting states the wait's half (about 0.5 ms).
ecal=$(sed -n 's/^ctx 0 compute \([0-9]*\) 0$/\1/p' calibrated.txt)
ewait=$(sed -n 's/^ctx 0 compute \([0-9]*\) 0$/\1/p' wait.txt)
if grep -q 'lvp_icd' <<EOV
${VK_ICD_FILENAMES:-}
EOV
then
	[ "$ecal" -lt 1000 ] || fail "lavapipe's calibrated error is $ecal ns: VK_EXT_calibrated_timestamps not used?"
	[ "$ewait" -gt "$ecal" ] || fail "the write-and-wait error ($ewait ns) is not above the calibrated one ($ecal ns)"
fi

tp_need
expect_exit 0 pfconv -q to perfetto -o vk.pftrace calibrated.bin
tp_import_ok vk.pftrace
got=$(tp_sql vk.pftrace "select s.name, s.depth, count(*), p.name
	from slice s join process_track t on s.track_id = t.id join process p using (upid)
	where t.name = 'compute' group by 1, 2 order by 2, 1" | tr -d '"' | tr '\n' ' ')
[ "$got" = "frame,0,30,vk_compute post,1,30,vk_compute shade,1,30,vk_compute simulate,1,30,vk_compute " ] ||
	fail "GPU slices in trace_processor: $got"
[ "$(tp_value vk.pftrace "select count(distinct t.id) from slice s join process_track t on s.track_id = t.id
	where t.name = 'compute'")" = 1 ] || fail "one GPU track expected for the context"
