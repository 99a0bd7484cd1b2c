/*
 * perf_open.c - cpu-clock samples and context switches of the recorded
 * program, from the kernel through perf_event_open: opening the events,
 * mapping their rings, and the sampler's end (perf_sample.h).
 *
 * One event per CPU, bound to the program's process and inherited by every
 * thread and child it creates. A per-task event that is inherited cannot
 * be mapped with cpu = -1 (the kernel refuses: every thread would write one
 * ring), so it is per CPU with the process as filter, which
 * perf_event_paranoid 2 allows for a process of our own. The events start
 * disabled and the kernel enables them when the program calls exec, so
 * pfrec's own fork-to-exec code is never sampled. Times are CLOCK_MONOTONIC
 * (use_clockid), the clock of the trace.
 *
 * The rings are read by pfrec's recording thread (recorder.c polls their
 * descriptors, perf_drain.c reads them). Memory: the rings, the pending
 * events of a few milliseconds, and the tables of perf_tasks.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "rec/rec_internal.h"

#define MAX_STACK_BYTES 65000u   /* a record's size is 16 bits */
#define MIN_RING_BYTES (64u << 10) /* and room for 4 stack copies at least */

static long perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static void attr_init(struct perf_event_attr *a, const struct perf_sampler *s, int build_id)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	if (s->o.hz) {
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		/* cpu-clock counts ns: a fixed period makes every sample
		 * the same share of CPU time */
		a->sample_period = 1000000000ull / s->o.hz;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
		a->mmap2 = 1;
		a->mmap = 1;
		a->build_id = (unsigned)build_id;
		a->sample_max_stack = PERF_MAX_FRAMES;
		if (s->o.stack_bytes) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
#ifdef PERF_REGS_MASK
			a->sample_regs_user = PERF_REGS_MASK;
#endif
			a->sample_stack_user = s->o.stack_bytes;
			/* The kernel's walk of frame pointers costs the
			 * program about a microsecond per sample (more where
			 * rbp or x29 is not a frame pointer and the walk
			 * faults), for frames the copy mostly holds: taken
			 * only when asked for, as perf record --call-graph
			 * dwarf does not take it. */
			a->exclude_callchain_user = s->o.fp_chain ? 0 : 1;
		}
	} else {
		a->config = PERF_COUNT_SW_DUMMY;
		a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	}
	a->context_switch = s->o.sched ? 1 : 0;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(s->o.ring_bytes / 4);
}

/* Every ring's mapping and event closed; none left open. */
static void rings_close(struct perf_sampler *s)
{
	for (int i = 0; i < s->nrings; i++) {
		if (s->rings[i].map)
			munmap(s->rings[i].map, s->page + s->rings[i].data_size);
		close(s->rings[i].fd);
	}
	memset(s->rings, 0, (size_t)s->nrings * sizeof *s->rings);
	s->nrings = 0;
}

uint32_t perf_sampler_ring_bytes(const struct perf_sampler *s, uint32_t *asked)
{
	if (asked)
		*asked = s->asked_ring_bytes;
	return s->o.ring_bytes;
}

static const char *refusal(int e)
{
	static char buf[160];
	if (e == EACCES || e == EPERM) {
		int level = 0;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
		if (f) {
			if (fscanf(f, "%d", &level) != 1)
				level = 0;
			fclose(f);
		}
		if (level > 2) {
			snprintf(buf, sizeof buf, "%s (perf_event_paranoid is %d)", strerror(e), level);
			return buf;
		}
	}
	return strerror(e);
}

struct perf_sampler *perf_sampler_open(pid_t pid, const struct perf_sample_opts *o,
				       const struct perf_sample_host *host, char *why, size_t whylen)
{
	struct perf_sampler *s = calloc(1, sizeof *s);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (!s || ncpu < 1 || !(s->rings = calloc((size_t)ncpu, sizeof *s->rings))) {
		free(s);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	s->o = *o;
	s->h = *host;
	u64_map_init(&s->processes, sizeof(struct perf_process));
	u64_map_init(&s->tasks, sizeof(struct perf_task));
	s->pid = (uint32_t)pid;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
#ifndef PERF_REGS_MASK
	s->o.stack_bytes = 0; /* registers and rules for x86-64 and aarch64 only */
#endif
	s->o.stack_bytes &= ~7u;
	if (s->o.stack_bytes > MAX_STACK_BYTES)
		s->o.stack_bytes = MAX_STACK_BYTES;
	if (s->o.hz && s->o.stack_bytes && !(s->uw = dwarf_unwinder_new())) {
		free(s->rings);
		free(s);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (s->o.ring_bytes < 2 * s->page || (s->o.ring_bytes & (s->o.ring_bytes - 1)))
		s->o.ring_bytes = 1u << 20;
	s->asked_ring_bytes = s->o.ring_bytes;
	uint32_t min_ring = MIN_RING_BYTES;
	while (min_ring < 4 * (s->o.stack_bytes + 512) || min_ring < 2 * s->page)
		min_ring *= 2;
	int build_id = 1, first_errno = 0;
again:
	for (long cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr a;
		attr_init(&a, s, build_id);
		long fd = perf_event_open(&a, pid, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL && build_id) {
			/* a kernel before 5.12: the build-id comes from the file */
			build_id = 0;
			attr_init(&a, s, 0);
			fd = perf_event_open(&a, pid, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			if (errno == ENODEV || errno == ENXIO)
				continue; /* an offline CPU */
			first_errno = errno;
			break;
		}
		struct perf_ring *r = &s->rings[s->nrings++];
		r->fd = (int)fd;
		r->data_size = s->o.ring_bytes;
		void *m = mmap(NULL, s->page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			       r->fd, 0);
		if (m == MAP_FAILED) {
			first_errno = errno;
			break;
		}
		r->map = m;
	}
	/* Past the locked-memory allowance (perf_event_mlock_kb per user, then
	 * RLIMIT_MEMLOCK), which a ring per CPU of a large machine soon is:
	 * smaller rings, as perf record takes, rather than no samples. */
	if ((first_errno == EPERM || first_errno == ENOMEM) && s->nrings &&
	    !s->rings[s->nrings - 1].map && s->o.ring_bytes / 2 >= min_ring) {
		rings_close(s);
		s->o.ring_bytes /= 2;
		first_errno = 0;
		goto again;
	}
	if (first_errno == EPERM && s->nrings && !s->rings[s->nrings - 1].map) {
		snprintf(why, whylen, "%s: rings of %u KiB per CPU are past the locked-memory limit "
			 "(perf_event_mlock_kb, ulimit -l)", strerror(first_errno), s->o.ring_bytes >> 10);
		perf_sampler_free(s);
		return NULL;
	}
	if (first_errno || !s->nrings) {
		snprintf(why, whylen, "%s", first_errno ? refusal(first_errno) : "no CPU to sample");
		perf_sampler_free(s);
		return NULL;
	}
	return s;
}

int perf_sampler_pollfds(const struct perf_sampler *s, struct pollfd *p, int max)
{
	int n = 0;
	for (int i = 0; i < s->nrings && n < max; i++)
		p[n++] = (struct pollfd){ s->rings[i].fd, POLLIN, 0 };
	return n;
}

void perf_sampler_counts(const struct perf_sampler *s, struct perf_sample_counts *c)
{
	*c = s->n;
}

void perf_sampler_free(struct perf_sampler *s)
{
	if (!s)
		return;
	rings_close(s);
	free(s->rings);
	perf_tables_free(s);
	dwarf_unwinder_free(s->uw);
	free(s->pending);
	free(s);
}
