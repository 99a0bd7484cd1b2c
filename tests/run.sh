#!/bin/sh
# Runs every unit test (BUILD/tests/SUBSYSTEM/t_*) and every CLI test (tests/cli/*.sh),
# one PASS/FAIL/SKIP line each, and ends with "N passed, N failed, N skipped".
# A test skips by exiting 77 after printing its reason (a tool it needs is
# missing); it is never counted as passed.
# usage: tests/run.sh [BUILD] [PATTERN]   (PATTERN: substrings of the tests'
#   names, separated by spaces: 'unit/ cli/134' runs the unit tests and 134)
# A cross-built BUILD (make ARCH=aarch64 test) runs under an emulator:
# PROFEV_EMULATOR (qemu-aarch64-static) runs the unit tests, and the CLI
# tests exec the commands through binfmt_misc (tests/emulator.sh), which
# the runner checks first. Tests read PROFEV_EMULATOR to skip what
# qemu-user cannot do (perf_event_open, ptrace); the compilers and binutils
# they call by name build for the target (PROFEV_CROSS, below).
BUILD=${1:-build}
PATTERN=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$ROOT" && cd "$BUILD" && pwd) || exit 2
export PROFEV_BUILD="$BUILD" PROFEV_ROOT="$ROOT"
export PATH="$BUILD:$PATH"
limit=${PROFEV_TEST_TIMEOUT:-300}
logdir=$(mktemp -d "${TMPDIR:-/tmp}/profev-tests.XXXXXX")
emulator=${PROFEV_EMULATOR:-}
if [ -n "$emulator" ]; then
	command -v "$emulator" >/dev/null || { echo "tests/run.sh: emulator '$emulator' not found (make deps ARCH=...)" >&2; exit 2; }
	export PROFEV_EMULATOR QEMU_LD_PREFIX="${QEMU_LD_PREFIX:-/}"
	sh "$ROOT/tests/emulator.sh" check "$BUILD/profev" || {
		echo "tests/run.sh: '$BUILD/profev' does not run when exec'd: register $emulator with binfmt_misc (make deps ARCH=...)" >&2
		exit 2
	}
	# Programs the tests build are built for the target: the tests' gcc,
	# cc, g++, clang, objcopy, strip, nm... are the cross toolchain of
	# PROFEV_CROSS (aarch64-linux-gnu-) and clang for its triplet, put
	# first on PATH under their plain names; readelf, llvm-symbolizer and
	# the rest read any architecture's files and stay the machine's own.
	if [ -n "${PROFEV_CROSS:-}" ]; then
		triplet=${PROFEV_CROSS%-}
		mkdir "$logdir/bin"
		for tool in gcc:gcc cc:gcc g++:g++ c++:g++ objcopy:objcopy strip:strip nm:nm objdump:objdump ar:ar \
			    clang:clang clang++:clang++; do
			name=${tool%%:*} real=${tool#*:}
			case $real in
			clang*) cmd="$(command -v "$real") --target=$triplet" ;;
			*) cmd="$PROFEV_CROSS$real" ;;
			esac
			printf '#!/bin/sh\nexec %s "$@"\n' "$cmd" > "$logdir/bin/$name"
			chmod +x "$logdir/bin/$name"
		done
		export PATH="$BUILD:$logdir/bin:$PATH"
	fi
	# qemu-user is several times slower than the machine.
	limit=${PROFEV_TEST_TIMEOUT:-900}
fi
passed=0
failed=0
skipped=0
# pfsym asks the debuginfod servers of DEBUGINFOD_URLS (Debian's profile
# sets it): the tests ask none but their own, and never read or fill the
# user's cache.
unset DEBUGINFOD_URLS
export DEBUGINFOD_CACHE_PATH="$logdir/debuginfod-cache"

run_one() { # name, command...
	name=$1; shift
	if [ -n "$PATTERN" ]; then
		match=
		for p in $PATTERN; do
			case "$name" in *"$p"*) match=1 ;; esac
		done
		[ -n "$match" ] || return
	fi
	base=$(echo "$name" | tr '/' '_')
	log="$logdir/$base.log"
	mkdir "$logdir/$base.d"
	# A hung test fails after the time limit instead of hanging the run.
	(cd "$logdir/$base.d" && timeout -k 10 "$limit" "$@") >"$log" 2>&1 </dev/null
	rc=$?
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1)); echo "PASS $name"
	elif [ "$rc" -eq 77 ]; then
		skipped=$((skipped + 1))
		echo "SKIP $name: $(grep -m1 '^SKIP' "$log" | sed 's/^SKIP:* *//')"
	else
		failed=$((failed + 1)); echo "FAIL $name"
		[ -s "$log" ] || echo "    (no output; a timeout after ${limit}s looks like this)"
		sed 's/^/    /' "$log" | tail -n 30
	fi
}

for t in "$BUILD"/tests/*/t_*; do
	[ -x "$t" ] || continue
	run_one "unit/${t#"$BUILD"/tests/}" $emulator "$t"
done
for t in "$ROOT"/tests/cli/[0-9]*.sh; do
	[ -f "$t" ] || continue
	run_one "cli/${t##*/}" sh "$t"
done
rm -rf "$logdir"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
