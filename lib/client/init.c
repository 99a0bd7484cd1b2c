/*
 * init.c - start of the client runtime: the environment pfrec sets, the
 * clock and its calibration, categories, and the fork and exit hooks.
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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
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

struct client cl = { .fd = -1 };

/* Frame marks are on whenever the client records; index 0 = no category. */
PROFEV_API struct profev_category profev__frames = { 0, 0, 0, "frame", "frame marks", 0 };
/* The memory macros' category: --categories=-memory turns them off. */
PROFEV_API struct profev_category profev__memory = { 0, 0, 0, "memory", "memory events", 0 };
/* Arguments and flow marks: on whenever the client records (no index). */
PROFEV_API struct profev_category profev__rec = { 0, 0, 0, "rec", "arguments and flows", 0 };
/* The lock macros' category: --categories=-lock turns them off. */
PROFEV_API struct profev_category profev__locks = { 0, 0, 0, "lock", "lock contention", 0 };
struct profev_category profev__app_info = { 0, 0, 0, "app_info", "profev_app_info()", 0 };
struct profev_category profev__program_name = { 0, 0, 0, "program_name", "profev_program_name()", 0 };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t cat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct profev_category *categories;
static uint16_t ncategories;
static char *category_list;

uint64_t calib_tick0, calib_mono0;
int64_t calib_real0;
double calib_rate;

uint32_t client_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t profev__ticks_slow(void)
{
	return mono_ns();
}

uint64_t client_ticks(void)
{
	return cl.tsc ? profev__ticks() : mono_ns();
}

int profev_active(void)
{
	return ATOMIC_LOAD(&cl.active);
}

/* A (tick, ns) pair read as close together as this machine allows. */
void clock_pair(uint64_t *tick, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t a = client_ticks();
		uint64_t m = mono_ns();
		uint64_t b = client_ticks();
		if (b - a < best) {
			best = b - a;
			*tick = a + (b - a) / 2;
			*mono = m;
		}
	}
}

static int tsc_usable(void)
{
	const char *c = getenv("PROFEV_CLOCK");
	if (c && strcmp(c, "monotonic") == 0)
		return 0;
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, cx, d;
	if (__get_cpuid(0x80000000u, &a, &b, &cx, &d) && a >= 0x80000007u &&
	    __get_cpuid(0x80000007u, &a, &b, &cx, &d) && (d & (1u << 8)))
		return PFW_CLOCK_TSC;
	/* Hypervisors often hide the invariant bit; the kernel's choice of
	 * clocksource says whether the TSC can be trusted here. */
	char buf[16] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0 && strncmp(buf, "tsc", 3) == 0)
			return PFW_CLOCK_TSC;
	}
	return 0;
#elif defined(__aarch64__)
	return PFW_CLOCK_CNTVCT;
#else
	return 0;
#endif
}

static void calibrate(void)
{
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	calib_real0 = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
	clock_pair(&calib_tick0, &calib_mono0);
	if (!cl.tsc) {
		calib_rate = 1.0;
		return;
	}
	/* A first estimate over 1 ms; the flush thread's PFW_SYNC points let
	 * pfrec refine it over the whole run. */
	uint64_t t1, m1;
	do
		clock_pair(&t1, &m1);
	while (m1 - calib_mono0 < 1000000);
	calib_rate = (double)(t1 - calib_tick0) / (double)(m1 - calib_mono0);
}

/*
 * PROFEV_CATEGORIES is a comma-separated list read left to right: "name"
 * enables, "-name" disables, "*" and "-*" stand for every category. When
 * the first item enables something, the list starts from nothing enabled
 * ("render" records only render); otherwise from everything enabled.
 */
int category_wanted(const char *name)
{
	const char *s = category_list;
	if (!s || !*s)
		return 1;
	int on = s[0] == '-';
	while (*s) {
		size_t n = strcspn(s, ",");
		int neg = s[0] == '-';
		const char *item = s + neg;
		size_t len = n - (size_t)neg;
		if ((len == 1 && item[0] == '*') || (len == strlen(name) && !memcmp(item, name, len)))
			on = !neg;
		s += n;
		if (*s == ',')
			s++;
	}
	return on;
}

