/*
 * listen.c - on-demand recording: the socket pfrec --attach connects to,
 * and the thread that listens on it and starts and ends each recording
 * (formats/wire.md, "Attaching to a running program").
 *
 * The program opted in (PROFEV_ON_DEMAND=1 or profev_listen(), init.c).
 * Its thread waits on the abstract Unix socket "\0profev-PID": nothing on
 * the file system, nothing on a network. A peer must be the program's own
 * user or root (SO_PEERCRED); it has one second to send its request, and
 * everything it sends is read into fixed buffers, so that a hostile or
 * broken peer can cost this thread a second, never the program's threads.
 * An attach replays the definitions kept since the start (defs.c), has
 * every live thread's ring announced again from where it is (flush.c),
 * switches the categories on and starts the flush thread; a detach (the
 * peer asks, goes away, or stops reading for 2 s) switches them off,
 * flushes, and says at which frame it ended. One recording at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "client.h"
#include "common/write_all.h"

#define REQUEST_MS 1000          /* a peer's time to send its request */
#define SEND_TIMEOUT_S 2         /* a recording ends when pfrec reads nothing for this long */

static int lfd = -1;             /* the listening socket */
static int wake[2] = { -1, -1 }; /* listen_stop() wakes the thread */
static pthread_t listener;
static int started;
static int sfd = -1;             /* the recording's socket; the listener's alone */

/* A refusal or the acceptance, on a socket that must not block us. */
static int reply(int fd, uint32_t status, uint64_t tick, uint64_t frames, const char *why,
		 int pass_fd)
{
	size_t wl = why ? strlen(why) : 0;
	struct pfw_attached a = { PFW_VERSION, status, cl.pid, 0, tick, frames };
	struct pfw_header h = { PFW_MAGIC, PFW_ATTACHED, 0, (uint32_t)(sizeof a + wl), 0 };
	struct iovec v[3] = { { &h, sizeof h }, { &a, sizeof a }, { (void *)why, wl } };
	struct msghdr m = { 0 };
	m.msg_iov = v;
	m.msg_iovlen = wl ? 3 : 2;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	if (pass_fd >= 0) {
		memset(&u, 0, sizeof u);
		m.msg_control = u.buf;
		m.msg_controllen = sizeof u.buf;
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	ssize_t want = (ssize_t)(sizeof h + sizeof a + wl);
	return sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) == want ? 0 : -1;
}

/* n bytes from a peer within the deadline (CLOCK_MONOTONIC ns); 0 or -1. */
static int read_within(int fd, void *buf, size_t n, uint64_t deadline)
{
	size_t got = 0;
	while (got < n) {
		uint64_t now = mono_ns();
		if (now >= deadline)
			return -1;
		struct pollfd p = { fd, POLLIN, 0 };
		int ms = (int)((deadline - now) / 1000000) + 1;
		if (poll(&p, 1, ms) <= 0)
			continue;
		ssize_t k = recv(fd, (char *)buf + got, n - got, MSG_DONTWAIT);
		if (k == 0)
			return -1;
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		got += (size_t)k;
	}
	return 0;
}

static void session_end(void)
{
	categories_session(0);
	uint64_t v = __atomic_fetch_and(&cl.frames, ~FRAMES_RECORDED, __ATOMIC_ACQ_REL);
	struct pfw_detach d = { client_ticks(), v & ~FRAMES_RECORDED };
	flush_stop(); /* its last pass, SYNC and BYE */
	ATOMIC_STORE(&cl.active, 0);
	struct pfw_header h = { PFW_MAGIC, PFW_DETACH, 0, sizeof d, 0 };
	struct iovec iov[2] = { { &h, sizeof h }, { &d, sizeof d } };
	int locked = pipe_lock(0) == 0;
	int fd = __atomic_exchange_n(&cl.fd, -1, __ATOMIC_RELAXED);
	if (fd >= 0)
		writev_all(fd, iov, 2, NULL); /* fails at once if pfrec is gone */
	if (locked)
		pipe_unlock();
	defs_quiet();
	if (fd >= 0)
		close(fd);
	sfd = -1;
}

/* The peer asked for a recording: start it. */
static void session_begin(int fd)
{
	struct timeval tv = { SEND_TIMEOUT_S, 0 };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	defs_replay();
	if (pipe_lock(0) < 0) {
		defs_quiet();
		close(fd);
		return;
	}
	__atomic_store_n(&cl.fd, fd, __ATOMIC_RELAXED);
	flush_session();
	ATOMIC_STORE(&cl.active, 1);
	categories_session(1);
	/* Marks counted before this are the frames before the recording;
	 * each later one is recorded. */
	uint64_t v = __atomic_fetch_or(&cl.frames, FRAMES_RECORDED, __ATOMIC_ACQ_REL);
	int rc = reply(fd, PFW_ATTACH_OK, client_ticks(), v & ~FRAMES_RECORDED, NULL, cl.shm_fd);
	pipe_unlock();
	sfd = fd;
	if (rc < 0 || flush_start() < 0)
		session_end();
}

