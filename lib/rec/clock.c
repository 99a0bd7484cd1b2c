/* The client's clock (rec_internal.h): the calibration its HELLO and SYNC
 * messages give, and the tick-to-nanosecond conversion's constants. */
#include <string.h>
#include "rec/rec_internal.h"

/*
 * Counters run between 10 kHz and 1 THz (an arm64 virtual counter at 1 MHz
 * is 0.001 ticks/ns, a TSC at 5 GHz 5): a rate outside [1e-4, 1e3] is not a
 * calibration but a corrupt or hostile client, and would make the tick's
 * length infinite or zero.
 */
static int plausible_rate(double ticks_per_ns)
{
	return ticks_per_ns >= 1e-4 && ticks_per_ns <= 1e3;
}

void set_rate(struct profev_recorder *r, double ticks_per_ns)
{
	if (!plausible_rate(ticks_per_ns))
		return;
	r->ns_per_tick = 1.0 / ticks_per_ns;
	/* An integer multiply per event instead of two conversions and a
	 * double multiply, at the same precision. */
	double whole = r->ns_per_tick < 1e9 ? (double)(uint64_t)r->ns_per_tick : 1e9;
	r->ns_whole = (uint64_t)whole;
	r->ns_frac = (uint64_t)((r->ns_per_tick - whole) * 18446744073709551616.0);
}

static int meta_clock(struct profev_recorder *r)
{
	struct profev_meta m = { 0 };
	m.ticks_per_ns = 1.0 / r->ns_per_tick;
	m.tick_base = r->h.tick0;
	m.clock = r->h.clock == PFW_CLOCK_MONOTONIC ? "monotonic"
		  : r->h.clock == PFW_CLOCK_TSC ? "tsc" : "cntvct";
	if (r->clock_unreliable)
		m.clock = r->h.clock == PFW_CLOCK_TSC ? "tsc (unreliable calibration)"
						      : "cntvct (unreliable calibration)";
	if (profev_writer_meta(r->w, &m) < 0)
		return writer_failed(r);
	return 0;
}

int clock_hello(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	if (len < sizeof r->h)
		return -1;
	memcpy(&r->h, b, sizeof r->h);
	if (r->h.version != PFW_VERSION) {
		rec_warn(r, "client speaks wire version %u, this pfrec %u", r->h.version, PFW_VERSION);
		return -1;
	}
	r->hello = 1;
	if (r->h.clock == PFW_CLOCK_MONOTONIC) {
		r->h.ticks_per_ns = 1.0; /* nanoseconds whatever the client says */
	} else if (!plausible_rate(r->h.ticks_per_ns)) {
		/* Until a SYNC point gives a plausible rate, a tick counts as a
		 * nanosecond: the order of events stays, their times do not. */
		rec_warn(r, "the client's clock calibration (%g ticks/ns) is not plausible; its "
			     "timestamps are unreliable", r->h.ticks_per_ns);
		r->clock_unreliable = 1;
		r->h.ticks_per_ns = 1.0;
	}
	set_rate(r, r->h.ticks_per_ns);
	return meta_clock(r);
}

void clock_sync(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_sync s;
	if (len < sizeof s)
		return;
	memcpy(&s, b, sizeof s);
	/* The longest baseline gives the best rate; later timestamps keep the
	 * first point as origin so the conversion stays one line. */
	if (r->h.clock == PFW_CLOCK_MONOTONIC || s.mono <= r->h.mono0 + 10000000 || s.tick <= r->h.tick0)
		return;
	double rate = (double)(s.tick - r->h.tick0) / (double)(s.mono - r->h.mono0);
	if (!plausible_rate(rate))
		return; /* refused, like an implausible HELLO */
	set_rate(r, rate);
	if (r->clock_unreliable) {
		r->clock_unreliable = 0;
		rec_warn(r, "a later calibration point gives %g ticks/ns; timestamps from then on "
			     "are reliable", rate);
	}
}

/* A tick before tick0 (another CPU's counter may lag a little). */
uint64_t early_tick_ns(const struct profev_recorder *r, uint64_t tick)
{
	int64_t d = (int64_t)(tick - r->h.tick0);
	int64_t ns = (int64_t)r->h.mono0 + (int64_t)((double)d * r->ns_per_tick);
	return ns < 0 ? 0 : (uint64_t)ns;
}

uint64_t tick_to_ns(const struct profev_recorder *r, uint64_t tick)
{
	if (tick < r->h.tick0)
		return early_tick_ns(r, tick);
	uint64_t d = tick - r->h.tick0;
	return r->h.mono0 + d * r->ns_whole + (uint64_t)(((unsigned __int128)d * r->ns_frac) >> 64);
}
