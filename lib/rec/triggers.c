/*
 * Triggers: a snapshot asked for (SIGUSR1 through
 * profev_recorder_snapshot(), the program's PROFEV_TRIGGER, pfrec's end)
 * is an event in the recording, and under --ring a snapshot written
 * --after later. At most one per --min-interval: a trigger while one
 * waits makes it end later (by up to the interval), and a trigger within
 * the interval after the last snapshot is recorded but writes none, which
 * pfrec says rather than writing the same seconds twice.
 */
#include <inttypes.h>
#include "rec/rec_internal.h"
#include "rec/ring_store.h"

void profev_recorder_snapshot(struct profev_recorder *r)
{
	if (r)
		r->snap_asked = 1; /* async-signal-safe: the poll loop acts on it */
}

static void trigger_event(struct profev_recorder *r, const char *reason, size_t len, uint32_t tid,
			  uint64_t ts, uint64_t snapshot)
{
	struct profev_event ev;
	memset(&ev, 0, sizeof ev);
	ev.ts = ts;
	ev.tid = tid ? tid : (uint32_t)(r->pid > 0 ? r->pid : 0);
	ev.type = PROFEV_EV_TRIGGER;
	ev.name = name_id(r, reason, len);
	ev.payload = snapshot;
	if (ev.name)
		emit_event(r, &ev);
}

static void trigger_len(struct profev_recorder *r, const char *reason, size_t len, uint32_t tid,
			uint64_t now)
{
	if (!r->ring) {
		trigger_event(r, reason, len, tid, now, 0); /* a moment, nothing more */
		return;
	}
	uint64_t due = now + r->o.after_ns, gap = r->o.min_interval_ns;
	if (r->snap_pending) {
		uint64_t cap = gap ? r->snap_first_due + gap : UINT64_MAX;
		if (due > cap)
			due = cap;
		if (due > r->snap_due) {
			rec_warn(r, "trigger '%.*s' joins snapshot %u, now written %.1f s later", (int)len,
				 reason, r->snap_seq + 1, (double)(due - r->snap_due) / 1e9);
			r->snap_due = due;
		}
		trigger_event(r, reason, len, tid, now, r->snap_seq + 1);
		return;
	}
	if (r->last_snap_ns && now < r->last_snap_ns + gap) {
		trigger_event(r, reason, len, tid, now, 0);
		rec_warn(r, "trigger '%.*s' ignored: snapshot %u was written %.1f s before (--min-interval %.1f s)",
			 (int)len, reason, r->snap_seq,
			 now > r->last_snap_ns ? (double)(now - r->last_snap_ns) / 1e9 : 0.0, (double)gap / 1e9);
		return;
	}
	r->snap_pending = 1;
	r->snap_due = r->snap_first_due = due;
	trigger_event(r, reason, len, tid, now, r->snap_seq + 1);
}

void trigger(struct profev_recorder *r, const char *reason, uint32_t tid, uint64_t now)
{
	trigger_len(r, reason, strlen(reason), tid, now);
}

int trigger_message(struct profev_recorder *r, uint32_t tid, const unsigned char *b, uint32_t len)
{
	struct pfw_trigger t;
	if (len < sizeof t)
		return -1;
	memcpy(&t, b, sizeof t);
	if (t.reason_len > PFW_MAX_REASON || t.reason_len > len - sizeof t)
		return -1;
	if (!thread_find(r, tid) && !thread_get(r, tid, NULL, 0))
		return -2;
	const char *reason = (const char *)b + sizeof t;
	size_t n = t.reason_len;
	if (!n)
		reason = "trigger", n = 7;
	trigger_len(r, reason, n, tid, tick_to_ns(r, t.tick));
	return r->bad ? -2 : 0;
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
	if (!r->o.ring_discard_at_exit) {
		/* pfrec's end writes one whatever --min-interval says */
		if (!r->snap_pending) {
			r->snap_pending = 1;
			r->snap_due = r->snap_first_due = 0;
		}
		trigger_event(r, reason, strlen(reason), 0, now_ns(CLOCK_MONOTONIC), r->snap_seq + 1);
	}
	write_now(r, exit_meta);
}
