/*
 * lib/sym/debuginfod_limits.c: each limit comes from the option, else its
 * DEBUGINFOD_ variable (a bad value ignored), else the default, with its
 * source named; the budget is twice the time limit; a query is ended by a
 * signal first, then by its size (only once a server answered), its time
 * (the budget's when less is left of it), then its redirects.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include "check.h"
#include "sym/debuginfod_internal.h"

int main(void)
{
	struct profev_debuginfod d = { 0 };
	struct profev_debuginfod_opts o = { 0 };
	unsetenv("DEBUGINFOD_MAXSIZE");
	unsetenv("DEBUGINFOD_MAXTIME");
	limits_set(&d, &o);
	CHECK_EQ_U64(d.max_size, PROFEV_DEBUGINFOD_MAX_SIZE);
	CHECK_EQ(d.max_time, PROFEV_DEBUGINFOD_MAX_TIME);
	CHECK_STR(d.size_from, "the default");
	CHECK_STR(d.time_from, "the default");
	CHECK_EQ((long long)d.budget, 2 * PROFEV_DEBUGINFOD_MAX_TIME);

	setenv("DEBUGINFOD_MAXSIZE", "1000", 1);
	setenv("DEBUGINFOD_MAXTIME", "7x", 1);
	limits_set(&d, &o);
	CHECK_EQ_U64(d.max_size, 1000);
	CHECK_STR(d.size_from, "DEBUGINFOD_MAXSIZE");
	CHECK_EQ(d.max_time, PROFEV_DEBUGINFOD_MAX_TIME);   /* "7x" is no number */
	setenv("DEBUGINFOD_MAXTIME", "7", 1);
	o.max_size = 500;
	limits_set(&d, &o);
	CHECK_EQ_U64(d.max_size, 500);
	CHECK_STR(d.size_from, "--debuginfod-max-size");
	CHECK_EQ(d.max_time, 7);
	CHECK_STR(d.time_from, "DEBUGINFOD_MAXTIME");
	o.max_time = 3;
	limits_set(&d, &o);
	CHECK_EQ(d.max_time, 3);
	CHECK_STR(d.time_from, "--debuginfod-max-time");
	CHECK_EQ((long long)d.budget, 6);

	limits_start(&d);
	CHECK_EQ(limits_check(&d, 1), END_NONE);
	d.got = 501;
	CHECK_EQ(limits_check(&d, 0), END_NONE);   /* waits counted, not bytes */
	CHECK_EQ(limits_check(&d, 1), END_SIZE);
	limits_start(&d);
	d.cur.total = 501;                         /* announced */
	CHECK_EQ(limits_check(&d, 1), END_SIZE);
	d.cur.total = 0;
	limits_start(&d);
	d.redirects = MAX_REDIRECTS + 1;
	CHECK_EQ(limits_check(&d, 1), END_REDIRECTS);
	limits_start(&d);
	d.t0 -= 3;
	CHECK_EQ(limits_check(&d, 1), END_TIME);
	d.spent = 5;                               /* 1 s of the budget left */
	limits_start(&d);
	CHECK(d.limit > 0.5 && d.limit < 1.5);
	d.t0 -= 1;
	CHECK_EQ(limits_check(&d, 1), END_BUDGET);
	static volatile sig_atomic_t stop = 1;
	o.stop = &stop;
	limits_set(&d, &o);
	limits_start(&d);
	d.got = 501;
	CHECK_EQ(limits_check(&d, 1), END_STOP);
	return CHECK_DONE();
}
