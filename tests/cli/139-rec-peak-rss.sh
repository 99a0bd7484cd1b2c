# pfrec's memory for a program that sends no images and records no
# samples: a tight loop of zones, recorded through the shared rings, keeps
# pfrec's peak resident size at a few MiB (its rings and chunk buffers),
# at most 16 MiB. Image slots and sample rings cost nothing until used.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time (Debian package time)"; exit 77; }
[ -z "$SANFLAGS" ] || { echo "SKIP: a sanitizer's shadow memory is not pfrec's"; exit 77; }
[ -z "${PROFEV_EMULATOR:-}" ] ||
	skip "under $PROFEV_EMULATOR the resident size is qemu-user's too (its translated code), not pfrec's alone"
build_prog loop <<'C'
#include <stdlib.h>
#include <profev.h>
PROFEV_CATEGORY(hot, "hot");
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	for (long i = 0; i < n; i++) {
		PROFEV_ZONE(hot, "z");
		__asm__ __volatile__("" ::: "memory");
	}
	return 0;
}
C
/usr/bin/time -f %M -o rss.txt pfrec -q -o loop.bin ./loop 1000000 || fail "pfrec of the loop"
[ "$(count_type loop.bin zone_begin)" = 1000000 ] || fail "zones missing"
kib=$(cat rss.txt)
echo "pfrec peak RSS: $kib KiB"
[ "$kib" -gt 0 ] 2>/dev/null || fail "no peak RSS from /usr/bin/time: '$kib'"
[ "$kib" -le 16384 ] || fail "pfrec's peak RSS is $kib KiB, over 16 MiB"
