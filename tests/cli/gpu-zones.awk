# The GPU zones of a frame of 4 passes, as tests/cli/gpu-read.c prints them
# (tests 141, 144): each zone's name in turn (-v names="frame a b c"),
# context 0 on thread main, ended after it began, begun no earlier than its
# commands were recorded and ended before the collect that read it
# returned (both within the context's stated calibration error, at most
# -v max_err ns), the passes inside their frame one after another, the
# frames one after another. Prints what is out of place; exit 1 if any.
# usage: awk -v names="..." -v max_err=NS -f gpu-zones.awk READ-OUTPUT
BEGIN { nz = 0; nc = 0 }
$1 == "ctx" { err = $(NF - 1) }
$1 == "collected" { cts[nc] = $2; cval[nc++] = $3 }
$1 == "zone" { name[nz] = $2; b[nz] = $3; e[nz] = $4; cpu[nz] = $5; ctx[nz] = $6; fl[nz] = $7; th[nz++] = $8 }
END {
	split(names, want0, " "); for (k = 0; k < 4; k++) want[k] = want0[k + 1]
	if (err <= 0 || err > max_err) { print "calibration error " err " ns"; exit 1 }
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
}
