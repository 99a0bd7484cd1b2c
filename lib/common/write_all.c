/* write_all.c - see write_all.h. Built into libprofev and into the client
 * runtime (the Makefile's CLIENT_SRC): libc only, nothing else of lib/. */
#define _GNU_SOURCE /* IOV_MAX */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include "common/write_all.h"

int writev_all(int fd, struct iovec *iov, int n, uint64_t *written)
{
	while (n > 0) {
		ssize_t k = writev(fd, iov, n > IOV_MAX ? IOV_MAX : n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			/* On a blocking descriptor EAGAIN is a send timeout
			 * (SO_SNDTIMEO: the client's socket to pfrec): the
			 * reader is stuck, give up. */
			if (errno == EAGAIN && !(fcntl(fd, F_GETFL) & O_NONBLOCK)) {
				errno = ETIMEDOUT;
				return -1;
			}
			if (errno == EAGAIN) {
				struct pollfd p = { fd, POLLOUT, 0 };
				poll(&p, 1, 100);
				continue;
			}
			return -1;
		}
		if (written)
			*written += (uint64_t)k;
		while (n > 0 && (size_t)k >= iov->iov_len) {
			k -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}
