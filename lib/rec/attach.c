/*
 * attach.c - pfrec --attach (rec_internal.h, formats/wire.md "Attaching to
 * a running program"): connect to the socket of a program that listens,
 * check that it is that program, ask for a recording and receive the
 * shared file of its rings; after that the socket carries the stream that
 * a started program's pipe carries. Also --list: the programs that listen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "rec/rec_internal.h"

#define ANSWER_MS 5000          /* the program's time to answer */

/* The program's path, for the trace's metadata: /proc/PID/exe. */
static char *program_path(int pid)
{
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/%d/exe", pid);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0) {
		snprintf(path, sizeof path, "pid %d", pid);
		n = (ssize_t)strlen(path);
	}
	path[n] = 0;
	return strdup(path);
}

static int read_answer(int fd, unsigned char *buf, size_t n, int *passed)
{
	size_t got = 0;
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + ANSWER_MS * 1000000ull;
	while (got < n) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		if (now >= deadline)
			return -1;
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, (int)((deadline - now) / 1000000) + 1) <= 0)
			continue;
		union {
			char b[CMSG_SPACE(sizeof(int) * 4)];
			struct cmsghdr align;
		} u;
		struct iovec v = { buf + got, n - got };
		struct msghdr m = { 0 };
		m.msg_iov = &v;
		m.msg_iovlen = 1;
		m.msg_control = u.b;
		m.msg_controllen = sizeof u.b;
		ssize_t k = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < nfd; i++) {
				int f;
				memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
				if (*passed < 0)
					*passed = f;
				else
					close(f); /* one file is asked for */
			}
		}
		got += (size_t)k;
	}
	return 0;
}

/* The rings' file must be one the program cannot shrink under our maps. */
static int shm_checked(int fd)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && seals >= 0 && (seals & F_SEAL_SHRINK);
}

int attach_connect(struct profev_recorder *r, struct profev_error *err)
{
	int pid = r->o.attach_pid, passed = -1;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, PFW_SOCKET_PREFIX "%d", pid);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err_set(err, PROFEV_E_IO, "socket: %s", strerror(errno));
		return PROFEV_E_IO;
	}
	if (connect(fd, (struct sockaddr *)&a, len) < 0) {
		int e = errno;
		close(fd);
		if (kill(pid, 0) < 0 && errno == ESRCH)
			err_set(err, PROFEV_E_ARG, "no process %d", pid);
		else if (e == ECONNREFUSED || e == ENOENT)
			err_set(err, PROFEV_E_ARG, "process %d does not listen for pfrec --attach "
				"(start it with PROFEV_ON_DEMAND=1, or call profev_listen())", pid);
		else
			err_set(err, PROFEV_E_IO, "cannot connect to process %d: %s", pid, strerror(e));
		return PROFEV_E_ARG;
	}
	/* An abstract name is anyone's to take: it must be the program's. */
	struct ucred uc;
	socklen_t ul = sizeof uc;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) < 0 || uc.pid != pid) {
		close(fd);
		err_set(err, PROFEV_E_ARG, "the socket of process %d is held by process %d", pid,
			(int)uc.pid);
		return PROFEV_E_ARG;
	}
	struct {
		struct pfw_header h;
		struct pfw_attach a;
	} req = { { PFW_MAGIC, PFW_ATTACH, 0, sizeof req.a, 0 }, { PFW_VERSION, PFW_HELLO_DROP, { 0, 0 } } };
	struct {
		struct pfw_header h;
		struct pfw_attached a;
	} ans;
	char why[256] = "";
	/* A refusal may come, and the socket close, before the request is
	 * read: the answer counts, not whether the request went out. */
	(void)!send(fd, &req, sizeof req, MSG_NOSIGNAL);
	if (read_answer(fd, (unsigned char *)&ans, sizeof ans, &passed) < 0 ||
	    ans.h.magic != PFW_MAGIC || ans.h.type != PFW_ATTACHED || ans.h.len < sizeof ans.a ||
	    ans.h.len > sizeof ans.a + sizeof why - 1) {
		err_set(err, PROFEV_E_CORRUPT, "process %d did not answer as a profev client", pid);
		goto fail;
	}
	size_t wl = ans.h.len - sizeof ans.a;
	if (wl && read_answer(fd, (unsigned char *)why, wl, &passed) < 0)
		wl = 0;
	why[wl] = 0;
	for (size_t i = 0; i < wl; i++)
		if ((unsigned char)why[i] < 32)
			why[i] = '?';
	if (ans.a.status != PFW_ATTACH_OK) {
		err_set(err, PROFEV_E_ARG, "process %d refused: %s", pid, wl ? why : "no reason given");
		goto fail;
	}
	if (passed < 0 || !shm_checked(passed)) {
		err_set(err, PROFEV_E_CORRUPT, "process %d sent no sealed memory file for its rings", pid);
		goto fail;
	}
	r->rfd = fd;
	r->shm_fd = passed;
	r->pid = pid;
	r->attached = 1;
	r->attach_tick = ans.a.tick;
	r->marks = ans.a.frames;
	r->attach_argv[0] = program_path(pid);
	r->attach_argv[1] = NULL;
	if (!r->attach_argv[0]) {
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		return PROFEV_E_NOMEM; /* the fds are the recorder's now */
	}
	return 0;
