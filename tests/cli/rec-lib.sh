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
