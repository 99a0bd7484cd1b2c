/*
 * sym/debuginfod_limits.c - how much a download may take: a size and a
 * time limit per file (options, else DEBUGINFOD_MAXSIZE and
 * DEBUGINFOD_MAXTIME, else the defaults), a budget of twice the time limit
 * for all of a run's downloads, and the check the progress callback makes
 * as data comes. A body without Content-Length is seen growing here
 * (DEBUGINFOD_MAXSIZE only compares an announced length).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sym/debuginfod_internal.h"

double dfd_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void limits_set(struct profev_debuginfod *d, const struct profev_debuginfod_opts *o)
{
	const char *e = getenv("DEBUGINFOD_MAXSIZE");
	unsigned long long v;
	char *end;
	if (o->max_size) {
		d->max_size = o->max_size;
		snprintf(d->size_from, sizeof(d->size_from), "--debuginfod-max-size");
	} else if (e && *e && (v = strtoull(e, &end, 10)) > 0 && !*end) {
		d->max_size = v;
		snprintf(d->size_from, sizeof(d->size_from), "DEBUGINFOD_MAXSIZE");
	} else {
		d->max_size = PROFEV_DEBUGINFOD_MAX_SIZE;
		snprintf(d->size_from, sizeof(d->size_from), "the default");
	}
	e = getenv("DEBUGINFOD_MAXTIME");
	if (o->max_time) {
		d->max_time = o->max_time;
		snprintf(d->time_from, sizeof(d->time_from), "--debuginfod-max-time");
	} else if (e && *e && (v = strtoull(e, &end, 10)) > 0 && v < 1u << 30 && !*end) {
		d->max_time = (unsigned)v;
		snprintf(d->time_from, sizeof(d->time_from), "DEBUGINFOD_MAXTIME");
	} else {
		d->max_time = PROFEV_DEBUGINFOD_MAX_TIME;
		snprintf(d->time_from, sizeof(d->time_from), "the default");
	}
	d->budget = 2.0 * d->max_time;
	d->stop = o->stop;
}

void limits_start(struct profev_debuginfod *d)
{
	d->t0 = dfd_now();
	d->limit = d->budget - d->spent < d->max_time ? d->budget - d->spent : d->max_time;
	d->ended = END_NONE;
	d->got = 0;
	d->redirects = 0;
}

int limits_check(struct profev_debuginfod *d, int answered)
{
	if (d->stop && *d->stop)
		d->ended = END_STOP;
	else if (answered && ((unsigned long long)d->got > d->max_size ||
			      (unsigned long long)d->cur.total > d->max_size))
		d->ended = END_SIZE;
	else if (dfd_now() - d->t0 >= d->limit)
		d->ended = d->limit < d->max_time ? END_BUDGET : END_TIME;
	else if (d->redirects > MAX_REDIRECTS)
		d->ended = END_REDIRECTS;
	return d->ended;
}
