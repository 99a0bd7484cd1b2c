/*
 * The limits of an unattended run (pfrec --duration, --max-size): whether
 * one is reached, and how long the poll loop may sleep before the next is
 * due. recorder.c stops the recording and finishes the trace there.
 */
#include "rec/rec_internal.h"

int limits_timeout(const struct profev_recorder *r, uint64_t now, int timeout_ms)
{
	if (!r->o.duration_ns || r->stopped)
		return timeout_ms;
	uint64_t end = r->mono_start + r->o.duration_ns;
	if (now >= end)
		return 0;
	uint64_t ms = (end - now + 999999) / 1000000;
	return ms < (uint64_t)timeout_ms ? (int)ms : timeout_ms;
}

int limits_reached(const struct profev_recorder *r, uint64_t now)
{
	if (r->stopped)
		return r->stopped;
	if (r->o.duration_ns && now - r->mono_start >= r->o.duration_ns)
		return PROFEV_STOP_DURATION;
	if (r->o.max_bytes) {
		struct profev_totals t;
		profev_writer_totals(r->w, &t);
		if (t.bytes >= r->o.max_bytes)
			return PROFEV_STOP_SIZE;
	}
	return PROFEV_STOP_NONE;
}
