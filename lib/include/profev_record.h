/*
 * profev_record.h - run a program under the profev client and record its
 * trace (pfrec's engine, in libprofev).
 *
 * The recorder starts the program with a pipe handed over as PROFEV_FD,
 * decodes the client's stream (formats/wire.md) while the program runs,
 * converts ticks to CLOCK_MONOTONIC nanoseconds and writes the trace with
 * the profev_writer API. Its memory does not grow with the length of the
 * recording: only with the number of live threads and distinct names.
 *
 * Like the rest of libprofev it never prints and never exits: warnings and
 * progress reach the caller through callbacks, errors through the
 * recorder's error record. One recorder must be driven from one thread;
 * profev_recorder_signal() alone may also be called from a signal handler.
 */
#ifndef PROFEV_RECORD_H
#define PROFEV_RECORD_H

#include <stdint.h>
#include "profev_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* the API: exported (profev_trace.h) */

struct profev_recorder;

/** Running totals, handed to the progress callback and to the result. */
struct profev_record_stats {
	uint64_t events;      /**< events written to the trace */
	uint64_t bytes;       /**< trace bytes written */
	uint64_t wire_bytes;  /**< bytes read from the client */
	uint64_t lost;        /**< events the client dropped (--drop) */
	uint64_t elapsed_ns;  /**< since the program started */
	uint32_t threads;     /**< threads seen */
	uint64_t samples;     /**< cpu-clock samples taken (--sample) */
	uint64_t switches;    /**< context switches recorded (--sched) */
	uint64_t lost_samples; /**< samples and switches the kernel dropped */
};

struct profev_record_opts {
	char *const *argv;        /**< program (searched in PATH) and arguments */
	int out_fd;               /**< where the trace goes; stays the caller's */
	const char *categories;   /**< PROFEV_CATEGORIES for the client, NULL = all */
	int drop;                 /**< drop events instead of slowing the program */
	int zstd_level;           /**< writer compression level, 0 = default */
	uint32_t buffer_bytes;    /**< client per-thread buffer, 0 = its default */
	int child_stdout;         /**< fd to give the program as stdout, -1 = inherit */
	uint64_t progress_ns;     /**< progress callback period, 0 = never */
	void (*progress)(void *ctx, const struct profev_record_stats *s);
	void (*warn)(void *ctx, const char *message); /**< lowercase, no period */
	void *ctx;
	int pipe_only;            /**< records through the pipe, not a shared file */
	unsigned sample_hz;       /**< cpu-clock samples per second of CPU time
	                               with callstacks, 0 = none */
	int sched;                /**< record context switches */
	uint32_t sample_ring_bytes; /**< kernel ring per CPU for samples and
	                                 switches, a power of two; 0 = 1 MiB */
	uint32_t sample_stack_bytes; /**< user stack copied with each sample
	                                  and unwound with the modules' .eh_frame
	                                  (up to 65000, a multiple of 8); 0 =
	                                  frame pointers only */
	int sample_fp_chain;      /**< with stack copies, also take the
	                               kernel's frame-pointer chain: it goes on
	                               where a deep stack's copy ends, and walks
	                               code without unwind tables */
	/* Limits for unattended runs: recording stops at the first reached,
	 * the trace is finished there (whole and readable), and the program
	 * runs on unrecorded, or gets SIGTERM with kill_at_end. */
	uint64_t duration_ns;     /**< stop this long after the start, 0 = never */
	uint64_t max_bytes;       /**< stop once the trace has this many bytes,
	                               0 = never (it ends within a chunk of it) */
	int kill_at_end;          /**< SIGTERM to the program when a limit stops
	                               the recording */
	/** Called once when a limit stopped the recording and the trace is
	 *  finished: why is enum profev_record_stop, s the totals. */
	void (*stopped)(void *ctx, int why, const struct profev_record_stats *s);
	/* Flight recorder (--ring): keep the newest ring_ns of chunks, or
	 * ring_bytes (either or both; both 0: not a flight recorder), write
	 * nothing until a trigger, then a snapshot SNAPSHOT_BASE-001.bin... */
	uint64_t ring_ns;
	uint64_t ring_bytes;
	uint64_t after_ns;        /**< keep recording this long past a trigger */
	uint64_t min_interval_ns; /**< at most one snapshot per interval */
	int ring_discard_at_exit; /**< no snapshot at the end */
	const char *snapshot_base; /**< "x" for x-001.bin */
	/** A snapshot was written to path. */
	void (*snapshot)(void *ctx, const char *path);
	int attach_pid;           /**< not 0: record this running program,
	                               which listens (profev_listen(),
	                               PROFEV_ON_DEMAND=1), instead of starting
	                               argv; categories, drop, buffer_bytes,
	                               pipe_only, the sampling options and
	                               kill_at_end do not apply; a limit ends
	                               the recording as a detach does */
};

