/* The writev loop (lib/common/write_all.c): more buffers than IOV_MAX, of
 * uneven sizes, into a non-blocking pipe that a slow reader drains, so that
 * writes are partial and EAGAIN comes; then a pipe without a reader. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "common/write_all.h"

#define NBUF 3000

struct reader {
	int fd;
	unsigned char *got;
	size_t len;
};

static void *read_all(void *arg)
{
	struct reader *rd = arg;
	unsigned char chunk[7000];
	for (;;) {
		ssize_t k = read(rd->fd, chunk, sizeof chunk);
		if (k <= 0)
			break;
		memcpy(rd->got + rd->len, chunk, (size_t)k);
		rd->len += (size_t)k;
		if (rd->len % 5 == 0) {
			struct timespec ts = { 0, 200000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void partial_writes(void)
{
	static struct iovec iov[NBUF];
	size_t total = 0;
	for (int i = 0; i < NBUF; i++)
		total += (size_t)(i * 37 % 1500);
	unsigned char *data = malloc(total), *got = malloc(total);
	CHECK(data && got);
	if (!data || !got)
		return;
	for (size_t i = 0; i < total; i++)
		data[i] = (unsigned char)(i * 131 + (i >> 9));
	size_t at = 0;
	for (int i = 0; i < NBUF; i++) {
		size_t n = (size_t)(i * 37 % 1500); /* some empty */
		iov[i] = (struct iovec){ data + at, n };
		at += n;
	}
	CHECK(NBUF > IOV_MAX);
	int p[2];
	CHECK_EQ(pipe(p), 0);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	struct reader rd = { p[0], got, 0 };
	pthread_t t;
	pthread_create(&t, NULL, read_all, &rd);
	uint64_t written = 5;
	CHECK_EQ(writev_all(p[1], iov, NBUF, &written), 0);
	close(p[1]);
	pthread_join(t, NULL);
	close(p[0]);
	CHECK_EQ_U64(written, total + 5);
	CHECK_EQ_U64(rd.len, total);
	CHECK(memcmp(data, got, total) == 0);
	free(data);
	free(got);
}

static void no_reader(void)
{
	int p[2];
	CHECK_EQ(pipe(p), 0);
	close(p[0]);
	char b[16] = "abc";
	struct iovec iov[1] = { { b, sizeof b } };
	uint64_t written = 0;
	errno = 0;
	CHECK_EQ(writev_all(p[1], iov, 1, NULL), -1);
	CHECK_EQ(errno, EPIPE);
	CHECK_EQ(writev_all(p[1], iov, 1, &written), -1);
	CHECK_EQ_U64(written, 0);
	close(p[1]);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	partial_writes();
	no_reader();
	return CHECK_DONE();
}
