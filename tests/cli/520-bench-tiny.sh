# Every benchmark's measuring path, once on a tiny input
# (PROFEV_BENCH_TINY=1 tests/bench/run.sh): a parse of a tool's output that
# finds nothing fails here, not months later in make bench. A benchmark
# whose tool is missing (valgrind, perf, trace_processor_shell, ...) is
# left out and named; the test then ends as skipped, once the others pass.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
B=$PROFEV_BUILD
for b in bench_trace bench_client bench_tracy bench_conv bench_image bench_sample bench_sym bench_ring bench_gpu; do
	[ -x "$B/bench/$b" ] || fail "$B/bench/$b is not built (make tools builds the benchmarks)"
done
has() { command -v "$1" >/dev/null 2>&1; }
run="" missing=""
need() { # NAME TOOL-CHECK WHY: NAME runs if the check passes
	name=$1 why=$3
	if eval "$2"; then run="$run $name"; else missing="$missing $name ($why);"; fi
}
need trace true ""
# valgrind cannot run a sanitizer build (make SAN=... test sets PROFEV_SAN),
# nor another architecture's (make ARCH=aarch64 test sets PROFEV_EMULATOR).
callgrind='has valgrind && has callgrind_annotate && [ -z "${PROFEV_SAN:-}" ] && [ -z "${PROFEV_EMULATOR:-}" ]'
callgrind_why="no valgrind, or a sanitizer or emulated build valgrind cannot run"
need client "$callgrind" "$callgrind_why"
need ring true ""
need game_args "has cc" "no cc"
need tracy "$callgrind" "$callgrind_why"
need conv true ""
need dump_stats "has python3" "no python3"
need compare "has python3" "no python3"
need svg "has python3" "no python3"
tp_find && export TRACE_PROCESSOR=$TP
need perfetto "tp_find" "${tp_why:-}"
need image true ""
need sample "has perf && [ -z \"\${PROFEV_EMULATOR:-}\" ] && [ \"\$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)\" -le 2 ]" \
	"no perf, perf_event_paranoid above 2, or qemu-user, which has no perf_event_open"
need sym "has llvm-symbolizer && has addr2line && has dwz" "no llvm-symbolizer, addr2line or dwz"
# The GPU benchmark needs an OpenGL and a Vulkan device (llvmpipe, lavapipe):
# the examples say whether they can open one (exit 3: they cannot).
lvp=/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json
[ -n "${VK_ICD_FILENAMES:-}" ] || [ ! -f "$lvp" ] || export VK_ICD_FILENAMES="$lvp"
gpu_devices() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$B/examples/gpu_game" 1 >/dev/null 2>&1 &&
		[ -x "$B/examples/vk_compute" ] &&
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$B/examples/vk_compute" 1 >/dev/null 2>&1
}
need gpu gpu_devices "no OpenGL or no Vulkan device (llvmpipe, lavapipe), or vk_compute not built"

# The caches of the generated inputs stay in the scratch directory. The
# tables reach the test's log as they are printed: were the test's time to
# run out, its log would show how far it got (run.sh names a benchmark that
# outlasts its own limit).
{ PROFEV_BENCH_TINY=1 TMPDIR=$PWD sh "$PROFEV_ROOT/tests/bench/run.sh" "$B" $run 2>&1; echo $? > rc.txt; } |
	tee out.txt
[ "$(cat rc.txt)" = 0 ] || fail "a benchmark failed on its tiny input (above)"
# The figures the parses give are never 0 (the callgrind rows were, once).
if grep -E 'instructions per .* 0\.0( |$)' out.txt >&2; then
	fail "an instruction count of 0 was printed as a result"
fi
[ -z "$missing" ] || { echo "SKIP: not run:$missing"; exit 77; }
exit 0
