/* GPU contexts, calibrations and zones (formats/trace.md, "GPU"): the
 * writer's coding of the gpu and gpu zones chunks, and the reader's
 * decoding, which keeps each context's latest calibrations and maps GPU
 * ticks onto the CPU timeline piecewise between them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "trace/trace_internal.h"

enum { GPU_DEF_CONTEXT = 1, GPU_DEF_CALIBRATION = 2, GPU_DEF_LOST = 3 };

/* ---- writing ---- */

struct gpu_enc *gpu_enc_new(void)
{
	return calloc(1, sizeof(struct gpu_enc));
}

void gpu_enc_free(struct gpu_enc *e)
{
	if (!e)
		return;
	buf_free(&e->defs);
	buf_free(&e->zones);
	free(e);
}

static int put_f64(struct buf *b, double v)
{
	uint64_t bits;
	uint8_t le[8];
	memcpy(&bits, &v, 8);
	put_le64(le, bits);
	return buf_put(b, le, 8);
}

int gpu_enc_context(struct gpu_enc *e, const struct profev_gpu_context *c, uint32_t name)
{
	if (buf_varint(&e->defs, GPU_DEF_CONTEXT) || buf_varint(&e->defs, c->id) ||
	    buf_varint(&e->defs, name) || buf_varint(&e->defs, c->kind) || buf_varint(&e->defs, c->tid) ||
	    put_f64(&e->defs, c->period_ns))
		return PROFEV_E_NOMEM;
	e->ndefs++;
	return 0;
}

int gpu_enc_calibration(struct gpu_enc *e, const struct profev_gpu_calibration *c)
{
	if (buf_varint(&e->defs, GPU_DEF_CALIBRATION) || buf_varint(&e->defs, c->ctx) ||
	    buf_varint(&e->defs, c->gpu) || buf_varint(&e->defs, c->cpu_ns) ||
	    buf_varint(&e->defs, c->error_ns))
		return PROFEV_E_NOMEM;
	e->ndefs++;
	return 0;
}

int gpu_enc_lost(struct gpu_enc *e, uint32_t ctx, uint64_t n)
{
	if (buf_varint(&e->defs, GPU_DEF_LOST) || buf_varint(&e->defs, ctx) || buf_varint(&e->defs, n))
		return PROFEV_E_NOMEM;
	e->ndefs++;
	return 0;
}

int gpu_enc_zone(struct gpu_enc *e, const struct profev_gpu_zone *z)
{
	if (z->ctx >= PROFEV_GPU_MAX_CONTEXTS)
		return PROFEV_E_ARG;
	if (!e->nzones)
		memset(e->prev, 0, sizeof e->prev);
	uint64_t *p = e->prev[z->ctx];
	if (buf_varint(&e->zones, z->ctx) || buf_varint(&e->zones, z->name) || buf_varint(&e->zones, z->tid) ||
	    buf_varint(&e->zones, zigzag((int64_t)(z->cpu_ns - p[0]))) ||
	    buf_varint(&e->zones, zigzag((int64_t)(z->gpu_begin - p[1]))) ||
	    buf_varint(&e->zones, zigzag((int64_t)(z->gpu_end - z->gpu_begin))))
		return PROFEV_E_NOMEM;
	p[0] = z->cpu_ns;
	p[1] = z->gpu_begin;
	e->nzones++;
	return 0;
}

/* ---- reading ---- */

/* Calibrations kept per context: zones arrive a few frames after their
 * time, so the latest ones place them. */
#define CAL_KEEP 64u

struct gpu_cal {
	uint64_t gpu, cpu;
};

struct gpu_ctx {
	struct profev_gpu_context pub;
	struct gpu_cal cal[CAL_KEEP]; /* a ring, oldest at first, increasing */
	uint32_t first, n;
	struct gpu_cal origin;        /* the first accepted, for drift_ppm */
};

struct gpu_dec {
	struct gpu_ctx *ctx[PROFEV_GPU_MAX_CONTEXTS];
	struct profev_gpu_zone *zones;
	uint32_t nzones, cap;
	profev_gpu_zones_fn fn;
	void *arg;
};

struct gpu_dec *gpu_dec_new(void)
{
	return calloc(1, sizeof(struct gpu_dec));
}

