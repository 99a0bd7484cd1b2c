#!/bin/sh
# Runs fuzz targets (make fuzz): each for SECONDS on its seed corpus, under
# nice; what a target finds beyond the seeds goes to BUILD/fuzz/corpus/, a
# crash to BUILD/fuzz/crash-TARGET-*. Fails if any target crashed.
#   usage: tests/fuzz/run.sh BUILD SECONDS TARGET...
set -u
BUILD=$1 SECONDS_EACH=$2
shift 2
failed=0
for t in "$@"; do
	case $t in
	reader | dump | symtrace) seeds=trace ;;
	conv_*) seeds=conv ;;
	symbolize) seeds=elf ;;
	debuginfod) seeds=debuginfod ;;
	record) seeds=wire ;;
	dxt1) seeds=image ;;
	*) echo "fuzz: no target '$t'" >&2; failed=$((failed + 1)); continue ;;
	esac
	work="$BUILD/fuzz/corpus/$t"
	mkdir -p "$work"
	log="$BUILD/fuzz/$t.log"
	# -timeout: an input that takes longer is a hang; -rss_limit_mb: memory
	# past this on any input is a failure (issue 11: bounded memory).
	nice "$BUILD/fuzz/$t" -max_total_time="$SECONDS_EACH" -timeout=25 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$BUILD/fuzz/crash-$t-" \
		"$work" "tests/fuzz/corpus/$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "PASS fuzz/$t: ${runs:-?} runs in ${SECONDS_EACH}s"
	else
		failed=$((failed + 1))
		echo "FAIL fuzz/$t (exit $rc): see $log"
		grep -E '^==[0-9]+==|SUMMARY|runtime error|Test unit written|^#|abort' "$log" | tail -n 12 | sed 's/^/    /'
	fi
done
[ "$failed" -eq 0 ]
