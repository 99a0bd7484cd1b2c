/* GPU zones in pfdump: as GPU_ZONE events of the listing, and the --stats
 * section per context (GPU time per frame, top zones, lost zones, drift).
 * Not installed. */
#ifndef PROFEV_GPU_STATS_H
#define PROFEV_GPU_STATS_H
#include <stdio.h>
#include "profev_dump.h"
#include "show/time_order.h"

/* Zones placed on the CPU timeline as GPU_ZONE events into the window
 * (unplaced ones are left out). 0 or -1 on no memory. */
int gpu_zone_events(struct time_order *o, const struct profev_reader *r, const struct profev_gpu_zone *z,
		    size_t n);
/* The name of context ctx, "" if none. */
const char *gpu_context_name(const struct profev_reader *r, uint32_t ctx);

struct gpu_stats;
struct gpu_stats *gpu_stats_new(void); /* NULL: no memory */
void gpu_stats_free(struct gpu_stats *g);
/* A profev_gpu_zones_fn: arg is the gpu_stats. */
void gpu_stats_zones(void *arg, const struct profev_gpu_zone *z, size_t n);
/* s->gpus and s->gpu_zones, once the frames are known (s->frame_sets).
 * 0 or PROFEV_E_NOMEM (also when a zone could not be counted). */
int gpu_stats_finish(struct gpu_stats *g, const struct profev_reader *r, struct profev_stats *s);
/* The --stats section; nothing when the trace has no GPU context. */
void gpu_report_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out, unsigned top);
#endif
