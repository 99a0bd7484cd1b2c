/*
 * The recorded program (rec_internal.h): forked with the client's pipe and
 * shared file in its environment. When pfrec opens perf events on it, it
 * waits before its exec until they are open; a failed exec reports its
 * errno through a pipe of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rec/rec_internal.h"

static void child_exec(const struct profev_record_opts *o, int wfd, int shm_fd, int errfd,
		       int gofd)
{
	char num[16];
	/* pfrec opens the perf events on this process before it lets it exec:
	 * they start at exec. */
	if (gofd >= 0) {
		char c;
		while (read(gofd, &c, 1) < 0 && errno == EINTR)
			;
		close(gofd);
	}
	/* dup() gives a descriptor without close-on-exec: the one the program gets. */
	int fd = dup(wfd);
	int shm = shm_fd >= 0 ? dup(shm_fd) : -1;
	if (shm >= 0) {
		snprintf(num, sizeof num, "%d", shm);
		setenv("PROFEV_SHM", num, 1);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (fd >= 0) {
		snprintf(num, sizeof num, "%d", fd);
		setenv("PROFEV_FD", num, 1);
	}
	if (o->categories)
		setenv("PROFEV_CATEGORIES", o->categories, 1);
	if (o->drop)
		setenv("PROFEV_DROP", "1", 1);
	if (o->buffer_bytes) {
		snprintf(num, sizeof num, "%u", o->buffer_bytes);
		setenv("PROFEV_BUFFER", num, 1);
	}
	if (o->child_stdout >= 0 && o->child_stdout != STDOUT_FILENO)
		dup2(o->child_stdout, STDOUT_FILENO);
	execvp(o->argv[0], o->argv);
	int e = errno;
	if (write(errfd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/*
 * The memory file the client puts its rings in, so that records are read
 * where they were written instead of being copied through the pipe twice.
 * It may grow but never shrink: a shrink would fault our mappings. -1 when
 * the system has no memfd; the client then sends records down the pipe.
 */
static int shared_file(void)
{
#ifdef MFD_ALLOW_SEALING
	int fd = memfd_create("profev-rings", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
#else
	return -1;
#endif
}

int child_fork(struct profev_recorder *r, struct child_pipes *c, struct profev_error *err)
{
	const struct profev_record_opts *o = &r->o;
	int data[2], errp[2];
	c->errfd = c->gofd = -1;
	if (pipe2(data, O_CLOEXEC) < 0) {
		err_set(err, PROFEV_E_IO, "unable to create a pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(errp, O_CLOEXEC) < 0) {
		err_set(err, PROFEV_E_IO, "unable to create a pipe: %s", strerror(errno));
		close(data[0]);
		close(data[1]);
		return -1;
	}
	/* A larger pipe lets the flush thread hand over more per wakeup. */
	fcntl(data[0], F_SETPIPE_SZ, 1 << 20);
	if (!o->pipe_only)
		r->shm_fd = shared_file();
	int go[2] = { -1, -1 };
	if ((o->sample_hz || o->sched) && pipe2(go, O_CLOEXEC) < 0)
		go[0] = go[1] = -1;
	r->mono_start = now_ns(CLOCK_MONOTONIC);
	r->pid = fork();
	if (r->pid == 0) {
		close(data[0]);
		close(errp[0]);
		if (go[1] >= 0)
			close(go[1]);
		child_exec(o, data[1], r->shm_fd, errp[1], go[0]);
	}
	int fork_errno = errno;
	close(data[1]);
	close(errp[1]);
	if (go[0] >= 0)
		close(go[0]);
	r->rfd = data[0];
	if (r->pid < 0) {
		close(errp[0]);
		if (go[1] >= 0)
			close(go[1]);
		err_set(err, PROFEV_E_IO, "unable to start a process: %s", strerror(fork_errno));
		return -1;
	}
	c->errfd = errp[0];
	c->gofd = go[1];
	return 0;
}

void child_release(struct profev_recorder *r, struct child_pipes *c)
{
	if (c->gofd >= 0)
		close(c->gofd); /* the program may exec now */
	int e;
	ssize_t n;
	while ((n = read(c->errfd, &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(c->errfd);
	c->errfd = c->gofd = -1;
	if (n == (ssize_t)sizeof e) {
		r->nostart_errno = e;
		waitpid(r->pid, NULL, 0);
		r->pid = 0;
		r->reaped = 1;
	}
}
