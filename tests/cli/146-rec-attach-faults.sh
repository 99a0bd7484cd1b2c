# A program that listens for pfrec --attach is not at the mercy of its
# peer: garbage on the socket, a peer that connects and says nothing, one
# that asks with another protocol version or talks nonsense once recording,
# a second pfrec while one is attached, a pfrec stopped or killed in the
# middle of a recording. The program runs to its end with its own status
# every time, and a later attach still gives a whole trace.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"

# poke PID MODE: connects to the program's socket and misbehaves.
build_prog poke <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "profev-%s", argv[1]);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&a, (socklen_t)(sizeof a.sun_family + 1 + n)) < 0) {
		perror("connect");
		return 1;
	}
	/* A request: magic PFW1, type 25 ATTACH, 16 bytes, version 1. */
	unsigned char req[32] = { 0x50, 0x46, 0x57, 0x31, 25, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0,
				  1, 0, 0, 0, 1 };
	unsigned char junk[4096];
	srand(7);
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (unsigned char)rand();
	if (!strcmp(argv[2], "garbage")) {
		if (write(fd, junk, sizeof junk) < 0)
			return 1;
	} else if (!strcmp(argv[2], "silent")) {
		sleep(3);
	} else if (!strcmp(argv[2], "version")) {
		req[16] = 9;
		if (write(fd, req, sizeof req) < 0)
			return 1;
	} else if (!strcmp(argv[2], "nonsense")) {
		/* Attach properly, read a little, then send junk instead of DETACH. */
		if (write(fd, req, sizeof req) < 0 || read(fd, junk, 64) <= 0)
			return 1;
		sleep(1);
		if (write(fd, junk, 100) < 0)
			return 1;
		sleep(1);
	}
	/* What the program answered, as text, for the test to read. */
	char buf[512];
	ssize_t k = read(fd, buf, sizeof buf - 1);
	if (k > 48) {
		buf[k] = 0;
		printf("answer: %s\n", buf + 48);
	}
	close(fd);
	return 0;
}
C

# status PROGRAM: a small on-demand program that runs 14 s of zones and
# frames, then exits with status 7.
build_prog status <<'C'
#include <profev.h>
#include <stdio.h>
#include <time.h>
PROFEV_CATEGORY(t, "test");
int main(void)
{
	profev_listen();
	profev_thread_name("main");
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long frames = 0;
	do {
		PROFEV_ZONE(t, "frame");
		for (int i = 0; i < 100; i++) {
			PROFEV_ZONE(t, "step");
		}
		PROFEV_FRAME_MARK();
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
		frames++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec < 14);
	fprintf(stderr, "frames %lu\n", frames);
	return 7;
}
C

./status 2>status.err &
prog=$!
sleep 0.5
for mode in garbage silent version nonsense garbage; do
	timeout 10 ./poke $prog $mode >poke.$mode.txt 2>&1 || fail "poke $mode: $(cat poke.$mode.txt)"
	alive $prog || fail "the program died after '$mode' on its socket"
done
contains poke.version.txt "answer: protocol version 9"
contains poke.garbage.txt "answer: not a profev attach request"

# A second pfrec while one is attached is refused, with the reason.
pfrec -q --attach $prog -o one.bin 2>one.err &
rec=$!
sleep 0.5
expect_exit 1 pfrec -q --attach $prog -o two.bin
contains err.txt "process $prog refused: another pfrec is attached"
# Stopped for 3 s, then killed: the program runs on meanwhile.
kill -STOP $rec
sleep 3
alive $prog || fail "the program died while pfrec was stopped"
kill -KILL $rec
wait $rec 2>/dev/null
sleep 0.5
# The next attach works, and gives a whole trace to the program's end.
pfrec -q --attach $prog -o last.bin 2>last.err || { cat last.err >&2; fail "attach after a killed pfrec exited $?"; }
wait $prog
st=$?
[ "$st" = 7 ] || fail "the program exited $st, not its own 7"
contains status.err "frames "
expect_exit 0 pfdump --stats last.bin
contains out.txt "attach"
n=$(count_type last.bin zone_begin)
[ "$n" -gt 100 ] || fail "last.bin holds $n zones"
# The killed pfrec's trace reads back, cut.
expect_exit 1 pfdump --stats one.bin
contains err.txt "cut"

# Nobody listens: a clear error.
expect_exit 1 pfrec -q --attach $prog -o none.bin
contains err.txt "no process $prog"
sleep 30 &
expect_exit 1 pfrec -q --attach $! -o none.bin
contains err.txt "does not listen for pfrec --attach"
kill $!
