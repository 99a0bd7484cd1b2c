/*
 * recorder.c - pfrec's engine (profev_record.h): start the program with
 * the client's pipe, decode the wire stream as it arrives and write the
 * trace, with the kernel's samples and context switches beside it. This
 * file holds the public calls and the poll loop; rec_internal.h lists the
 * others.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rec/perf_sample.h"
#include "rec/rec_internal.h"
#include "rec/ring_store.h"

#define LINGER_NS 200000000ull  /* stream left open by a grandchild after exit */

/* ---- the kernel's samples and switches (perf_sample.h) ---------------- */

static int sampler_emit(void *ctx, struct profev_event *ev)
{
	return emit_event(ctx, ev);
}

/* A thread the kernel saw: named with its comm unless the client told us
 * about it (its name, or none, is the program's choice). */
static void sampler_thread(void *ctx, uint32_t tid, uint32_t pid, const char *comm)
{
	struct profev_recorder *r = ctx;
	if (!thread_find(r, tid) && profev_writer_thread(r->w, tid, pid, comm) < 0)
		writer_failed(r);
}

static void sampler_start(struct profev_recorder *r)
{
	struct perf_sample_opts so = { r->o.sample_hz, r->o.sched, r->o.sample_ring_bytes,
				       r->o.sample_stack_bytes, r->o.sample_fp_chain };
	struct perf_sample_host host = { r->w, sampler_emit, sampler_thread, r };
	char why[200];
	r->sampler = perf_sampler_open(r->pid, &so, &host, why, sizeof why);
	if (!r->sampler) {
		rec_warn(r, "perf_event_open refused: %s; recording without %s", why,
		     r->o.sample_hz && r->o.sched ? "samples and context switches"
		     : r->o.sample_hz ? "samples" : "context switches");
		return;
	}
	uint32_t asked, got = perf_sampler_ring_bytes(r->sampler, &asked);
	if (got < asked)
		rec_warn(r, "sample rings of %u KiB per CPU are past the locked-memory limit "
		     "(perf_event_mlock_kb, ulimit -l); took %u KiB, which may lose samples",
		     asked >> 10, got >> 10);
}

static int start_meta(struct profev_recorder *r)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	char *const *argv = r->attached ? r->attach_argv : r->o.argv;
	uint32_t argc = 0;
	while (argv[argc])
		argc++;
	struct profev_meta m = { 0 };
	m.program = argv[0];
	m.argv = (const char *const *)argv;
	m.argc = argc;
	m.pid = (uint32_t)(r->pid > 0 ? r->pid : 0);
	m.host = host;
	m.wall_start_ns = (int64_t)now_ns(CLOCK_REALTIME);
	m.mono_start_ns = r->mono_start;
	m.recorder = "pfrec " PROFEV_VERSION_STRING;
	return profev_writer_meta(r->w, &m);
}

struct profev_recorder *profev_recorder_start(const struct profev_record_opts *o,
					      struct profev_error *err)
{
	struct profev_error dummy;
	if (!err)
		err = &dummy;
	int ring = o && (o->ring_ns || o->ring_bytes);
	if (!o || ((!o->argv || !o->argv[0]) && o->attach_pid <= 0) || (!ring && o->out_fd < 0) ||
	    (ring && !o->snapshot_base)) {
		err_set(err, PROFEV_E_ARG, "no program to record");
		return NULL;
	}
	struct profev_recorder *r = calloc(1, sizeof *r);
	if (!r || !(r->buf = malloc(READ_BUF))) {
		free(r);
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		return NULL;
	}
	r->o = *o;
	r->rfd = r->pidfd = r->shm_fd = -1;
	set_rate(r, 1.0);
	u64_map_init(&r->thr_index, sizeof(struct thr_entry));
	/* Chunks are compressed and written beside the thread that decodes the
	 * stream, on the core the program leaves free when it waits for room. */
	struct profev_writer_opts wo = { o->zstd_level, 0, 1 };
	if (ring) {
		/* The chunks go to the ring, made on this thread. */
		wo.threaded = 0;
		if (!(r->ring = ring_store_new(o->ring_ns, o->ring_bytes))) {
			err_set(err, PROFEV_E_NOMEM, "out of memory");
			goto fail;
		}
		if (!(r->w = writer_new_sink(ring_store_sink, r->ring, &wo, err)))
			goto fail;
	} else if (!(r->w = profev_writer_new(o->out_fd, &wo, err))) {
		goto fail;
	}

