/* Frame statistics for pfdump --stats and --frames: each frame set's whole
 * frames, from its marks or its starts and ends; and for its longest
 * frames, the zones that took most of them, by thread. Fed by stats.c.
 *
 * A zone's share of a frame is its self time there: the time its thread
 * spent with it innermost, clipped to the frame. Threads' events reach the
 * trace in batches, behind or ahead of the marks, so each thread's spans
 * wait in a ring until the marks have passed them; only the frames that are
 * among the longest when they end gather zones. The rings hold at most
 * BUSY_MAX spans in all: a thread that runs further ahead of the marks
 * loses its oldest, and the set says its zones are partial. Not installed. */
#ifndef PROFEV_FRAME_STATS_H
#define PROFEV_FRAME_STATS_H
#include <stdint.h>
#include "profev_dump.h"

struct frame_stats;

struct frame_stats *frame_stats_new(const struct profev_reader *r);
void frame_stats_free(struct frame_stats *fs); /* accepts NULL */

/* A FRAME_MARK, FRAME_START or FRAME_END. 0 or -1 on no memory. */
int frame_stats_mark(struct frame_stats *fs, const struct profev_event *ev);

/* Thread number ti (zone_track's index) of tid changed its innermost zone
 * at ts: before it, innermost was zone name (had_zone 0: none). 0 or -1. */
int frame_stats_switch(struct frame_stats *fs, uint32_t ti, uint32_t tid, uint64_t ts, int had_zone,
		       uint32_t name);

/* At the end: fill s's frame sets (s owns them then). 0 or -1. */
int frame_stats_finish(struct frame_stats *fs, struct profev_stats *s);
/* Free what frame_stats_finish() put in s. */
void frame_stats_release(struct profev_stats *s);

/* The nearest-rank percentile of sorted[0..n) (n > 0): the smallest value
 * that at least per_10000 / 100 % of the values are at or below. */
uint64_t frame_percentile(const uint64_t *sorted, uint64_t n, unsigned per_10000);
#endif
