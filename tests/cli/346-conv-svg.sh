# pfconv to svg: the flame graph's boxes weigh what the folded stacks of the
# same trace weigh (each box the lines under its path, a box of merged small
# frames its parent's undrawn children), no box is narrower than a pixel,
# and the file is well-formed XML (flame-check.py svg): for zones by time,
# merged threads, names that XML and folded lines must escape, allocated and
# live bytes by callstack (symbolized by pfsym), CPU samples, and a
# differential graph of a program against a run where one zone sleeps ten
# times longer (red) and the other's share shrinks (blue). Then headless
# Chromium opens them (flame-check.py browse): no JavaScript error, a
# click zooms, a search marks the matching boxes, and a screenshot of each
# is kept in the test's directory.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
CHECK="python3 $PROFEV_ROOT/tests/cli/flame-check.py"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "no chromium at '$CHROMIUM' (make deps installs Debian's chromium)"

svg_ok() { # TRACE NAME [pfconv options]: NAME.svg against NAME.folded
	t=$1 n=$2
	shift 2
	expect_exit 0 pfconv to svg -q "$@" "$t" -o "$n.svg"
	expect_exit 0 pfconv to folded -q "$@" "$t" -o "$n.folded"
	$CHECK svg "$n.svg" "$n.folded" > "$n.check" 2>&1 || { cat "$n.check" >&2; fail "$n.svg"; }
	cat "$n.check"
}

expect_exit 0 pfrec -q -o game.bin "$PROFEV_BUILD/examples/game" 30
svg_ok game.bin game
svg_ok game.bin merged --merge-threads
contains game.svg 'Zones by time'
contains game.svg '<title>draw frame'
contains game.svg '<title>render ('

# Names to escape, and many zones too small to draw beside one that is not:
# they merge into one box.
build_prog names <<'C'
#include <profev.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
PROFEV_CATEGORY(app, "app");
static void spin(long ns)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}
int main(void)
{
	profev_thread_name("main <&> \"thread\"");
	{
		PROFEV_ZONE(app, "big");
		spin(30000000);
	}
	{
		PROFEV_ZONE(app, "items");
		for (int i = 0; i < 300; i++) {
			char name[32];
			snprintf(name, sizeof name, "item %d", i);
			PROFEV_ZONE(app, "item");
			PROFEV_ZONE_NAME(name, strlen(name));
		}
	}
	{
		PROFEV_ZONE(app, "a<b>&c \"d\" 'e' ]]> f;g");
		spin(2000000);
		PROFEV_ZONE(app, "bad \xff utf-8 \x01 \xef\xbf\xbe");
		spin(2000000);
	}
	return 0;
}
C
expect_exit 0 pfrec -q -o names.bin ./names
svg_ok names.bin names
contains names.svg '<g class="f m"'
contains names.svg 'small frames'
contains names.svg 'a&lt;b&gt;&amp;c &quot;d&quot;'

# Allocations by callstack, symbolized.
build_prog mem <<'C'
#include <profev.h>
#include <stdlib.h>
static void *__attribute__((noinline)) get_mesh(size_t n) { void *p = malloc(n); PROFEV_ALLOC_S(p, n, 16); return p; }
static void *__attribute__((noinline)) get_tex(size_t n) { void *p = malloc(n); PROFEV_ALLOC_S(p, n, 16); return p; }
int main(void)
{
	void *keep[64];
	for (int i = 0; i < 64; i++)
		keep[i] = i % 4 ? get_mesh(1000) : get_tex(100000);
	for (int i = 0; i < 64; i += 2) {
		PROFEV_FREE(keep[i]);
		free(keep[i]);
	}
	for (int i = 1; i < 64; i += 2) {
		if (i < 32)
			PROFEV_FREE(keep[i]);
		free(keep[i]);
	}
	return 0;
}
C
expect_exit 0 pfrec -q -o mem.bin ./mem
expect_exit 0 pfsym -q mem.bin
svg_ok mem.bin alloc --alloc
svg_ok mem.bin live --alloc=live
contains alloc.svg 'Allocated bytes by callstack'
contains alloc.svg '<title>get_tex'
contains alloc.svg '<title>get_mesh'
# 16 textures of 100000 bytes and 48 meshes of 1000 bytes; live: all freed
# but the odd ones from 33 on, 16 meshes (no texture index is odd)
grep -q 'data-total="1648000"' alloc.svg || fail "allocated bytes: $(grep -o 'data-total="[0-9]*"' alloc.svg)"
grep -q 'data-total="16000"' live.svg || fail "live bytes: $(grep -o 'data-total="[0-9]*"' live.svg)"

