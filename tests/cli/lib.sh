# Sourced by the CLI tests: small assertions that say what broke.
# Tests run from a scratch directory with the build directory first in PATH.
set -u
GOLDEN="$PROFEV_ROOT/tests/golden"
MKTRACE="$PROFEV_BUILD/tools/mktrace"

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_exit CODE CMD...: runs CMD with stdout in out.txt, stderr in err.txt.
expect_exit() {
	want=$1; shift
	"$@" >out.txt 2>err.txt
	got=$?
	[ "$got" -eq "$want" ] || { cat err.txt >&2; fail "'$*' exited $got, expected $want"; }
}

# contains FILE TEXT: FILE has a line containing TEXT (fixed string).
contains() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "'$1' lacks '$2'"; }; }
lacks() { ! grep -qF -- "$2" "$1" || fail "'$1' has '$2'"; }
