/* Statistics of the kernel's samples and context switches (pfrec --sample,
 * --sched) for pfdump --stats: samples per thread, functions by self and
 * total samples, time on and off CPU with the longest stretches off CPU and
 * the zone the thread was in. Fed by stats.c. Not installed. */
#ifndef PROFEV_SAMPLE_STATS_H
#define PROFEV_SAMPLE_STATS_H
#include "profev_dump.h"
#include "show/zone_track.h"

struct sample_stats;

struct sample_stats *sample_stats_new(void);
void sample_stats_free(struct sample_stats *ss);
/* Every event of the trace in file order, after stats.c has tracked its
 * zones in z. 0 or -1 on no memory. */
int sample_stats_event(struct sample_stats *ss, const struct profev_reader *r,
		       struct zone_track *z, const struct profev_event *ev);
/* A zone of tid that ran from begin to end. 0 or -1 on no memory. */
int sample_stats_zone(struct sample_stats *ss, uint32_t tid, uint32_t name, uint64_t begin,
		      uint64_t end);
/* At the end: fill s's sample fields (s owns them then). 0 or -1. */
int sample_stats_finish(struct sample_stats *ss, struct zone_track *z, struct profev_stats *s);
/* Free what sample_stats_finish() put in s. */
void sample_stats_release(struct profev_stats *s);
#endif
