# make install puts the binary and its links, the libraries, the headers, a
# working pkg-config file and the man pages under DESTDIR/PREFIX; a program
# built against the installed library with pkg-config reads a trace.
. "$PROFEV_ROOT/tests/cli/lib.sh"
stage=$PWD/stage
make -s -C "$PROFEV_ROOT" install BUILD="$PROFEV_BUILD" PREFIX=/opt/pv DESTDIR="$stage" >make.txt 2>&1 ||
	{ cat make.txt >&2; fail "make install failed"; }
root=$stage/opt/pv
for f in bin/profev lib/libprofev.a lib/libprofev.so.0 include/profev_trace.h include/profev.h \
	lib/pkgconfig/profev.pc lib/pkgconfig/profev-client.pc lib/libprofev-client.a share/man/man1/pfdump.1 share/man/man5/profev-trace.5; do
	[ -e "$root/$f" ] || fail "install lacks $f"
done
for c in pfrec pfdump pfsym pfconv; do
	[ "$(readlink "$root/bin/$c")" = profev ] || fail "$c is not a link to profev"
done
"$root/bin/pfdump" --version >/dev/null || fail "installed pfdump does not run"
cat > reader.c <<'C'
#include <profev_trace.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "rb");
	struct profev_reader *r = profev_reader_new(f, NULL);
	struct profev_event ev;
	unsigned long n = 0;
	while (r && profev_reader_next_event(r, &ev, NULL) > 0)
		n++;
	printf("%lu\n", n);
	profev_reader_free(r);
	return 0;
}
C
# The .pc file names the real prefix; point it at the staging tree.
sed "s|^prefix=.*|prefix=$root|" "$root/lib/pkgconfig/profev.pc" > profev.pc
flags=$(PKG_CONFIG_PATH=$PWD pkg-config --cflags --libs --static profev) || fail "pkg-config"
# A sanitized build's library needs the sanitizer runtime in the program.
cc ${PROFEV_SAN:+-fsanitize=$PROFEV_SAN} -o reader reader.c $flags -pthread || fail "cannot build against the installed library"
[ "$(LD_LIBRARY_PATH=$root/lib ./reader "$GOLDEN/allkinds.bin")" = 16 ] || fail "installed library read the wrong count"
# Without --static: the shared library alone, which exports only the API.
flags=$(PKG_CONFIG_PATH=$PWD pkg-config --cflags --libs profev) || fail "pkg-config"
cc ${PROFEV_SAN:+-fsanitize=$PROFEV_SAN} -o reader-so reader.c $flags || fail "cannot link with pkg-config --libs profev"
[ "$(LD_LIBRARY_PATH=$root/lib ./reader-so "$GOLDEN/allkinds.bin")" = 16 ] || fail "shared library read the wrong count"
# An instrumented program builds against the installed client with pkg-config.
cat > game.c <<'C'
#include <profev.h>
PROFEV_CATEGORY(game, "game");
int main(void) { PROFEV_ZONE(game, "frame"); PROFEV_FRAME_MARK(); return 0; }
C
sed "s|^prefix=.*|prefix=$root|" "$root/lib/pkgconfig/profev-client.pc" > profev-client.pc
cflags=$(PKG_CONFIG_PATH=$PWD pkg-config --cflags profev-client) || fail "pkg-config profev-client"
cc ${PROFEV_SAN:+-fsanitize=$PROFEV_SAN} $cflags -o game game.c "$root/lib/libprofev-client.a" -pthread ||
	fail "cannot build an instrumented program against the installed client"
pfrec -q -o game.bin ./game || fail "pfrec of the installed-client program"
[ "$(pfdump --jsonl game.bin | grep -c '"type":"zone_begin","name":"frame"')" = 1 ] || fail "zone missing"
# A Tracy-instrumented program builds against the installed profev-tracy
# with both spellings of the include, the way Tracy's manual says.
for f in include/profev-tracy/tracy/Tracy.hpp include/profev-tracy/tracy/TracyC.h lib/libprofev-tracy.a \
	lib/libprofev-tracy.so.0 lib/pkgconfig/profev-tracy.pc share/man/man3/profev-tracy.3; do
	[ -e "$root/$f" ] || fail "install lacks $f"
done
cat > tgame.cpp <<'C'
#include <tracy/Tracy.hpp>
#include "Tracy.hpp"
static void frame() { ZoneScopedN("tframe"); TracyPlot("n", 1.0); }
int main() { frame(); FrameMark; return 0; }
C
cat > tgame.c <<'C'
#include <tracy/TracyC.h>
#include "TracyC.h"
int main(void) { TracyCZoneN(z, "cframe", 1); TracyCZoneEnd(z); TracyCFrameMark; return 0; }
C
sed "s|^prefix=.*|prefix=$root|" "$root/lib/pkgconfig/profev-tracy.pc" > profev-tracy.pc
tflags=$(PKG_CONFIG_PATH=$PWD pkg-config --cflags profev-tracy) || fail "pkg-config --cflags profev-tracy"
tlibs=$(PKG_CONFIG_PATH=$PWD pkg-config --libs --static profev-tracy) || fail "pkg-config --libs profev-tracy"
c++ ${PROFEV_SAN:+-fsanitize=$PROFEV_SAN} -DTRACY_ENABLE $tflags -o tgame tgame.cpp $tlibs ||
	fail "cannot build a Tracy program against the installed profev-tracy"
cc ${PROFEV_SAN:+-fsanitize=$PROFEV_SAN} -DTRACY_ENABLE $tflags -o tgamec tgame.c $tlibs ||
	fail "cannot build a TracyC program against the installed profev-tracy"
LD_LIBRARY_PATH=$root/lib pfrec -q -o tgame.bin ./tgame || fail "pfrec of the Tracy program"
[ "$(pfdump --jsonl tgame.bin | grep -c '"type":"zone_begin","name":"tframe","category":"tracy"')" = 1 ] ||
	fail "Tracy zone missing"
LD_LIBRARY_PATH=$root/lib pfrec -q -o tgamec.bin ./tgamec || fail "pfrec of the TracyC program"
[ "$(pfdump --jsonl tgamec.bin | grep -c '"type":"zone_begin","name":"cframe"')" = 1 ] || fail "TracyC zone missing"