	if (o->attach_pid > 0) {
		if (attach_connect(r, err) < 0)
			goto fail;
	} else {
		struct child_pipes c;
		if (child_fork(r, &c, err) < 0)
			goto fail;
		if (r->pid > 0 && (o->sample_hz || o->sched))
			sampler_start(r);
		child_release(r, &c);
	}
#ifdef SYS_pidfd_open
	if (r->pid > 0)
		r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
#endif
	if (start_meta(r) < 0) {
		*err = *profev_writer_error(r->w);
		profev_recorder_signal(r, SIGKILL);
		if (r->pid > 0)
			waitpid(r->pid, NULL, 0);
		goto fail;
	}
	return r;
fail:
	profev_recorder_free(r);
	return NULL;
}

int profev_recorder_pid(const struct profev_recorder *r)
{
	return r && !r->reaped ? r->pid : 0;
}

void profev_recorder_signal(struct profev_recorder *r, int sig)
{
	if (r && r->attached)
		__atomic_store_n(&r->detach_asked, 1, __ATOMIC_RELAXED); /* not ours to signal */
	else if (r && r->pid > 0 && !r->reaped)
		kill(r->pid, sig);
}

const struct profev_error *profev_recorder_error(const struct profev_recorder *r)
{
	return &r->err;
}

const char *profev_recorder_unmatched_categories(const struct profev_recorder *r)
{
	return r->cats_unmatched;
}

static void fill_stats(struct profev_recorder *r, struct profev_record_stats *s)
{
	struct profev_totals t;
	profev_writer_totals(r->w, &t);
	s->events = r->events;
	s->bytes = t.bytes;
	s->wire_bytes = r->wire_off + r->off + r->ring_bytes;
	s->lost = r->lost;
	s->elapsed_ns = now_ns(CLOCK_MONOTONIC) - r->mono_start;
	s->threads = r->threads_seen;
	if (r->sampler) {
		struct perf_sample_counts c;
		perf_sampler_counts(r->sampler, &c);
		s->samples = c.samples;
		s->switches = c.switches;
		s->lost_samples = c.lost;
	}
}

