# A program killed by a signal under pfrec: one line says so, as a shell
# would (not for SIGINT), and names the trace; a normal exit says nothing.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog crash <<'C'
#include <profev.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
PROFEV_CATEGORY(app, "application");
int main(int argc, char **argv) {
	(void)argc;
	for (int i = 0; i < 10; i++) { PROFEV_ZONE(app, "work"); }
	if (!strcmp(argv[1], "segv")) { volatile int *volatile p = (int *)(uintptr_t)8; *p = 1; }
	if (!strcmp(argv[1], "int")) raise(SIGINT);
	return 0;
}
C
export ASAN_OPTIONS=handle_segv=0 TSAN_OPTIONS=handle_segv=0
expect_exit 139 pfrec -q -o x.bin ./crash segv
contains err.txt "pfrec: './crash' killed by signal 11 (Segmentation fault); trace 'x.bin' holds everything up to it"
# (qemu-user, in make ARCH=aarch64 test, says "qemu: uncaught target
# signal" of its own: not pfrec's line)
[ "$(grep -v '^qemu: ' err.txt | grep -c .)" -eq 1 ] || { cat err.txt >&2; fail "more than one line for a crash"; }
expect_exit 130 pfrec -q -o x.bin ./crash int
lacks err.txt "killed by signal"
expect_exit 0 pfrec -q -o x.bin ./crash none
lacks err.txt "killed by signal"
