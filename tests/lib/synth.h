/* Synthetic game-shaped traces for tests and benchmarks: frames of nested
 * zones on several threads, counters, frame marks and a few messages, with a
 * few ns of random jitter on every duration so sizes are not flattered. */
#ifndef PROFEV_SYNTH_H
#define PROFEV_SYNTH_H
#include <stdint.h>
#include "profev_trace.h"

struct synth {
	uint32_t nthreads;
	uint64_t rng;
	uint64_t frame;
	uint32_t zone_names[16], category[4], counter_names[2], thread_names[64];
	int args;                 /* two arguments after every zone begin */
	uint32_t arg_keys[2], arg_strs[4];
	struct synth_thread {
		uint64_t clock;
		uint32_t step;  /* position in the per-frame pattern */
	} threads[64];
};

/* Interns the names with w and defines the threads. nthreads <= 64. */
int synth_init(struct synth *s, struct profev_writer *w, uint32_t nthreads, uint64_t seed);

/* Fills out[0..n) with the next n events, interleaved across threads in
 * batches the way a recorder receives them. Messages are not generated
 * here (they need text); see synth_write(). */
void synth_fill(struct synth *s, struct profev_event *out, uint32_t n);

/* An event with the given fields and everything else zero. */
struct profev_event synth_event(uint8_t type, uint64_t ts, uint32_t tid, uint32_t name, uint64_t payload);

/* Makes synth_fill() add two arguments after every zone begin (an integer
 * and one of four strings), as a program using PROFEV_ARG_* would. */
int synth_args(struct synth *s, struct profev_writer *w);

/* Writes a complete trace of about nevents events to fd (metadata, the
 * events, a few messages, end chunk). 0 or a negative profev_errc. */
int synth_write(int fd, uint64_t nevents, uint32_t nthreads, uint64_t seed, struct profev_error *err);
/* The same, with the arguments of synth_args() when args is set. */
int synth_write_args(int fd, uint64_t nevents, uint32_t nthreads, uint64_t seed, int args,
		     struct profev_error *err);
#endif