# CPU samples, where the kernel lets pfrec take them.
sampled=0
if [ -z "${PROFEV_EMULATOR:-}" ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)" -le 2 ]; then
	expect_exit 0 pfrec -q --sample -o sample.bin "$PROFEV_BUILD/examples/game" 30
	expect_exit 0 pfsym -q sample.bin
	if [ "$(count_type sample.bin sample)" -gt 0 ]; then
		svg_ok sample.bin samples --samples
		contains samples.svg 'CPU samples'
		sampled=1
	fi
fi
[ $sampled = 1 ] || echo "no samples here (perf_event_paranoid or qemu): --samples not checked"

# Differential: a program whose "work" zone sleeps ten times longer when
# asked (sleeps of milliseconds, which a loaded machine does not drown)
# against its plain run. Threads are matched by name (their TIDs differ):
# the folded stacks to compare with drop the TIDs.
build_prog twice <<'C'
#include <profev.h>
#include <stdlib.h>
#include <time.h>
PROFEV_CATEGORY(app, "app");
static void nap(long ms)
{
	struct timespec t = { 0, ms * 1000000L };
	nanosleep(&t, NULL);
}
int main(void)
{
	long work = getenv("SLOW") ? 20 : 2;
	for (int i = 0; i < 10; i++) {
		PROFEV_ZONE(app, "frame");
		{
			PROFEV_ZONE(app, "steady");
			nap(2);
		}
		{
			PROFEV_ZONE(app, "work");
			nap(work);
		}
	}
	return 0;
}
C
expect_exit 0 pfrec -q -o base.bin ./twice
expect_exit 0 env SLOW=1 pfrec -q -o slow.bin ./twice
expect_exit 0 pfconv to svg -q --diff base.bin slow.bin -o diff.svg
for t in base slow; do
	expect_exit 0 pfconv to folded -q $t.bin -o -
	sed 's/^\([^;]*\) ([0-9]*);/\1;/; s/^\([^;]*\) ([0-9]*) /\1 /' out.txt > $t-names.folded
done
$CHECK svg diff.svg slow-names.folded --base base-names.folded > diff.check 2>&1 || { cat diff.check >&2; fail diff.svg; }
cat diff.check
contains diff.svg 'red: more than the base'
# work's share grew (from about half to about nine tenths): red; steady's
# shrank: blue
grep -A1 '<title>work$' diff.svg | grep -q 'fill="rgb(255,' || fail "work is not red: $(grep -A1 '<title>work$' diff.svg)"
grep -A1 '<title>steady$' diff.svg | grep -q ',255)"' || fail "steady is not blue: $(grep -A1 '<title>steady$' diff.svg)"

# In the browser.
for n in game names alloc diff; do
	search=
	case $n in game) search=collide ;; names) search='item|big' ;; alloc) search=get_ ;; esac
	env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS \
		$CHECK browse "$n.svg" --chromium "$CHROMIUM" --shot "$n.png" ${search:+--search "$search"} \
		> "$n.browse" 2>&1 || { cat "$n.browse" >&2; fail "$n.svg in chromium"; }
	cat "$n.browse"
done
echo "screenshots: $(pwd)/game.png names.png alloc.png diff.png"
# The checker itself: a script that fails is caught.
sed 's/^flameInit(document/flameInitX(document/' game.svg > broken.svg
env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LSAN_OPTIONS \
	$CHECK browse broken.svg --chromium "$CHROMIUM" > broken.browse 2>&1 && fail "a broken script passed"
contains broken.browse "ReferenceError: flameInitX is not defined"