fail:
	if (passed >= 0)
		close(passed);
	close(fd);
	return err->code;
}

void attach_detach(struct profev_recorder *r)
{
	if (r->detach_sent || r->rfd < 0)
		return;
	struct pfw_header h = { PFW_MAGIC, PFW_DETACH, 0, 0, 0 };
	send(r->rfd, &h, sizeof h, MSG_NOSIGNAL | MSG_DONTWAIT);
	r->detach_sent = 1;
	r->detach_deadline = now_ns(CLOCK_MONOTONIC) + 2000000000ull;
}

/* /proc/net/unix: "Num: RefCount Protocol Flags Type St Inode Path", the
 * abstract names with '@' for the leading NUL. */
long profev_attachable(struct profev_attachable **out, struct profev_error *err)
{
	*out = NULL;
	FILE *f = fopen("/proc/net/unix", "r");
	if (!f) {
		err_set(err, PROFEV_E_IO, "'/proc/net/unix': %s", strerror(errno));
		return PROFEV_E_IO;
	}
	char line[512];
	long n = 0, cap = 0;
	struct profev_attachable *v = NULL;
	const char *prefix = "@" PFW_SOCKET_PREFIX;
	size_t pl = strlen(prefix);
	while (fgets(line, sizeof line, f)) {
		char *path = strchr(line, '@');
		unsigned long flags;
		/* Listening sockets have __SO_ACCEPTCON (0x10000) in Flags. */
		if (!path || strncmp(path, prefix, pl) != 0 ||
		    sscanf(line, "%*s %*s %*s %lx", &flags) != 1 || !(flags & 0x10000))
			continue;
		char *end;
		long pid = strtol(path + pl, &end, 10);
		if (pid <= 0 || (*end != '\n' && *end != 0))
			continue;
		char p[64];
		struct stat st;
		snprintf(p, sizeof p, "/proc/%ld", pid);
		if (stat(p, &st) < 0)
			continue;
		if (n == cap) {
			long c = cap ? cap * 2 : 16;
			struct profev_attachable *nv = realloc(v, (size_t)c * sizeof *v);
			if (!nv) {
				free(v);
				fclose(f);
				err_set(err, PROFEV_E_NOMEM, "out of memory");
				return PROFEV_E_NOMEM;
			}
			v = nv;
			cap = c;
		}
		struct profev_attachable *e = &v[n++];
		memset(e, 0, sizeof *e);
		e->pid = (int)pid;
		e->uid = st.st_uid;
		snprintf(p, sizeof p, "/proc/%ld/comm", pid);
		FILE *c = fopen(p, "r");
		if (c) {
			if (fgets(e->name, sizeof e->name, c))
				e->name[strcspn(e->name, "\n")] = 0;
			fclose(c);
		}
	}
	fclose(f);
	*out = v;
	return n;
}
