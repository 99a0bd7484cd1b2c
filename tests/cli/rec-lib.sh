# Sourced by the pfrec CLI tests (1NN-rec-*.sh) after lib.sh: builds small
# instrumented programs against the client in the build directory.
CLIENT_A="$PROFEV_BUILD/libprofev-client.a"
GAME="$PROFEV_BUILD/examples/game"
CC=${CC:-cc}
CXX=${CXX:-c++}
# A sanitizer build (make SAN=..., build-address-undefined) links only with
# its flags.
if [ -n "${PROFEV_SAN:-}" ]; then
	SANFLAGS="-fsanitize=$PROFEV_SAN"
else
	case "${PROFEV_BUILD##*/}" in
	build-aarch64) SANFLAGS= ;; # a cross build's directory (make ARCH=aarch64)
	build-aarch64-*) SANFLAGS="-fsanitize=$(echo "${PROFEV_BUILD##*/build-aarch64-}" | tr - ,)" ;;
	build-*) SANFLAGS="-fsanitize=$(echo "${PROFEV_BUILD##*/build-}" | tr - ,)" ;;
	*) SANFLAGS= ;;
	esac
fi

# build_prog NAME: compiles NAME.c from stdin into ./NAME with the client.
build_prog() {
	cat >"$1.c"
	$CC -std=gnu99 -O1 -Wall -Wextra -Werror $SANFLAGS -I"$PROFEV_ROOT/lib/include" -o "$1" "$1.c" \
		"$CLIENT_A" -pthread || fail "cannot build $1"
}

# count_type TRACE TYPE: events of TYPE (zone_begin, counter...) in TRACE.
count_type() {
	pfdump --jsonl "$1" | grep -c "\"type\":\"$2\"" || true
}

# build_reader NAME: compiles NAME.c from stdin into ./NAME against libprofev.
build_reader() {
	cat >"$1.c"
	$CC -std=gnu99 -O1 -Wall -Wextra -Werror $SANFLAGS -I"$PROFEV_ROOT/lib/include" -o "$1" "$1.c" \
		"$PROFEV_BUILD/libprofev.a" -lzstd -lxxhash -lelf -ldwarf -lz -lm -pthread ||
		fail "cannot build $1"
}

# fn_at MODULE OFFSET: the function (outermost of an inline chain) holding
# the call before return address OFFSET (hex, 0x...), by llvm-symbolizer.
fn_at() {
	llvm-symbolizer --no-inlines --obj="$1" "$(printf '0x%x' $(($2 - 1)))" | head -n 1
}

# build_burst: ./burst N [PIDFILE] opens and closes N zones on one thread as
# fast as it can, prints "done N" on stderr and exits 7; with PIDFILE it
# first writes its pid there.
build_burst() {
	build_prog burst <<'C'
#include <profev.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
PROFEV_CATEGORY(app, "application");
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");
		if (!f)
			return 99;
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	for (long i = 0; i < n; i++) {
		PROFEV_ZONE(app, "tick");
	}
	fprintf(stderr, "done %ld\n", n);
	return 7;
}
C
}

# wait_for FILE TEXT SECONDS: until FILE has TEXT; fails after SECONDS.
wait_for() {
	i=0
	while ! grep -qF -- "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -le $(($3 * 10)) ] || { cat "$1" >&2; fail "no '$2' in '$1' after $3 s"; }
		sleep 0.1
	done
}

# alive PID: the process exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"
}

# orphan_finishes REC PROG WHAT: stops pfrec (pid REC) so that it reads
# nothing more, then kills it; the traced program PROG, an orphan now,
# must end on its own within 30 s, or the test fails saying WHAT hangs.
orphan_finishes() {
	kill -STOP "$1"
	sleep 1
	kill -KILL "$1"
	wait "$1" 2>/dev/null
	i=0
	while alive "$2"; do
		i=$((i + 1))
		[ $i -le 300 ] || { kill -KILL "$2"; fail "the program hangs $3 after pfrec was killed"; }
		sleep 0.1
	done
}
