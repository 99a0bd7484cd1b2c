/*
 * init.c - start of the client runtime: the environment pfrec sets, the
 * order in which the other files start, and the fork and exit hooks. The
 * top of the runtime: it calls the others, none calls it.
 *
 * Environment (each variable is removed once read, so that programs the
 * traced program starts never see it):
 *   PROFEV_FD          the pipe's write end; without it the client stays off
 *   PROFEV_SHM         a memory file for the rings, shared with pfrec
 *   PROFEV_CATEGORIES  "render,-audio": see category_wanted()
 *   PROFEV_DROP        "1": drop events instead of waiting for the pipe
 *   PROFEV_BUFFER      per-thread buffer size ("1M", "256K"), 16K..64M
 *   PROFEV_CLOCK       "monotonic" forces clock_gettime over the TSC
 *   PROFEV_UNWIND      "libgcc": every capture through _Unwind_Backtrace
 *
 * Without PROFEV_FD, PROFEV_ON_DEMAND=1 (kept in the environment, so that
 * programs it starts listen too) or profev_listen() set the runtime up on
 * demand: everything above but the pipe, then listen.c's socket, through
 * which pfrec --attach starts and ends recordings. PROFEV_CATEGORIES and
 * PROFEV_BUFFER are read then too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "client.h"

_Static_assert((int)PROFEV__R_FRAME == (int)PFW_R_FRAME_MARK &&
	       (int)PROFEV__R_BEGIN == (int)PFW_R_ZONE_BEGIN &&
	       (int)PROFEV__R_END == (int)PFW_R_ZONE_END &&
	       (int)PROFEV__R_COUNTER == (int)PFW_R_COUNTER &&
	       (int)PROFEV__R_INSTANT == (int)PFW_R_INSTANT, "profev.h and wire.h disagree");
_Static_assert((int)PROFEV__R_ARG == (int)PFW_R_ARG && (int)PROFEV__R_ARG_STR == (int)PFW_R_ARG_STR &&
		       (int)PROFEV__R_FLOW_OUT == (int)PFW_R_FLOW_OUT &&
		       (int)PROFEV__R_FLOW_IN == (int)PFW_R_FLOW_IN &&
		       (int)PROFEV__R_ASYNC_BEGIN == (int)PFW_R_ASYNC_BEGIN &&
		       (int)PROFEV__R_ASYNC_END == (int)PFW_R_ASYNC_END &&
		       (int)PROFEV__R_LOCK_WAIT == (int)PFW_R_LOCK_WAIT &&
		       (int)PROFEV__R_LOCK_ACQUIRED == (int)PFW_R_LOCK_ACQUIRED &&
		       (int)PROFEV__R_LOCK_RELEASED == (int)PFW_R_LOCK_RELEASED &&
		       (int)PROFEV__R_FRAME_START == (int)PFW_R_FRAME_START &&
		       (int)PROFEV__R_FRAME_END == (int)PFW_R_FRAME_END &&
		       (int)PROFEV__R_MESSAGE_AT == (int)PFW_R_MESSAGE_AT &&
		       PROFEV__AK_DOUBLE == PFW_AK_DOUBLE << 8 && PROFEV__AK_PTR == PFW_AK_PTR << 8 &&
		       PROFEV__AK_BOOL == PFW_AK_BOOL << 8 && PROFEV__AK_UINT == PFW_AK_UINT << 8 &&
		       PROFEV_ARG_STR_MAX == PFW_MAX_ARG_STR,
	       "profev.h and wire.h disagree on rich records");

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_once_t ondemand_once = PTHREAD_ONCE_INIT;
static int ondemand_rc = -1;

PROFEV_API unsigned char profev__count_frames;

int profev__frame_counted(void)
{
	return (__atomic_add_fetch(&cl.frames, 1, __ATOMIC_ACQ_REL) & FRAMES_RECORDED) != 0;
}

int profev_active(void)
{
	return ATOMIC_LOAD(&cl.active);
}

void profev__category_register(struct profev_category *c)
{
	client_init();
	category_add(c);
}

/* The child of a fork must never write into the parent's stream. */
static void in_child(void)
{
	if (ATOMIC_LOAD(&cl.ondemand)) {
		/* Not the program pfrec may attach to: its parent is. */
		listen_forget();
		ATOMIC_STORE(&cl.ondemand, 0);
		__atomic_store_n(&profev__count_frames, 0, __ATOMIC_RELAXED);
		categories_disable_all();
		if (!ATOMIC_LOAD(&cl.active)) {
			if (cl.shm_fd >= 0)
				close(cl.shm_fd);
			cl.shm_fd = -1;
			return;
		}
	}
	if (!ATOMIC_LOAD(&cl.active))
		return;
	ATOMIC_STORE(&cl.active, 0);
	categories_disable_all();
	flush_forget();
	close(cl.fd);
	cl.fd = -1;
	if (cl.shm_fd >= 0)
		close(cl.shm_fd);
	cl.shm_fd = -1;
}

