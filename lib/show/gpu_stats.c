/* GPU zones in pfdump (gpu_stats.h). Memory: one entry per distinct
 * (context, name) and one per outermost zone (a few per frame), as the
 * frame statistics keep one per frame. */
#include <inttypes.h>
#include <stdlib.h>
#include "common/common.h"
#include "common/u64_map.h"
#include "show/frame_report.h"
#include "show/gpu_stats.h"

int gpu_zone_events(struct time_order *o, const struct profev_reader *r, const struct profev_gpu_zone *z,
		    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (z[i].flags & PROFEV_GPUZ_UNMAPPED)
			continue;
		struct profev_event ev = { 0 };
		ev.ts = z[i].begin_ns;
		ev.frame = z[i].ctx;
		ev.payload = z[i].end_ns - z[i].begin_ns;
		ev.tid = z[i].tid;
		ev.name = z[i].name;
		ev.type = PROFEV_EV_GPU_ZONE;
		struct profev_event_info in = { .name = "", .category = "", .thread =
			profev_reader_thread_name(r, z[i].tid), .text = "", .text_len = 0 };
		if (time_order_add(o, &ev, &in))
			return -1;
	}
	return 0;
}

const char *gpu_context_name(const struct profev_reader *r, uint32_t ctx)
{
	const struct profev_gpu_context *c = profev_reader_gpu_context(r, ctx);
	return c ? profev_reader_string(r, c->name) : "";
}

struct busy {
	uint64_t begin, end;
};

struct gpu_ctx_stat {
	struct busy *busy;            /* outermost zones, merged when they touch */
	uint32_t nbusy, capbusy;
	uint64_t zones, backwards, unmapped;
};

struct name_entry {
	uint64_t key;                 /* (ctx << 32 | name) + 1 */
	struct profev_gpu_zone_stat st;
};

struct gpu_stats {
	struct gpu_ctx_stat ctx[PROFEV_GPU_MAX_CONTEXTS];
	struct u64_map names;
	int failed;
};

struct gpu_stats *gpu_stats_new(void)
{
	struct gpu_stats *g = calloc(1, sizeof *g);
	if (g)
		u64_map_init(&g->names, sizeof(struct name_entry));
	return g;
}

void gpu_stats_free(struct gpu_stats *g)
{
	if (!g)
		return;
	for (unsigned i = 0; i < PROFEV_GPU_MAX_CONTEXTS; i++)
		free(g->ctx[i].busy);
	u64_map_free(&g->names);
	free(g);
}

static int add_busy(struct gpu_ctx_stat *c, uint64_t b, uint64_t e)
{
	if (c->nbusy && b < c->busy[c->nbusy - 1].end) { /* nested or overlapping */
		if (e > c->busy[c->nbusy - 1].end)
			c->busy[c->nbusy - 1].end = e;
		return 0;
	}
	if (array_grow((void **)&c->busy, &c->capbusy, sizeof *c->busy, (uint64_t)c->nbusy + 1))
		return -1;
	c->busy[c->nbusy++] = (struct busy){ b, e };
	return 0;
}