static int try_reap(struct profev_recorder *r, int block)
{
	if (r->reaped)
		return 1;
	if (r->attached) {
		/* Not our child: it ended when its pidfd says so. */
		struct pollfd p = { r->pidfd, POLLIN, 0 };
		if (r->pidfd >= 0 ? poll(&p, 1, 0) == 1 : kill(r->pid, 0) < 0 && errno == ESRCH)
			r->reaped = 1;
		return r->reaped;
	}
	pid_t p;
	while ((p = waitpid(r->pid, &r->status, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
		;
	if (p == r->pid || (p < 0 && errno == ECHILD)) {
		r->reaped = 1;
		return 1;
	}
	return 0;
}

/*
 * pfrec reads no more (the trace cannot be written, or the stream is
 * corrupt): tell the client to stop recording rather than let its threads
 * wait for room in rings nobody reads. Each shared ring says so in its
 * control page; closing the pipe tells the flush thread (EPIPE) and any
 * thread that starts later. The program runs on, unrecorded; its status is
 * still collected.
 */
static void release_client(struct profev_recorder *r)
{
	rings_stop(r);
	if (r->rfd >= 0)
		close(r->rfd);
	r->rfd = -1;
	if (r->hello && !r->reaped)
		rec_warn(r, "stopped recording; the program runs on unrecorded");
}

/* Read what the pipe has; 0 at EOF, 1 if data or nothing yet. */
static int read_some(struct profev_recorder *r)
{
	if (r->off > 0) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->wire_off += r->off;
		r->off = 0;
	}
	if (r->bad || r->len == READ_BUF) {
		/* A full buffer holds no complete message: only a bad stream does that. */
		if (!r->bad)
			stream_corrupt(r, "message larger than the read buffer");
		r->wire_off += r->len;
		r->len = 0;
	}
	ssize_t n = read(r->rfd, r->buf + r->len, READ_BUF - r->len);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	r->len += (size_t)n;
	decode_stream(r);
	return 1;
}

/* The last metadata chunk (the exit fields from res, unless NULL: a limit
 * ended the recording) and the end chunk. 0 or the error code. */
static int finish_trace(struct profev_recorder *r, const struct profev_record_result *res)
{
	struct profev_meta m = { 0 };
	if (res) {
		m.exit_kind = res->exit_kind;
		m.exit_code = res->exit_code;
	}
	m.end_ns = now_ns(CLOCK_MONOTONIC);
	m.lost_events = r->lost;
	m.dropped_args = r->dropped_args;
	m.lost_images = r->img.lost;
	m.refused_images = r->img.refused;
	if (r->hello) {
		m.ticks_per_ns = 1.0 / r->ns_per_tick;
		m.tick_base = r->h.tick0;
	}
	if (r->stopped && r->sampler && !r->err.code && perf_sampler_drain(r->sampler, 1) < 0)
		writer_failed(r);
	/* The zones open when a limit stopped the recording end there. */
	if (r->stopped && !r->err.code && !r->ring)
		open_zones_emit(r, m.end_ns);
	int rc = r->err.code ? r->err.code : 0;
	if (r->ring) {
		/* pfrec's end: the last snapshot, which holds the exit fields */
		const char *why = r->stopped == PROFEV_STOP_DURATION ? "duration"
				  : r->attached && r->detached ? "detach"
				  : res && res->exit_kind == PROFEV_EXIT_SIGNALED &&
				    (res->exit_code == SIGSEGV || res->exit_code == SIGBUS || res->exit_code == SIGILL ||
				     res->exit_code == SIGFPE || res->exit_code == SIGABRT) ? "crash" : "exit";
		if (!rc)
			triggers_end(r, why, res ? &m : NULL);
		return rc;
	}
	if (!rc && (profev_writer_meta(r->w, &m) < 0 || profev_writer_close(r->w) < 0)) {
		writer_failed(r);
		rc = r->err.code;
	}
	return rc;
}

int profev_recorder_run(struct profev_recorder *r, struct profev_record_result *res)
{
	memset(res, 0, sizeof *res);
	uint64_t next_progress = now_ns(CLOCK_MONOTONIC) + r->o.progress_ns;
	uint64_t exited_at = 0;
	while (r->rfd >= 0) {
		struct pollfd p[2 + 256] = { { r->rfd, POLLIN, 0 }, { r->pidfd, POLLIN, 0 } };
		int np = r->pidfd >= 0 && !r->reaped ? 2 : 1;
		int timeout = r->o.progress_ns ? (int)(r->o.progress_ns / 1000000) + 1 : 1000;
		if (r->reaped || r->pidfd < 0)
			timeout = 20;
		int nperf = 0;
		if (r->sampler) {
			/* The pollfds after the two: the rings, woken when a
			 * quarter full; the timeout hands held events over. */
			nperf = perf_sampler_pollfds(r->sampler, p + 2, 256);
			if (np == 1)
				p[1].fd = -1;
			if (timeout > 50)
				timeout = 50;
		}
		timeout = limits_timeout(r, now_ns(CLOCK_MONOTONIC), timeout);
		if (r->ring)
			timeout = triggers_timeout(r, now_ns(CLOCK_MONOTONIC), timeout > 100 ? 100 : timeout);
		int asked = __atomic_load_n(&r->detach_asked, __ATOMIC_RELAXED);
		if (r->attached && (asked || r->detach_sent))
			timeout = 20;
		int k = poll(p, (nfds_t)(nperf ? 2 + nperf : np), timeout);
		if (k < 0 && errno != EINTR)
			break;
		if (r->attached && asked)
			attach_detach(r);
		if (r->detach_sent && r->rfd >= 0 && now_ns(CLOCK_MONOTONIC) > r->detach_deadline) {
			rec_warn(r, "process %d did not end the recording in 2 s; stopped reading", r->pid);
			close(r->rfd);
			r->rfd = -1;
			break;
		}
		if (r->sampler && !r->bad && perf_sampler_drain(r->sampler, 0) < 0)
			writer_failed(r);
		if (k > 0 && p[0].revents) {
			if (!read_some(r)) {
				close(r->rfd);
				r->rfd = -1;
			} else if (r->bad) {
				release_client(r);
			}
		}
		if ((np == 2 && p[1].revents) || r->pidfd < 0)
			try_reap(r, 0);
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		if (r->reaped && r->rfd >= 0) {
			/* The program is gone but something it started holds the
			 * pipe; do not wait for that process. */
			if (!exited_at)
				exited_at = now;
			if (k > 0 && p[0].revents)
				exited_at = now;
			else if (now - exited_at > LINGER_NS) {
				rec_warn(r, "a process started by the program still holds the trace "
					"stream; stopped reading it");
				close(r->rfd);
				r->rfd = -1;
			}
		}
		if (r->ring)
			triggers_poll(r, now);
		if (r->rfd >= 0 && (r->stopped = limits_reached(r, now))) {
			/* A limit: the client is told nobody reads, and the loop ends. */
			rings_stop(r);
			close(r->rfd);
			r->rfd = -1;
			break;
		}
		if (r->o.progress && r->o.progress_ns && now >= next_progress) {
			fill_stats(r, &res->stats);
			r->o.progress(r->o.ctx, &res->stats);
			next_progress = now + r->o.progress_ns;
		}
	}
	if (r->in_events && r->body_left && !r->bad && !r->stopped)
		rec_warn(r, "client stream ends inside a message; its last %u bytes are lost",
		     r->body_left);
	/* After a detach the rings are the program's again: nothing more is
	 * ours in them. */
	if (!r->detached)
		rings_drain(r);
	if (r->detach_sent && !r->bad && !r->stopped && window_end(r, 0, 0) < 0)
		writer_failed(r);
	res->sampled = r->sampler != NULL;
	int rc = 0;
	if (r->stopped) {
		/* Finished now, while the program runs on. */
		rc = finish_trace(r, NULL);
		fill_stats(r, &res->stats);
		perf_sampler_free(r->sampler);
		r->sampler = NULL;
		res->stopped = r->stopped;
		if (r->o.stopped && !rc)
			r->o.stopped(r->o.ctx, r->stopped, &res->stats);
		if (r->o.kill_at_end)
			profev_recorder_signal(r, SIGTERM);
	}
	try_reap(r, !r->attached);
	if (!r->stopped && r->sampler && !r->err.code && perf_sampler_drain(r->sampler, 1) < 0)
		writer_failed(r);

	if (r->attached) {
		res->exit_kind = PROFEV_EXIT_UNKNOWN; /* runs on, or not ours to know */
		res->detached = (r->detached || r->stopped) && !r->reaped;
	} else if (r->nostart_errno) {
		res->exit_kind = PROFEV_EXIT_NOSTART;
		res->exit_code = r->nostart_errno;
		res->status = r->nostart_errno == ENOENT ? 127 : 126;
	} else if (WIFSIGNALED(r->status)) {
		res->exit_kind = PROFEV_EXIT_SIGNALED;
		res->exit_code = WTERMSIG(r->status);
		res->status = 128 + res->exit_code;
	} else {
		res->exit_kind = PROFEV_EXIT_EXITED;
		res->exit_code = WEXITSTATUS(r->status);
		res->status = res->exit_code;
	}
	res->client = r->hello;
	categories_unmatched(r);
	if (r->stopped)
		return rc;
	rc = finish_trace(r, res);
	fill_stats(r, &res->stats);
	return rc;
}

void profev_recorder_free(struct profev_recorder *r)
{
	if (!r)
		return;
	profev_writer_free(r->w);
	perf_sampler_free(r->sampler);
	if (r->rfd >= 0)
		close(r->rfd);
	if (r->pidfd >= 0)
		close(r->pidfd);
	threads_free(r);
	if (r->shm_fd >= 0)
		close(r->shm_fd);
	free(r->strings);
	free(r->cats);
	module_map_free(&r->mods);
	free(r->buf);
	free(r->attach_argv[0]);
	rec_images_free(&r->img);
	ring_store_free(r->ring);
	free(r);
}
