/* The client's GPU messages (formats/wire.md, "GPU"): contexts,
 * calibrations, zones and lost zones, into the trace's gpu chunks. A zone
 * keeps its GPU ticks; readers place them with the calibrations. */
#include <math.h>
#include <string.h>
#include "rec/rec_internal.h"

/* The trace time of a client tick, without any thread's order. */
static uint64_t tick_ns(const struct profev_recorder *r, uint64_t tick)
{
	if (tick < r->h.tick0)
		return early_tick_ns(r, tick);
	uint64_t d = tick - r->h.tick0;
	return r->h.mono0 + d * r->ns_whole + (uint64_t)(((unsigned __int128)d * r->ns_frac) >> 64);
}

static int gpu_context(struct profev_recorder *r, uint32_t tid, const unsigned char *b, uint32_t len)
{
	struct pfw_gpu_context m;
	if (len < sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	if (m.ctx >= PFW_GPU_MAX_CONTEXTS || m.name_len > PFW_GPU_MAX_NAME || m.name_len != len - sizeof m)
		return -1;
	if (!(m.period_ns > 0 && m.period_ns < 1e9)) {
		rec_warn(r, "GPU context %u has an impossible period (%g ns per tick); its zones "
			     "will not be placed", m.ctx, m.period_ns);
	}
	char name[PFW_GPU_MAX_NAME + 1];
	memcpy(name, b + sizeof m, m.name_len);
	name[m.name_len] = 0;
	struct profev_gpu_context c = { .id = m.ctx, .kind = m.kind, .tid = tid, .period_ns = m.period_ns };
	return profev_writer_gpu_context(r->w, &c, name) < 0 ? writer_failed(r), -2 : 0;
}

static int gpu_calibration(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_gpu_calibration m;
	if (len != sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	if (m.ctx >= PFW_GPU_MAX_CONTEXTS)
		return -1;
	struct profev_gpu_calibration c = { m.ctx, m.error_ns, m.gpu, m.mono };
	return profev_writer_gpu_calibration(r->w, &c) < 0 ? writer_failed(r), -2 : 0;
}

static int gpu_zones(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_gpu_zones m;
	if (len < sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	if (m.ctx >= PFW_GPU_MAX_CONTEXTS || m.n > PFW_GPU_ZONES_MAX ||
	    len != sizeof m + (size_t)m.n * sizeof(struct pfw_gpu_zone))
		return -1;
	struct profev_gpu_zone z[64];
	uint32_t k = 0;
	for (uint32_t i = 0; i < m.n; i++) {
		struct pfw_gpu_zone w;
		memcpy(&w, b + sizeof m + (size_t)i * sizeof w, sizeof w);
		z[k++] = (struct profev_gpu_zone){ .gpu_begin = w.gpu_begin, .gpu_end = w.gpu_end,
						   .cpu_ns = tick_ns(r, w.tick), .ctx = m.ctx,
						   .name = map_string(r, w.name), .tid = w.tid };
		if (k == 64 || i + 1 == m.n) {
			if (profev_writer_gpu_zones(r->w, z, k) < 0)
				return writer_failed(r), -2;
			k = 0;
		}
	}
	return 0;
}

static int gpu_lost(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_gpu_lost m;
	if (len != sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	if (m.ctx >= PFW_GPU_MAX_CONTEXTS)
		return -1;
	return profev_writer_gpu_lost(r->w, m.ctx, m.count) < 0 ? writer_failed(r), -2 : 0;
}

int decode_gpu(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b)
{
	switch (h->type) {
	case PFW_GPU_CONTEXT: return gpu_context(r, h->tid, b, h->len);
	case PFW_GPU_CALIBRATION: return gpu_calibration(r, b, h->len);
	case PFW_GPU_ZONES: return gpu_zones(r, b, h->len);
	case PFW_GPU_LOST: return gpu_lost(r, b, h->len);
	}
	return 0;
}