void gpu_stats_zones(void *arg, const struct profev_gpu_zone *z, size_t n)
{
	struct gpu_stats *g = arg;
	for (size_t i = 0; i < n && !g->failed; i++) {
		struct gpu_ctx_stat *c = &g->ctx[z[i].ctx % PROFEV_GPU_MAX_CONTEXTS];
		if (z[i].flags & PROFEV_GPUZ_BACKWARDS)
			c->backwards++;
		if (z[i].flags & PROFEV_GPUZ_UNMAPPED) {
			c->unmapped++;
			continue;
		}
		c->zones++;
		uint64_t d = z[i].end_ns - z[i].begin_ns;
		uint64_t key = ((uint64_t)z[i].ctx << 32 | z[i].name) + 1;
		int added;
		struct name_entry *e = u64_map_insert(&g->names, key, &added);
		if (!e) {
			g->failed = 1;
			return;
		}
		if (added)
			e->st = (struct profev_gpu_zone_stat){ z[i].ctx, z[i].name, 0, 0, 0 };
		e->st.count++;
		e->st.total_ns += d;
		if (d > e->st.max_ns)
			e->st.max_ns = d;
		if (add_busy(c, z[i].begin_ns, z[i].end_ns))
			g->failed = 1;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int by_total(const void *a, const void *b)
{
	const struct profev_gpu_zone_stat *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return x->ctx != y->ctx ? (x->ctx < y->ctx ? -1 : 1) : (x->name < y->name ? -1 : x->name > y->name);
}

/* Nearest rank, as the frame statistics count. */
static uint64_t rank(const uint64_t *v, uint64_t n, unsigned pct)
{
	uint64_t k = (n * pct + 99) / 100;
	return v[k ? k - 1 : 0];
}

/* Busy time per frame of set f: each outermost zone counts in the frame
 * its begin falls in. */
static int per_frame(struct profev_gpu_stat *st, const struct gpu_ctx_stat *c, const struct profev_frame_set *f)
{
	if (!f || !f->count)
		return 0;
	uint64_t *t = calloc(f->count, sizeof *t);
	if (!t)
		return -1;
	for (uint32_t i = 0; i < c->nbusy; i++) {
		uint64_t b = c->busy[i].begin, lo = 0, hi = f->count;
		while (lo < hi) { /* the first frame starting after b */
			uint64_t mid = lo + (hi - lo) / 2;
			if (f->frames[mid].start_ts <= b)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && b < f->frames[lo - 1].start_ts + f->frames[lo - 1].ns)
			t[lo - 1] += c->busy[i].end - b;
	}
	qsort(t, f->count, sizeof *t, cmp_u64);
	st->frames = f->count;
	st->frame_min_ns = t[0];
	st->frame_p50_ns = rank(t, f->count, 50);
	st->frame_p90_ns = rank(t, f->count, 90);
	st->frame_max_ns = t[f->count - 1];
	free(t);
	return 0;
}

int gpu_stats_finish(struct gpu_stats *g, const struct profev_reader *r, struct profev_stats *s)
{
	const struct profev_frame_set *f = NULL;
	for (uint32_t i = 0; i < s->nframe_sets; i++)
		if (!f || !s->frame_sets[i].name)
			f = &s->frame_sets[i];
	if (f && f->name && s->nframe_sets && !s->frame_sets[0].name)
		f = &s->frame_sets[0];
	for (uint32_t id = 0; id < PROFEV_GPU_MAX_CONTEXTS; id++) {
		const struct profev_gpu_context *c = profev_reader_gpu_context(r, id);
		if (!c)
			continue;
		struct profev_gpu_stat *st = realloc(s->gpus, (s->ngpus + 1) * sizeof *st);
		if (!st)
			return PROFEV_E_NOMEM;
		s->gpus = st;
		st = &s->gpus[s->ngpus++];
		const struct gpu_ctx_stat *cs = &g->ctx[id];
		*st = (struct profev_gpu_stat){ .ctx = id, .name = c->name, .kind = c->kind, .zones = cs->zones,
						.unmapped = cs->unmapped, .backwards = cs->backwards,
						.lost = c->lost, .calibrations = c->calibrations,
						.bad_calibrations = c->bad_calibrations,
						.max_drift_ns = c->max_drift_ns, .drift_ppm = c->drift_ppm };
		for (uint32_t i = 0; i < cs->nbusy; i++)
			st->busy_ns += cs->busy[i].end - cs->busy[i].begin;
		if (per_frame(st, cs, f))
			return PROFEV_E_NOMEM;
	}
	uint64_t n = g->names.count;
	if (n) {
		if (!(s->gpu_zones = malloc(n * sizeof *s->gpu_zones)))
			return PROFEV_E_NOMEM;
		const struct name_entry *e = NULL;
		while ((e = u64_map_next(&g->names, e)))
			s->gpu_zones[s->ngpu_zones++] = e->st;
		qsort(s->gpu_zones, s->ngpu_zones, sizeof *s->gpu_zones, by_total);
	}
	return g->failed ? PROFEV_E_NOMEM : 0;
}

static const char *kind_name(uint32_t k)
{
	return k == PROFEV_GPU_OPENGL ? "OpenGL" : k == PROFEV_GPU_VULKAN ? "Vulkan" : "manual";
}

void gpu_report_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out, unsigned top)
{
	char a[32], b[32], c[32], d[32];
	if (!s->ngpus)
		return;
	fprintf(out, "\nGPU contexts:\n");
	for (uint32_t i = 0; i < s->ngpus; i++) {
		const struct profev_gpu_stat *g = &s->gpus[i];
		duration_text(a, sizeof a, g->busy_ns);
		fprintf(out, "  %u %s (%s): %" PRIu64 " zones, busy %s, %" PRIu64 " lost", g->ctx,
			profev_reader_string(r, g->name), kind_name(g->kind), g->zones, a, g->lost);
		if (g->unmapped)
			fprintf(out, ", %" PRIu64 " not placed (no usable calibration)", g->unmapped);
		if (g->backwards)
			fprintf(out, ", %" PRIu64 " ending before they began", g->backwards);
		fputc('\n', out);
		if (g->frames) {
			duration_text(a, sizeof a, g->frame_min_ns);
			duration_text(b, sizeof b, g->frame_p50_ns);
			duration_text(c, sizeof c, g->frame_p90_ns);
			duration_text(d, sizeof d, g->frame_max_ns);
			fprintf(out, "    GPU time per frame (%" PRIu64 " frames): min %s, median %s, p90 %s, max %s\n",
				g->frames, a, b, c, d);
		}
		duration_text(a, sizeof a, (uint64_t)(g->max_drift_ns + 0.5));
		fprintf(out, "    calibrations: %" PRIu64 " accepted, %" PRIu64 " refused; drift: at most %s "
			     "between two, %.2f ppm overall\n",
			g->calibrations, g->bad_calibrations, a, g->drift_ppm);
	}
	if (!s->ngpu_zones)
		return;
	fprintf(out, "\ntop GPU zones by total time:\n  %-24s %-12s %10s %12s %12s %12s\n", "name", "context",
		"count", "total", "mean", "max");
	for (uint32_t i = 0; i < s->ngpu_zones && i < top; i++) {
		const struct profev_gpu_zone_stat *z = &s->gpu_zones[i];
		duration_text(a, sizeof a, z->total_ns);
		duration_text(b, sizeof b, z->total_ns / z->count);
		duration_text(c, sizeof c, z->max_ns);
		fprintf(out, "  %-24.24s %-12.12s %10" PRIu64 " %12s %12s %12s\n", profev_reader_string(r, z->name),
			gpu_context_name(r, z->ctx), z->count, a, b, c);
	}
}