/** What stopped a recording before the program's end. */
enum profev_record_stop {
	PROFEV_STOP_NONE = 0,
	PROFEV_STOP_DURATION = 1, /**< opts.duration_ns passed */
	PROFEV_STOP_SIZE = 2,     /**< the trace reached opts.max_bytes */
};

/** How the recording ended. */
struct profev_record_result {
	int exit_kind;            /**< enum profev_exit_kind */
	int exit_code;            /**< status, signal or errno per exit_kind */
	int status;               /**< as a shell reports it: status, 128+signal,
	                               127 not found, 126 not executable */
	int client;               /**< 1 if the program's client connected */
	int sampled;              /**< 1 if samples or switches were recorded
	                               (perf_event_open was allowed) */
	int stopped;              /**< enum profev_record_stop: a limit ended the
	                               recording before the program did */
	int detached;             /**< attach_pid: 1 if the recording ended
	                               with a detach and the program runs on;
	                               0 if the program ended (exit_kind is
	                               then PROFEV_EXIT_UNKNOWN: not our child) */
	struct profev_record_stats stats;
};

/**
 * Create the trace on opts->out_fd and start the program (or attach to
 * opts->attach_pid: NULL with *err saying why not, e.g. the program does
 * not listen, or refused this user).
 * A program that cannot be started is not an error here: the recorder is
 * returned and profev_recorder_run() reports PROFEV_EXIT_NOSTART. Nor is
 * a kernel that refuses samples or switches (perf_event_open): the warning
 * callback says so in one line and the recording goes on without them.
 * @return a recorder, or NULL with *err filled (bad options, no memory,
 *         pipe or fork failure, trace write failure).
 */
struct profev_recorder *profev_recorder_start(const struct profev_record_opts *opts,
					      struct profev_error *err);

/** A program that pfrec --attach can record (profev_attachable()). */
struct profev_attachable {
	int pid;
	unsigned uid;             /**< its owner */
	char name[16];            /**< its command name (/proc/PID/comm) */
};

/**
 * The programs of this machine (of this network namespace) that listen
 * for pfrec --attach, by pid; those of other users too, though only their
 * user and root may attach.
 * @param out  filled with a malloc'd array (free() it), NULL if none
 * @return how many, or <0 with *err filled (/proc/net/unix unreadable)
 */
long profev_attachable(struct profev_attachable **out, struct profev_error *err);

/** Pid of the program, 0 if it was not started. */
int profev_recorder_pid(const struct profev_recorder *r);

/**
 * Send sig to the program if it is still running. Async-signal-safe: this
 * is how pfrec passes SIGINT and SIGTERM on. With attach_pid the program
 * is not signalled: the recorder detaches instead (profev_recorder_run()
 * then ends within about 2 s).
 */
void profev_recorder_signal(struct profev_recorder *r, int sig);

/**
 * Ask a flight recorder (opts.ring_ns, ring_bytes) for a snapshot, as
 * SIGUSR1 to pfrec does. Async-signal-safe: the recording loop writes it.
 */
void profev_recorder_snapshot(struct profev_recorder *r);

/**
 * Record until the program has exited and its stream is closed, then finish
 * the trace (exit status, end time and lost events in a last metadata
 * chunk, then the end chunk). Call once. A limit (opts.duration_ns,
 * opts.max_bytes) finishes the trace when it is reached, without the exit
 * fields; this call then still waits for the program's end.
 * @return 0 with *res filled, or <0 when the trace could not be written or
 *         the stream was unreadable (*res is still filled as far as known).
 */
int profev_recorder_run(struct profev_recorder *r, struct profev_record_result *res);

/**
 * After profev_recorder_run(): the items of opts->categories (without
 * their '-'; of the first 64) that named no category the program defined,
 * comma-separated; "" when every item did, or no list was given. A program
 * announces its categories as it first uses them, so an item may also
 * name one that the run never reached.
 */
const char *profev_recorder_unmatched_categories(const struct profev_recorder *r);

/** The recorder's last error; never NULL. */
const struct profev_error *profev_recorder_error(const struct profev_recorder *r);

/** Accepts NULL. Does not wait for the program. */
void profev_recorder_free(struct profev_recorder *r);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