static void refuse(int fd, uint32_t status, const char *why)
{
	reply(fd, status, 0, 0, why, -1);
	/* Unread bytes at close would reset the peer's side before it read
	 * the reason: take what has come (without waiting). */
	char junk[4096];
	(void)!recv(fd, junk, sizeof junk, MSG_DONTWAIT);
	close(fd);
}

static void connection(void)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	char why[160];
	struct ucred uc;
	socklen_t ul = sizeof uc;
	uid_t me = geteuid();
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) < 0 || ul != sizeof uc) {
		refuse(fd, PFW_ATTACH_REFUSED, "cannot tell who you are (SO_PEERCRED)");
		return;
	}
	if (uc.uid != me && uc.uid != 0) {
		snprintf(why, sizeof why, "user %u may not attach to a program of user %u",
			 (unsigned)uc.uid, (unsigned)me);
		refuse(fd, PFW_ATTACH_REFUSED, why);
		return;
	}
	struct {
		struct pfw_header h;
		struct pfw_attach a;
	} req;
	if (read_within(fd, &req, sizeof req, mono_ns() + REQUEST_MS * 1000000ull) < 0 ||
	    req.h.magic != PFW_MAGIC || req.h.type != PFW_ATTACH || req.h.len != sizeof req.a) {
		refuse(fd, PFW_ATTACH_BAD, "not a profev attach request");
		return;
	}
	if (req.a.version != PFW_VERSION) {
		snprintf(why, sizeof why, "protocol version %u, this program speaks %u",
			 (unsigned)req.a.version, PFW_VERSION);
		refuse(fd, PFW_ATTACH_BAD, why);
		return;
	}
	if (sfd >= 0) {
		refuse(fd, PFW_ATTACH_BUSY, "another pfrec is attached");
		return;
	}
	session_begin(fd);
}

/* What the recording's peer sent: DETACH, or anything else, ends it. */
static void peer_spoke(void)
{
	char buf[256];
	ssize_t k = recv(sfd, buf, sizeof buf, MSG_DONTWAIT);
	if (k < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	session_end();
}

static void *listen_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p[3] = { { wake[0], POLLIN, 0 }, { lfd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		/* While recording, also notice a flush thread that gave up. */
		int k = poll(p, sfd >= 0 ? 3 : 2, sfd >= 0 ? 100 : -1);
		if (k < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if (sfd >= 0 && p[2].revents)
			peer_spoke();
		else if (sfd >= 0 && !ATOMIC_LOAD(&cl.active))
			session_end();
		if (p[1].revents & POLLIN)
			connection();
	}
	return NULL;
}

int listen_start(void)
{
	/* The rings' file, the program's own: kept over every recording, so
	 * that a thread keeps its ring; each pfrec receives it. */
	cl.shm_fd = -1;
#ifdef MFD_ALLOW_SEALING
	cl.shm_fd = memfd_create("profev-rings", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (cl.shm_fd >= 0 && fcntl(cl.shm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		close(cl.shm_fd);
		cl.shm_fd = -1;
	}
#endif
	if (cl.shm_fd < 0)
		return -1;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, PFW_SOCKET_PREFIX "%u",
			 (unsigned)cl.pid);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, len) < 0 || listen(lfd, 8) < 0 ||
	    pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0)
		goto fail;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&listener, NULL, listen_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		goto fail;
	pthread_setname_np(listener, "profev-listen");
	started = 1;
	return 0;
fail:
	if (lfd >= 0)
		close(lfd);
	for (int i = 0; i < 2; i++)
		if (wake[i] >= 0)
			close(wake[i]);
	close(cl.shm_fd);
	lfd = wake[0] = wake[1] = cl.shm_fd = -1;
	return -1;
}

void listen_stop(void)
{
	if (!started)
		return;
	started = 0;
	char c = 1;
	if (write(wake[1], &c, 1) == 1)
		pthread_join(listener, NULL);
	close(lfd);
	lfd = -1;
}

void listen_forget(void)
{
	if (!started)
		return;
	started = 0;
	close(lfd);
	close(wake[0]);
	close(wake[1]);
	lfd = wake[0] = wake[1] = -1;
}