void gpu_dec_free(struct gpu_dec *d)
{
	if (!d)
		return;
	for (unsigned i = 0; i < PROFEV_GPU_MAX_CONTEXTS; i++)
		free(d->ctx[i]);
	free(d->zones);
	free(d);
}

void gpu_dec_handler(struct gpu_dec *d, profev_gpu_zones_fn fn, void *arg)
{
	d->fn = fn;
	d->arg = arg;
}

const struct profev_gpu_context *gpu_dec_context(const struct gpu_dec *d, uint32_t id)
{
	return d && id < PROFEV_GPU_MAX_CONTEXTS && d->ctx[id] ? &d->ctx[id]->pub : NULL;
}

static int period_ok(double p)
{
	return isfinite(p) && p > 0 && p < 1e9;
}

static const struct gpu_cal *cal_at(const struct gpu_ctx *c, uint32_t i)
{
	return &c->cal[(c->first + i) % CAL_KEEP];
}

/* A calibration is accepted when both clocks moved forward since the
 * previous one; anything else is impossible and would fold time. */
static void calibrate(struct gpu_ctx *c, uint64_t gpu, uint64_t cpu, uint64_t error)
{
	if (!period_ok(c->pub.period_ns)) {
		c->pub.bad_calibrations++;
		return;
	}
	if (c->n) {
		const struct gpu_cal *last = cal_at(c, c->n - 1);
		if (gpu <= last->gpu || cpu <= last->cpu) {
			c->pub.bad_calibrations++;
			return;
		}
		double predicted = (double)last->cpu + (double)(gpu - last->gpu) * c->pub.period_ns;
		double drift = fabs((double)cpu - predicted);
		if (drift > c->pub.max_drift_ns)
			c->pub.max_drift_ns = drift;
		double span = (double)(cpu - c->origin.cpu);
		double expect = (double)(gpu - c->origin.gpu) * c->pub.period_ns;
		c->pub.drift_ppm = span > 0 ? ((double)span - expect) / expect * 1e6 : 0;
	} else {
		c->origin = (struct gpu_cal){ gpu, cpu };
	}
	if (c->n == CAL_KEEP) {
		c->first = (c->first + 1) % CAL_KEEP;
		c->n--;
	}
	c->cal[(c->first + c->n) % CAL_KEEP] = (struct gpu_cal){ gpu, cpu };
	c->n++;
	c->pub.calibrations++;
	if (error > c->pub.error_ns)
		c->pub.error_ns = error;
}

static int map_tick(const struct gpu_ctx *c, uint64_t gpu, uint64_t *ns)
{
	if (!c || !c->n || !period_ok(c->pub.period_ns))
		return -1;
	/* The last calibration at or before gpu (the first if none is). */
	uint32_t lo = 0, hi = c->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cal_at(c, mid)->gpu <= gpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t k = lo ? lo - 1 : 0;
	const struct gpu_cal *a = cal_at(c, k);
	double rate = c->pub.period_ns;
	if (lo && k + 1 < c->n) {
		const struct gpu_cal *b = cal_at(c, k + 1);
		rate = (double)(b->cpu - a->cpu) / (double)(b->gpu - a->gpu);
	}
	double d = gpu >= a->gpu ? (double)(gpu - a->gpu) : -(double)(a->gpu - gpu);
	double v = (double)a->cpu + d * rate;
	if (!(v >= 1) || v > 1.8e19)
		return -1;
	*ns = (uint64_t)llround(v);
	return 0;
}

int gpu_dec_time(const struct gpu_dec *d, uint32_t ctx, uint64_t gpu, uint64_t *ns)
{
	if (!d || ctx >= PROFEV_GPU_MAX_CONTEXTS)
		return -1;
	return map_tick(d->ctx[ctx], gpu, ns);
}

static double get_f64(struct cursor *cur)
{
	const uint8_t *p = cur_take(cur, 8);
	if (!p)
		return 0;
	uint64_t bits = get_le64(p);
	double v;
	memcpy(&v, &bits, 8);
	return v;
}

