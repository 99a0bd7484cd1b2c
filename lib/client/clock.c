/*
 * clock.c - the time of records: the TSC (or the arm64 virtual counter,
 * CNTVCT_EL0, checked against its stated rate CNTFRQ_EL0) when it can be
 * trusted, else CLOCK_MONOTONIC, and the calibration at start that
 * PFW_HELLO sends so that pfrec turns ticks into nanoseconds.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "client.h"

uint64_t calib_tick0, calib_mono0;
int64_t calib_real0;
double calib_rate;

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

#if defined(__aarch64__)
/* The frequency the firmware states for the virtual counter, in Hz. */
static uint64_t cntfrq(void)
{
	uint64_t f;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return f & 0xffffffffu;
}
#endif

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
	/* The kernel lets user space read the virtual counter (or traps and
	 * emulates the read on parts with errata); a counter without a stated
	 * frequency is not set up, and calibrate() checks the rest. */
	return cntfrq() ? PFW_CLOCK_CNTVCT : 0;
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
#if defined(__aarch64__)
	/* The counter must run at its stated rate (within 1%: the estimate's
	 * own error is far smaller); one that does not, or stands still, is
	 * not trusted, and the run uses CLOCK_MONOTONIC, which HELLO names. */
	double stated = (double)cntfrq() / 1e9;
	if (!(calib_rate > stated * 0.99 && calib_rate < stated * 1.01)) {
		cl.tsc = 0;
		calibrate();
	}
#endif
}

void clock_init(void)
{
	cl.tsc = tsc_usable();
	unsetenv("PROFEV_CLOCK");
	calibrate();
}
