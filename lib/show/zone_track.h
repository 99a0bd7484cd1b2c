/* Matching zone ends to their begins, per thread: a stack of open zones for
 * each thread id. Shared by the statistics and the event dump. Not installed. */
#ifndef PROFEV_ZONE_TRACK_H
#define PROFEV_ZONE_TRACK_H
#include <stdint.h>

struct zone_track;

struct zone_track *zone_track_new(void);
void zone_track_free(struct zone_track *z);
/* Index (0, 1, ...) of tid in order of first appearance, adding it if new;
 * -1 on no memory. */
int64_t zone_track_thread(struct zone_track *z, uint32_t tid);
/* Opens a zone: 1 with the name of the zone it opens in (the innermost
 * open before it) in *outer (if not NULL), 0 if it is outermost, -1 on no
 * memory. */
int zone_track_begin(struct zone_track *z, uint32_t tid, uint32_t name, uint64_t ts, uint32_t *outer);
/* zone_track_begin() and zone_track_end() for thread number index (from
 * zone_track_thread()), with no lookup. */
int zone_track_push(struct zone_track *z, uint32_t index, uint32_t name, uint64_t ts, uint32_t *outer);
int zone_track_pop(struct zone_track *z, uint32_t index, uint32_t *name, uint64_t *begin_ts);
/* Pops tid's innermost open zone: 1 with its name and begin time, 0 if the
 * thread has none open (an end without a begin). */
int zone_track_end(struct zone_track *z, uint32_t tid, uint32_t *name, uint64_t *begin_ts);
/* Thread number index's innermost open zone is named name from here on (a
 * PROFEV_EVF_ZONE_NAME argument): 1, or 0 with no zone open. */
int zone_track_rename(struct zone_track *z, uint32_t index, uint32_t name);
/* 1 if tid's innermost open zone was renamed. */
int zone_track_renamed(struct zone_track *z, uint32_t tid);
/* Zones still open on all threads. */
uint64_t zone_track_open(const struct zone_track *z);
/* The innermost of tid's open zones that began at ts or before: 1 with its
 * name and begin time, 0 if none. */
int zone_track_innermost_at(struct zone_track *z, uint32_t tid, uint64_t ts, uint32_t *name,
			    uint64_t *begin_ts);
/* Depth of tid's open-zone stack. */
uint32_t zone_track_depth(struct zone_track *z, uint32_t tid);
#endif
