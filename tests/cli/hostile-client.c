/* hostile-client MODE [N]: stands in for a traced program under pfrec and
 * writes a broken or abusive wire stream (formats/wire.md) to PROFEV_FD,
 * without the profev client. Built by tests/cli/121-rec-hostile-client.sh.
 *   threads N     N threads that never exit, one zone each
 *   churn N       N threads, each exits after its zone
 *   names N       string id 1 defined N times, each time a new 200-byte name
 *   random N      HELLO, then N random bytes
 *   rings K       a good shared ring, then abuse number K (0..7): rings with
 *                 absurd offsets or sizes, absurd positions, or garbage
 *                 records and a scribbled control page
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "wire/wire.h"

static int fd;
static unsigned char out[1 << 16];
static size_t nout;

static void flush(void)
{
	size_t off = 0;
	while (off < nout) {
		ssize_t k = write(fd, out + off, nout - off);
		if (k <= 0)
			exit(3); /* pfrec stopped reading: fine, it said why */
		off += (size_t)k;
	}
	nout = 0;
}

static void put(const void *p, size_t n)
{
	if (!n)
		return;
	if (nout + n > sizeof out)
		flush();
	memcpy(out + nout, p, n);
	nout += n;
}

static void msg(uint16_t type, uint32_t tid, const void *body, uint32_t len)
{
	struct pfw_header h = { PFW_MAGIC, type, 0, len, tid };
	put(&h, sizeof h);
	put(body, len);
}

static void rec2(uint32_t tid, uint64_t ts, uint32_t name)
{
	uint64_t r[4] = { ts, pfw_word(PFW_R_ZONE_BEGIN, 0, name), ts + 10, pfw_word(PFW_R_ZONE_END, 0, 0) };
	msg(PFW_EVENTS, tid, r, sizeof r);
}

static uint64_t seed = 88172645463325252ull;
static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

int main(int argc, char **argv)
{
	const char *e = getenv("PROFEV_FD");
	if (!e || argc < 2)
		return 2;
	fd = atoi(e);
	signal(SIGPIPE, SIG_IGN); /* a pipe pfrec closed: EPIPE, exit 3 */
	long n = argc > 2 ? atol(argv[2]) : 1000;
	const char *mode = argv[1];
	struct pfw_hello h = { PFW_VERSION, (uint32_t)getpid(), PFW_CLOCK_MONOTONIC, 0, 1.0, 0, 0, 0,
			       1 << 20, 2000 };
	msg(PFW_HELLO, 0, &h, sizeof h);
	uint32_t id = 1;
	char name[200];
	memset(name, 'n', sizeof name);
	unsigned char s[4 + sizeof name];
	memcpy(s, &id, 4);
	memcpy(s + 4, "zone", 4);
	msg(PFW_STRING, 0, s, 8);
	if (!strcmp(mode, "threads") || !strcmp(mode, "churn")) {
		for (long i = 0; i < n; i++) {
			uint32_t tid = 1000 + (uint32_t)i;
			msg(PFW_THREAD, tid, "t", 1);
			rec2(tid, 1000 + (uint64_t)i, 1);
			if (!strcmp(mode, "churn"))
				msg(PFW_THREAD_EXIT, tid, NULL, 0);
		}
	} else if (!strcmp(mode, "names")) {
		msg(PFW_THREAD, 7, "t", 1);
		for (long i = 0; i < n; i++) {
			snprintf(name, sizeof name, "%ld", i);
			name[strlen(name)] = 'n'; /* 200 bytes, unique by their start */
			memcpy(s + 4, name, sizeof name);
			msg(PFW_STRING, 0, s, sizeof s);
			rec2(7, 1000 + (uint64_t)i, 1);
		}
	} else if (!strcmp(mode, "random")) {
		msg(PFW_THREAD, 7, "t", 1);
		rec2(7, 1000, 1);
		for (long i = 0; i < n; i++) {
			unsigned char b = (unsigned char)rnd();
			put(&b, 1);
		}
	} else if (!strcmp(mode, "rings")) {
		const char *sh = getenv("PROFEV_SHM");
		if (!sh)
			return 4;
		int shm = atoi(sh);
		size_t size = 16u << 10;
		if (ftruncate(shm, 2 * (PFW_RING_CTL + size)) < 0)
			return 5;
		unsigned char *m = mmap(NULL, 2 * (PFW_RING_CTL + size), PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
		if (m == MAP_FAILED)
			return 6;
		/* First a good ring with one zone, read by pfrec. */
		struct pfw_ring good = { 0, (uint32_t)size, 0, 0x10000 };
		msg(PFW_THREAD, 9, "good", 4);
		msg(PFW_RING, 9, &good, sizeof good);
		uint64_t *ring = (uint64_t *)(void *)(m + PFW_RING_CTL);
		ring[0] = 1000;
		ring[1] = pfw_word(PFW_R_ZONE_BEGIN, 0, 1);
		ring[2] = 1010;
		ring[3] = pfw_word(PFW_R_ZONE_END, 0, 0);
		struct pfw_ring_data d = { 32, 0 };
		msg(PFW_RING_DATA, 9, &d, sizeof d);
		flush();
		/* Then variant n of abuse: rings that cannot be (past the file,
		 * unaligned, not a power of two, too large, wrapping), positions
		 * past the ring or unaligned, or garbage records and a scribbled
		 * control page whose end position is far outside the ring. */
		struct pfw_ring bad[] = {
			{ 1u << 30, (uint32_t)size, 0, 0 }, { 100, (uint32_t)size, 0, 0 },
			{ 0, 12345, 0, 0 }, { 0, 1u << 31, 0, 0 }, { UINT64_MAX - 4095, (uint32_t)size, 0, 0 },
		};
		struct pfw_ring_data far = { 1u << 30, 0 }, odd = { 40, 0 };
		if (n < 5) {
			msg(PFW_THREAD, 100, "bad", 3);
			msg(PFW_RING, 100, &bad[n], sizeof bad[n]);
		} else if (n == 5) {
			msg(PFW_RING_DATA, 9, &far, sizeof far);
		} else if (n == 6) {
			msg(PFW_RING_DATA, 9, &odd, sizeof odd);
		} else {
			for (size_t i = 4; i < size / 8; i++)
				ring[i] = rnd();
			for (size_t i = 0; i < PFW_RING_CTL / 8; i++)
				((uint64_t *)(void *)m)[i] = rnd();
			uint64_t pos = 0x10000 + (1ull << 40);
			memcpy(m + PFW_RING_POS, &pos, 8);
			d.pos = 4096;
			msg(PFW_RING_DATA, 9, &d, sizeof d);
		}
	} else {
		return 2;
	}
	flush();
	return 0;
}