static void category_announce(struct profev_category *c, int enabled)
{
	struct pfw_category pc = { c->index, (uint32_t)enabled, (uint32_t)strlen(c->name), 0 };
	defs_append(PFW_CATEGORY, &pc, sizeof pc, c->name, pc.name_len, c->description,
		    (uint32_t)strlen(c->description));
}

void profev__category_register(struct profev_category *c)
{
	client_init();
	category_add(c);
}

void category_add(struct profev_category *c)
{
	pthread_mutex_lock(&cat_lock);
	if (c->index == 0 && ncategories < UINT16_MAX) {
		c->index = ++ncategories;
		c->end_word = pfw_word(PFW_R_ZONE_END, c->index, 0);
		c->next = categories;
		ATOMIC_STORE(&categories, c);
		if (ATOMIC_LOAD(&cl.active)) {
			int on = category_wanted(c->name);
			category_announce(c, on);
			__atomic_store_n(&c->enabled, (unsigned char)on, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&cat_lock);
}

/* Called on shutdown and in forked children: no more events anywhere. */
void categories_disable_all(void)
{
	__atomic_store_n(&profev__frames.enabled, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&profev__rec.enabled, 0, __ATOMIC_RELAXED);
	for (struct profev_category *c = ATOMIC_LOAD(&categories); c; c = c->next)
		__atomic_store_n(&c->enabled, 0, __ATOMIC_RELAXED);
}

/* The child of a fork must never write into the parent's stream. */
static void in_child(void)
{
	if (!ATOMIC_LOAD(&cl.active))
		return;
	ATOMIC_STORE(&cl.active, 0);
	categories_disable_all();
	ring_detach();
	flush_forget();
	close(cl.fd);
	cl.fd = -1;
	if (cl.shm_fd >= 0)
		close(cl.shm_fd);
	cl.shm_fd = -1;
}

static void at_exit(void)
{
	/* A flush thread that ended when pfrec went away is joined too. */
	if (!ATOMIC_LOAD(&cl.active)) {
		flush_stop();
		return;
	}
	flush_stop();
	ATOMIC_STORE(&cl.active, 0);
	categories_disable_all();
	/* Threads still running may check the pipe (recorder_gone). */
	int fd = __atomic_exchange_n(&cl.fd, -1, __ATOMIC_RELAXED);
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

static void do_init(void)
{
	const char *s;
	cl.shm_fd = -1;
	int fd = env_fd("PROFEV_FD");
	if (fd < 0)
		return;
	cl.shm_fd = env_fd("PROFEV_SHM");

	if ((s = getenv("PROFEV_CATEGORIES")))
		category_list = strdup(s);
	s = getenv("PROFEV_DROP");
	cl.drop = s && *s && strcmp(s, "0") != 0;
	s = getenv("PROFEV_BUFFER");
	cl.ring_bytes = parse_buffer(s ? s : "1M");
	unsetenv("PROFEV_CATEGORIES");
	unsetenv("PROFEV_DROP");
	unsetenv("PROFEV_BUFFER");

	cl.tsc = tsc_usable();
	unsetenv("PROFEV_CLOCK");
	s = getenv("PROFEV_UNWIND");
	cl.unwind_libgcc = s && strcmp(s, "libgcc") == 0;
	unsetenv("PROFEV_UNWIND");
	calibrate();
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
	category_add(&profev__memory);
	category_add(&profev__locks);
	category_add(&profev__app_info);
	category_add(&profev__program_name);
	__atomic_store_n(&profev__frames.enabled, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&profev__rec.enabled, 1, __ATOMIC_RELAXED);
}

void client_init(void)
{
	pthread_once(&once, do_init);
}

__attribute__((constructor)) static void client_ctor(void)
{
	client_init();
}
