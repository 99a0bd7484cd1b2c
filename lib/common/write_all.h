/* One writev loop for partial writes, shared by the client runtime (which
 * links only libc: lib/client/ builds this file in) and the trace writer.
 * Not installed. */
#ifndef PROFEV_WRITE_ALL_H
#define PROFEV_WRITE_ALL_H

#include <stdint.h>
#include <sys/uio.h>

/* In a static link the client lands in the traced program's namespace. */
#define writev_all profev__writev_all

/*
 * Writes the n buffers of iov whole: after a partial write it goes on from
 * where the kernel stopped, after EINTR it retries, after EAGAIN (a
 * non-blocking descriptor) it waits in poll(); on a blocking one EAGAIN
 * means its send timeout (SO_SNDTIMEO) ran out, and it fails with
 * ETIMEDOUT. Takes more than IOV_MAX
 * buffers. Async-signal-safe (writev, poll): the client's crash handler
 * writes through it.
 * @param iov      changed: the buffers are advanced past what was written
 * @param written  if not NULL, gains the bytes written, also on failure
 * @return 0, or -1 with errno set by writev (or ETIMEDOUT)
 */
int writev_all(int fd, struct iovec *iov, int n, uint64_t *written);

#endif
