#!/bin/sh
# Runs every unit test (BUILD/tests/SUBSYSTEM/t_*) and every CLI test (tests/cli/*.sh),
# one PASS/FAIL/SKIP line each, and ends with "N passed, N failed, N skipped".
# A test skips by exiting 77 after printing its reason (a tool it needs is
# missing); it is never counted as passed.
# usage: tests/run.sh [BUILD] [PATTERN]
BUILD=${1:-build}
PATTERN=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$ROOT" && cd "$BUILD" && pwd) || exit 2
export PROFEV_BUILD="$BUILD" PROFEV_ROOT="$ROOT"
export PATH="$BUILD:$PATH"
limit=${PROFEV_TEST_TIMEOUT:-300}
passed=0
failed=0
skipped=0
logdir=$(mktemp -d "${TMPDIR:-/tmp}/profev-tests.XXXXXX")
# pfsym asks the debuginfod servers of DEBUGINFOD_URLS (Debian's profile
# sets it): the tests ask none but their own, and never read or fill the
# user's cache.
unset DEBUGINFOD_URLS
export DEBUGINFOD_CACHE_PATH="$logdir/debuginfod-cache"

run_one() { # name, command...
	name=$1; shift
	case "$name" in *"$PATTERN"*) ;; *) return ;; esac
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
	run_one "unit/${t#"$BUILD"/tests/}" "$t"
done
for t in "$ROOT"/tests/cli/[0-9]*.sh; do
	[ -f "$t" ] || continue
	run_one "cli/${t##*/}" sh "$t"
done
rm -rf "$logdir"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
