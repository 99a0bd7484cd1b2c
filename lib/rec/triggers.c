/*
 * pfrec --ring's triggers: a snapshot asked for (SIGUSR1 through
 * profev_recorder_snapshot(), pfrec's end) is an event in the recording,
 * and a snapshot written --after later; at most one per --min-interval,
 * a trigger while one waits moving it later rather than writing the same
 * seconds twice.
 */
#include "rec/rec_internal.h"
#include "rec/ring_store.h"

void profev_recorder_snapshot(struct profev_recorder *r)
{
	if (r)
		r->snap_asked = 1; /* async-signal-safe: the poll loop acts on it */
}

void trigger(struct profev_recorder *r, const char *reason, uint32_t tid, uint64_t now)
{
	struct profev_event ev;
	memset(&ev, 0, sizeof ev);
	ev.ts = now;
	ev.tid = tid ? tid : (uint32_t)(r->pid > 0 ? r->pid : 0);
	ev.type = PROFEV_EV_TRIGGER;
	ev.name = name_id(r, reason, strlen(reason));
	ev.payload = r->snap_seq + 1;
	if (ev.name)
		emit_event(r, &ev);
	uint64_t due = now + r->o.after_ns;
	if (r->snap_pending) {
		if (due > r->snap_due)
			r->snap_due = due; /* extends the one that waits */
		return;
	}
	uint64_t gap = r->o.min_interval_ns;
	if (r->last_snap_ns && due < r->last_snap_ns + gap)
		due = r->last_snap_ns + gap;
	r->snap_pending = 1;
	r->snap_due = due;
}

static void write_now(struct profev_recorder *r, const struct profev_meta *exit_meta)
{
	char path[4096 + 16];
	r->snap_pending = 0;
	if (snapshot_write(r, exit_meta, path, sizeof path) == 0 && r->o.snapshot)
		r->o.snapshot(r->o.ctx, path);
}

void triggers_poll(struct profev_recorder *r, uint64_t now)
{
	if (r->snap_asked) {
		r->snap_asked = 0;
		trigger(r, "SIGUSR1", 0, now);
	}
	if (r->snap_pending && now >= r->snap_due && !r->bad)
		write_now(r, NULL);
	/* Chunks every RING_FLUSH_NS: the ring lets go of whole chunks, so
	 * they bound how exactly it keeps its time. */
	if (now - r->ring_flushed >= RING_FLUSH_NS && !r->bad) {
		r->ring_flushed = now;
		if (profev_writer_flush(r->w) < 0)
			writer_failed(r);
	}
	ring_store_trim(r->ring, now);
}

int triggers_timeout(const struct profev_recorder *r, uint64_t now, int timeout_ms)
{
	if (!r->snap_pending)
		return timeout_ms;
	if (now >= r->snap_due)
		return 0;
	uint64_t ms = (r->snap_due - now + 999999) / 1000000;
	return ms < (uint64_t)timeout_ms ? (int)ms : timeout_ms;
}

void triggers_end(struct profev_recorder *r, const char *reason, const struct profev_meta *exit_meta)
{
	if (r->o.ring_discard_at_exit && !r->snap_pending)
		return;
	if (!r->o.ring_discard_at_exit)
		trigger(r, reason, 0, now_ns(CLOCK_MONOTONIC));
	write_now(r, exit_meta);
}
