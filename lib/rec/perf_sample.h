/* The kernel's view of the recorded program (perf_open.c, perf_drain.c,
 * perf_records.c, perf_tasks.c): cpu-clock samples with callstacks and
 * context switches through perf_event_open, turned into trace events. Used
 * by recorder.c only. Not installed. */
#ifndef PROFEV_REC_PERF_SAMPLE_H
#define PROFEV_REC_PERF_SAMPLE_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>
#include "profev_trace.h"

struct perf_sample_opts {
	unsigned hz;              /* samples per second of CPU time, 0 = none */
	int sched;                /* context switches */
	uint32_t ring_bytes;      /* per CPU, a power of two >= 2 pages */
	uint32_t stack_bytes;     /* user stack copied per sample for DWARF
				     unwinding, a multiple of 8; 0 = frame
				     pointers only */
	int fp_chain;             /* with stack copies, the kernel's
				     frame-pointer chain too */
};

/* What the sampler hands back to the recorder, which owns the writer and
 * the frame numbering. */
struct perf_sample_host {
	struct profev_writer *w;  /* modules, stacks and threads are defined here */
	int (*emit)(void *ctx, struct profev_event *ev);      /* 0 or <0 */
	void (*thread)(void *ctx, uint32_t tid, uint32_t pid, const char *comm);
	void *ctx;
};

struct perf_sampler;

/*
 * Open the events for process pid and its future threads and children,
 * one per CPU, enabled when pid calls exec (so pid must not have exec'd
 * yet). @return a sampler, or NULL with a one-line reason in why (the
 * kernel refused, or no memory).
 */
struct perf_sampler *perf_sampler_open(pid_t pid, const struct perf_sample_opts *o,
				       const struct perf_sample_host *host, char *why, size_t whylen);

/* The kernel ring per CPU in bytes; *asked (if not NULL) gets what the
 * options asked for, more when the locked-memory limit made it smaller. */
uint32_t perf_sampler_ring_bytes(const struct perf_sampler *s, uint32_t *asked);

/* Fill up to max pollfds with the rings' descriptors. @return how many. */
int perf_sampler_pollfds(const struct perf_sampler *s, struct pollfd *p, int max);

/*
 * Read what the rings hold and hand events to the host in time order.
 * Events are held back for a moment, since another CPU's ring may still
 * hold earlier ones; final hands everything over. @return 0, or <0 when
 * the host or the writer failed.
 */
int perf_sampler_drain(struct perf_sampler *s, int final);

struct perf_sample_counts {
	uint64_t samples, switches, lost;
	/* How samples were unwound: by DWARF to the outermost frame, by DWARF
	 * and then the frame-pointer chain (the copy was too short), by frame
	 * pointers alone. */
	uint64_t dwarf, spliced, frame_pointers;
};
void perf_sampler_counts(const struct perf_sampler *s, struct perf_sample_counts *c);

/* Accepts NULL. */
void perf_sampler_free(struct perf_sampler *s);

#endif
