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
	awk '
	BEGIN { nz = 0; nc = 0 }
	$1 == "ctx" { err = $(NF - 1) }
	$1 == "collected" { cts[nc] = $2; cval[nc++] = $3 }
	$1 == "zone" { name[nz] = $2; b[nz] = $3; e[nz] = $4; cpu[nz] = $5; ctx[nz] = $6; fl[nz] = $7; th[nz++] = $8 }
	END {
		want[0] = "frame"; want[1] = "simulate"; want[2] = "shade"; want[3] = "post"
		if (err <= 0 || err > 100000000) { print "calibration error " err " ns"; exit 1 }
		for (i = 0; i < nz; i++) {
			if (name[i] != want[i % 4]) { print "zone " i " is " name[i] ", not " want[i % 4]; bad = 1 }
			if (ctx[i] != 0 || fl[i] != 0 || th[i] != "main") { print "zone " i ": ctx " ctx[i] " flags " fl[i] " thread " th[i]; bad = 1 }
			if (e[i] < b[i]) { print "zone " i " ends before it begins"; bad = 1 }
			if (b[i] + err < cpu[i]) { print "zone " i " " name[i] " begins " cpu[i] - b[i] " ns before it was recorded"; bad = 1 }
			for (k = 0; k < nc && cval[k] <= i; k++) ;
			if (k == nc) { print "zone " i " was never collected"; bad = 1 }
			else if (e[i] > cts[k] + err) { print "zone " i " " name[i] " ends " e[i] - cts[k] " ns after its collect returned"; bad = 1 }
			f = i - i % 4
			if (i % 4) {
				if (b[i] < b[f] || e[i] > e[f]) { print "zone " i " " name[i] " is not inside its frame"; bad = 1 }
				if (i % 4 > 1 && b[i] < e[i - 1]) { print "zone " i " " name[i] " begins before " name[i - 1] " ends"; bad = 1 }
			} else if (i && b[i] < e[i - 4]) { print "frame zone " i " begins before the previous frame zone ends"; bad = 1 }
		}
		exit bad
	}' "$1" || fail "GPU zones out of place ($1)"
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