int gpu_dec_defs(struct gpu_dec *d, struct cursor *cur, uint32_t count, uint32_t nstrings)
{
	if ((uint64_t)count * 3 > (uint64_t)(cur->end - cur->p))
		return -1;
	for (uint32_t i = 0; i < count && !cur->bad; i++) {
		uint64_t what = cur_varint(cur), id = cur_varint(cur);
		if (id >= PROFEV_GPU_MAX_CONTEXTS)
			return -1;
		struct gpu_ctx *c = d->ctx[id];
		if (what == GPU_DEF_CONTEXT) {
			uint64_t name = cur_varint(cur), kind = cur_varint(cur), tid = cur_varint(cur);
			double period = get_f64(cur);
			if (name > nstrings || tid > UINT32_MAX)
				return -1;
			if (c && c->pub.period_ns == period) { /* renamed */
				c->pub.name = (uint32_t)name;
				continue;
			}
			if (!c && !(c = d->ctx[id] = calloc(1, sizeof *c)))
				return PROFEV_E_NOMEM;
			/* A context made again with another clock starts again. */
			memset(c, 0, sizeof *c);
			c->pub = (struct profev_gpu_context){ .id = (uint32_t)id, .name = (uint32_t)name,
							      .kind = (uint32_t)(kind > 255 ? 0 : kind),
							      .tid = (uint32_t)tid, .period_ns = period };
		} else if (what == GPU_DEF_CALIBRATION) {
			uint64_t gpu = cur_varint(cur), cpu = cur_varint(cur), error = cur_varint(cur);
			if (!c)
				return -1;
			calibrate(c, gpu, cpu, error);
		} else if (what == GPU_DEF_LOST) {
			uint64_t n = cur_varint(cur);
			if (!c)
				return -1;
			c->pub.lost += n;
		} else {
			return -1;
		}
	}
	return cur->bad ? -1 : 0;
}

int gpu_dec_zones(struct gpu_dec *d, struct cursor *cur, uint32_t count, uint32_t nstrings,
		  const struct profev_gpu_zone **out, uint32_t *nout)
{
	*out = NULL;
	*nout = 0;
	/* Each zone takes six varints. */
	if ((uint64_t)count * 6 > (uint64_t)(cur->end - cur->p))
		return -1;
	if (array_grow((void **)&d->zones, &d->cap, sizeof *d->zones, count))
		return PROFEV_E_NOMEM;
	uint64_t prev[PROFEV_GPU_MAX_CONTEXTS][2];
	memset(prev, 0, sizeof prev);
	for (uint32_t i = 0; i < count; i++) {
		struct profev_gpu_zone *z = &d->zones[i];
		uint64_t ctx = cur_varint(cur), name = cur_varint(cur), tid = cur_varint(cur);
		if (cur->bad || ctx >= PROFEV_GPU_MAX_CONTEXTS || !d->ctx[ctx] || name > nstrings ||
		    tid > UINT32_MAX)
			return -1;
		uint64_t *p = prev[ctx];
		z->ctx = (uint32_t)ctx;
		z->name = (uint32_t)name;
		z->tid = (uint32_t)tid;
		z->cpu_ns = p[0] += (uint64_t)unzigzag(cur_varint(cur));
		z->gpu_begin = p[1] += (uint64_t)unzigzag(cur_varint(cur));
		z->gpu_end = z->gpu_begin + (uint64_t)unzigzag(cur_varint(cur));
		z->flags = 0;
		struct gpu_ctx *c = d->ctx[ctx];
		if (z->gpu_end < z->gpu_begin) {
			z->flags |= PROFEV_GPUZ_BACKWARDS;
			z->gpu_end = z->gpu_begin;
		}
		if (map_tick(c, z->gpu_begin, &z->begin_ns) || map_tick(c, z->gpu_end, &z->end_ns)) {
			z->flags |= PROFEV_GPUZ_UNMAPPED;
			z->begin_ns = z->end_ns = 0;
			c->pub.unmapped++;
		} else if (z->end_ns < z->begin_ns) {
			z->end_ns = z->begin_ns;
		}
	}
	if (cur->bad)
		return -1;
	d->nzones = count;
	*out = d->zones;
	*nout = count;
	if (d->fn && count)
		d->fn(d->arg, d->zones, count);
	return 0;
}