static void at_exit(void)
{
	/* On demand, the listener ends first; a recording under way ends
	 * below as any does when the program exits. */
	if (ATOMIC_LOAD(&cl.ondemand))
		listen_stop();
	/* A flush thread that ended when pfrec went away is joined too. */
	if (!ATOMIC_LOAD(&cl.active)) {
		flush_stop();
		return;
	}
	flush_stop();
	ATOMIC_STORE(&cl.active, 0);
	categories_disable_all();
	/* Threads still running may check the pipe (recorder_gone), or be
	 * announcing their ring: under the pipe lock (bounded) they either
	 * finish their message first or find the pipe gone. */
	int locked = pipe_lock(1) == 0;
	int fd = __atomic_exchange_n(&cl.fd, -1, __ATOMIC_RELAXED);
	if (locked)
		pipe_unlock();
	close(fd);
}

static uint32_t parse_buffer(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end == 'k' || *end == 'K')
		v <<= 10;
	else if (*end == 'm' || *end == 'M')
		v <<= 20;
	if (v < (16u << 10))
		v = 16u << 10;
	if (v > (64u << 20))
		v = 64u << 20;
	/* A power of two keeps records and the wrap point 16-byte aligned. */
	uint32_t p = 16u << 10;
	while (p < v)
		p <<= 1;
	return p;
}

/* A descriptor number from the environment, taken out of it and marked
 * close-on-exec; -1 if absent or not open. */
static int env_fd(const char *name)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return -1;
	char *end;
	long fd = strtol(s, &end, 10);
	unsetenv(name);
	if (*end || fd < 0 || fd > 1 << 20 || fcntl((int)fd, F_GETFD) < 0)
		return -1;
	fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	return (int)fd;
}

/*
 * profev_listen() or PROFEV_ON_DEMAND: the runtime as pfrec would start
 * it, minus the pipe, plus the socket. An attached recording drops events
 * rather than make the program wait (formats/wire.md).
 */
static void do_ondemand(void)
{
	if (ATOMIC_LOAD(&cl.active))
		return; /* started by pfrec: recorded already */
	const char *s;
	categories_select(getenv("PROFEV_CATEGORIES"));
	s = getenv("PROFEV_BUFFER");
	cl.ring_bytes = parse_buffer(s ? s : "1M");
	s = getenv("PROFEV_UNWIND");
	cl.unwind_libgcc = s && strcmp(s, "libgcc") == 0;
	cl.drop = 1;
	clock_init();
	cl.pid = (uint32_t)getpid();
	cl.age_us = 2000;
	ATOMIC_STORE(&cl.ondemand, 1);
	defs_quiet();
	crash_install();
	modules_init();
	categories_announce_all();
	categories_start();
	__atomic_store_n(&profev__count_frames, 1, __ATOMIC_RELEASE);
	pthread_atfork(NULL, NULL, in_child);
	atexit(at_exit);
	if (listen_start() < 0) {
		/* Nothing to attach through: as if never asked. */
		__atomic_store_n(&profev__count_frames, 0, __ATOMIC_RELAXED);
		categories_disable_all();
		ATOMIC_STORE(&cl.ondemand, 0);
		__atomic_store_n(&profev__frames.enabled, 0, __ATOMIC_RELAXED);
		return;
	}
	ondemand_rc = 0;
}

int profev_listen(void)
{
	client_init();
	pthread_once(&ondemand_once, do_ondemand);
	return ondemand_rc;
}

static void do_init(void)
{
	const char *s;
	cl.shm_fd = -1;
	int fd = env_fd("PROFEV_FD");
	if (fd < 0) {
		s = getenv("PROFEV_ON_DEMAND");
		if (s && *s && strcmp(s, "0") != 0)
			pthread_once(&ondemand_once, do_ondemand);
		return;
	}
	cl.shm_fd = env_fd("PROFEV_SHM");

	categories_select(getenv("PROFEV_CATEGORIES"));
	s = getenv("PROFEV_DROP");
	cl.drop = s && *s && strcmp(s, "0") != 0;
	s = getenv("PROFEV_BUFFER");
	cl.ring_bytes = parse_buffer(s ? s : "1M");
	unsetenv("PROFEV_CATEGORIES");
	unsetenv("PROFEV_DROP");
	unsetenv("PROFEV_BUFFER");

	s = getenv("PROFEV_UNWIND");
	cl.unwind_libgcc = s && strcmp(s, "libgcc") == 0;
	unsetenv("PROFEV_UNWIND");
	clock_init();
	cl.fd = fd;
	cl.pid = (uint32_t)getpid();
	cl.age_us = 2000;

	pthread_atfork(NULL, NULL, in_child);
	ATOMIC_STORE(&cl.active, 1);
	if (flush_start() < 0) {
		ATOMIC_STORE(&cl.active, 0);
		close(cl.fd);
		cl.fd = -1;
		return;
	}
	atexit(at_exit);
	crash_install();
	modules_init();
	categories_start();
}

void client_init(void)
{
	pthread_once(&once, do_init);
}

__attribute__((constructor)) static void client_ctor(void)
{
	client_init();
}
