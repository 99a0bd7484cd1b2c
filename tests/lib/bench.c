#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static int failed;

int bench_tiny(void)
{
	const char *v = getenv("PROFEV_BENCH_TINY");
	return v && *v && strcmp(v, "0") != 0;
}

void bench_cannot(const char *what, const char *why_fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "%s: cannot measure %s: ", program_invocation_short_name, what);
	va_start(ap, why_fmt);
	vfprintf(stderr, why_fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failed = 1;
}

int bench_status(void)
{
	return failed;
}
