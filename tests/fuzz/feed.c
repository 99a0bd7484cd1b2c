/*
 * feed: the traced program of the pfrec fuzz target (fuzz_record.c). It
 * plays a client: FILE holds a u32 length n, n bytes for the shared memory
 * file (control pages and rings, written at its start), then the pipe
 * stream, which it writes to PROFEV_FD as it is. Built without sanitizers:
 * it only copies bytes.
 *   usage: feed FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHM_MIN (1u << 20) /* the file is at least this big, as a client's rings make it */

int main(int argc, char **argv)
{
	const char *fd_s = getenv("PROFEV_FD"), *shm_s = getenv("PROFEV_SHM");
	FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
	if (!f || !fd_s)
		return 2;
	static unsigned char buf[1 << 22];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	uint32_t n = 0;
	if (len >= 4)
		memcpy(&n, buf, 4);
	size_t at = len >= 4 ? 4 : len;
	if (n > len - at)
		n = (uint32_t)(len - at);
	if (shm_s) {
		int shm = atoi(shm_s);
		if (ftruncate(shm, n > SHM_MIN ? n : SHM_MIN) < 0 || pwrite(shm, buf + at, n, 0) != (ssize_t)n)
			return 3;
	}
	at += n;
	int fd = atoi(fd_s);
	while (at < len) {
		ssize_t w = write(fd, buf + at, len - at);
		if (w <= 0)
			return 4;
		at += (size_t)w;
	}
	return 0;
}
