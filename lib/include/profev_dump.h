/*
 * profev_dump.h - show and summarize traces (the work behind pfdump).
 *
 * These functions consume a profev_reader to its end (or its first error)
 * and write their output to a caller-given stream; they print no messages.
 * On a cut or corrupt trace they write what was whole, then return the
 * reader's negative error code; profev_reader_error() says where it stopped.
 */
#ifndef PROFEV_DUMP_H
#define PROFEV_DUMP_H

#include <stdio.h>
#include "profev_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* the API: exported (profev_trace.h) */

enum profev_dump_format {
	PROFEV_DUMP_TEXT = 0,  /**< one aligned line per event */
	PROFEV_DUMP_JSONL = 1, /**< one JSON object per line */
};

/** Events held at most by default to put them in time order, and bytes of
 *  message texts and thread names (see struct profev_dump_opts). */
#define PROFEV_DUMP_WINDOW 1000000u
#define PROFEV_DUMP_WINDOW_BYTES (64u << 20)

/** What profev_dump_list() shows; profev_dump_opts_init() sets the defaults. */
struct profev_dump_opts {
	enum profev_dump_format format;
	/** Events are listed in time order (ties in file order) through a
	 *  merge window of at most window events and window_bytes bytes of
	 *  message texts and thread names: when it is full, the earliest goes
	 *  out. An event that comes later than that in the file is listed when
	 *  it is the earliest held, after later ones, and counted as late.
	 *  window 0: file order. */
	uint64_t window, window_bytes;
	/** Only events from from_ns to to_ns after the trace's start (both
	 *  included; to_ns UINT64_MAX: to the end), as pfconv's --from and --to.
	 *  Events outside still count for what is listed: a zone end inside
	 *  has its duration though its begin is before from_ns. */
	uint64_t from_ns, to_ns;
	/** Only the events of this thread: a TID (digits, not 0), or a name
	 *  (a thread matches from its first event under that name on, renamed
	 *  or not). NULL: all threads. */
	const char *thread;
};

/** What profev_dump_list() did. */
struct profev_dump_result {
	uint64_t listed;  /**< events written */
	uint64_t late;    /**< events listed after a later one: they came past the window */
};

/** The defaults: all events, time order through the default window. */
void profev_dump_opts_init(struct profev_dump_opts *o, enum profev_dump_format format);

/**
 * Write the events that opts keep, one per line. Times are relative to the
 * trace start (metadata mono_start_ns, else the file's first event). Zone
 * ends carry the zone's duration; callstacks are shown with their symbols
 * where the trace has them (text: indented lines after the event; JSONL: a
 * "stack" array). res (may be NULL) is filled even on error.
 * @return 0, or <0 from the reader (output up to that point is complete
 *         lines, the events held by the window included).
 */
int profev_dump_list(struct profev_reader *r, FILE *out, const struct profev_dump_opts *opts,
		     struct profev_dump_result *res);

/** profev_dump_list() with profev_dump_opts_init()'s defaults. */
int profev_dump_events(struct profev_reader *r, FILE *out, enum profev_dump_format format);

/** Statistics of a whole trace; see profev_stats_collect(). */
struct profev_zone_stat {
	uint32_t name;        /**< string id */
	uint64_t count, total_ns, min_ns, max_ns;
};

struct profev_thread_stat {
	uint32_t tid;
	uint64_t events, zones;
	uint64_t first_ts, last_ts;
};

struct profev_pool_stat {
	uint32_t name;        /**< pool string id, 0 = default */
	uint64_t allocs, frees, alloc_bytes, freed_bytes, live_bytes, peak_bytes;
};

/** Memory still allocated at the end, grouped by allocation callstack. */
struct profev_leak {
	uint32_t stack;       /**< callstack id of the allocations, 0 = none */
	uint32_t pool;        /**< pool string id, 0 = default */
	uint64_t blocks, bytes;
};

/** A function's share of the samples (pfrec --sample). */
struct profev_func_stat {
	char *name;           /**< function once pfsym has run, else module+0xoffset */
	uint64_t self;        /**< samples taken in it (innermost frame) */
	uint64_t total;       /**< samples with it anywhere on the stack */
};

#define PROFEV_OFFCPU_TOP 5

/** One stretch a thread spent off CPU (pfrec --sched). */
struct profev_offcpu {
	uint64_t ts;          /**< when it went off CPU */
	uint64_t ns;          /**< for how long */
	uint32_t zone;        /**< string id of its innermost zone then, 0 = none */
	int zone_known;       /**< 0: the trace no longer said (zone is 0) */
	int preempted;        /**< 1 preempted (runnable), 0 blocked */
};

/** Samples and CPU time of one thread. */
struct profev_sched_stat {
	uint32_t tid;
	uint64_t samples;
	uint64_t switches;    /**< times it went off CPU */
	uint64_t preempted;   /**< of those, preempted rather than blocked */
	uint64_t on_ns, off_ns; /**< between its first and last switch */
	struct profev_offcpu longest[PROFEV_OFFCPU_TOP]; /**< longest first */
	uint32_t nlongest;
};

/** One lock's contention (PROFEV_LOCK_WAIT/ACQUIRED/RELEASED), with the
 *  events put in time order across threads. */
struct profev_lock_stat {
	uint64_t addr;        /**< the lock's address in the program */
	uint32_t name;        /**< string id from its waits, 0 = none */
	uint64_t acquisitions;
	uint64_t contended;   /**< acquisitions whose wait began while another
	                           thread held the lock or that another thread's
	                           acquisition overtook */
	uint64_t wait_total_ns, wait_max_ns; /**< from each wait to its acquisition */
	uint64_t hold_max_ns; /**< longest from an acquisition to its release */
	uint32_t *waiters;    /**< tids with contended acquisitions, in order of
	                           their first one */
	uint32_t nwaiters;
};

#define PROFEV_WORST_FRAMES 10
#define PROFEV_FRAME_ZONES 3

/** One frame: a frame set's span from a mark to the next, or from a
 *  PROFEV_FRAME_START to its PROFEV_FRAME_END. */
struct profev_frame_time {
	uint64_t number;      /**< the mark's frame number, as pfconv numbers it;
	                           discontinuous frames count from 0 */
	uint64_t start_ts, ns;
};

/** A zone's share of a frame: the time the thread spent with it innermost
 *  (its self time) within the frame. */
struct profev_frame_zone {
	uint32_t tid;
	uint32_t name;        /**< string id (a call site's shared name) */
	uint64_t ns;
};

struct profev_worst_frame {
	struct profev_frame_time f;
	struct profev_frame_zone zones[PROFEV_FRAME_ZONES]; /**< most time first */
	uint32_t nzones;
};

/** Frame statistics of one frame set. Percentiles are exact, nearest rank:
 *  pN is the smallest frame time that at least N% of the frames are at or
 *  below. */
struct profev_frame_set {
	uint32_t name;        /**< string id, 0 = the default set */
	int discontinuous;    /**< frames from PROFEV_FRAME_START/END, not marks */
	uint64_t count;       /**< whole frames */
	uint64_t total_ns, min_ns, p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	double mean_ns, stddev_ns; /**< population standard deviation */
	double fps;           /**< 1 s / mean_ns */
	struct profev_frame_time *frames; /**< all count frames, in time order */
	struct profev_worst_frame worst[PROFEV_WORST_FRAMES]; /**< longest first */
	uint32_t nworst;
	uint64_t disordered;  /**< marks before the frame they would end: ignored */
	int zones_partial;    /**< a thread ran too far ahead of the marks: some
	                           zone time is missing from the worst frames */
};

/** One GPU context's statistics (formats/trace.md, "GPU"). GPU time per
 *  frame: the time the context was busy (its outermost zones) that began
 *  within each frame of the default frame set (else the first set). */
struct profev_gpu_stat {
	uint32_t ctx;         /**< context id */
	uint32_t name;        /**< string id of its name */
	uint32_t kind;        /**< enum profev_gpu_kind */
	uint64_t zones;       /**< zones placed on the CPU timeline */
	uint64_t unmapped;    /**< zones that could not be placed */
	uint64_t backwards;   /**< zones that ended before they began */
	uint64_t lost;        /**< zones the program could not record */
	uint64_t calibrations, bad_calibrations;
	double max_drift_ns, drift_ppm; /**< as struct profev_gpu_context */
	uint64_t busy_ns;     /**< the outermost zones' total */
	uint64_t frames;      /**< frames of the frame set, 0: no frames */
	uint64_t frame_min_ns, frame_p50_ns, frame_p90_ns, frame_max_ns;
};

/** A GPU zone name's total on one context. */
struct profev_gpu_zone_stat {
	uint32_t ctx, name;
	uint64_t count, total_ns, max_ns;
};

struct profev_stats {
	uint64_t events;
	uint64_t by_type[PROFEV_EV_TYPE_MAX + 1];
	uint64_t first_ts, last_ts;
	uint64_t chunks, event_chunks;
	uint64_t unknown_chunks;     /**< chunks of kinds this reader skips */
	uint64_t event_stored_bytes; /**< bytes of events chunks on disk */
	uint64_t bytes;              /**< bytes read (the file size if whole) */
	uint64_t lost_events;        /**< sum of LOST events' counts */
	uint64_t unmatched_ends;     /**< ZONE_END with no open zone */
	uint64_t unclosed_zones;     /**< zones still open at the end */
	struct profev_thread_stat *threads; /**< by first appearance */
	uint32_t nthreads;
	struct profev_zone_stat *zones;     /**< sorted by total_ns, largest first */
	uint32_t nzones;
	struct profev_pool_stat *pools;
	uint32_t npools;
	struct profev_leak *leaks;   /**< sorted by bytes, largest first */
	uint32_t nleaks;
	uint64_t samples;            /**< SAMPLE events */
	uint64_t lost_samples;       /**< sum of SAMPLE_LOST events' counts */
	struct profev_func_stat *funcs; /**< sorted by self, largest first */
	uint32_t nfuncs;
	struct profev_sched_stat *sched; /**< threads with samples or switches */
	uint32_t nsched;
	struct profev_lock_stat *locks; /**< sorted by total wait, largest first */
	uint32_t nlocks;
	uint64_t args, flows;        /**< ARG and POINT_ARG events; FLOW_OUT and FLOW_IN events */
	uint64_t dropped_args;       /**< metadata dropped_args: arguments and flow
	                                  marks made with no zone open */
	int complete;                /**< the trace had its end chunk */
	uint64_t images;             /**< image chunks read whole */
	uint64_t lost_images;        /**< lost in the trace (damaged) or while
	                                  recording (metadata lost_images) */
	uint64_t image_stored_bytes; /**< bytes of the whole image chunks on disk */
	uint64_t image_raw_bytes;    /**< what they hold as RGBA8 (width * height * 4) */
	struct profev_frame_set *frame_sets; /**< by first frame in the file */
	uint32_t nframe_sets;
	uint64_t origin_ts;          /**< the trace's start as the listing counts
	                                  (metadata start, else the first event) */
	uint64_t crashes;            /**< CRASH events */
	struct profev_event crash;   /**< the first of them; type 0 if none */
	/* A recording window (a flight recorder's snapshot, an attach). */
	uint64_t zones_before;       /**< ZONE_BEFORE: zones begun before the window */
	uint64_t zones_after;        /**< ZONE_AFTER: zones still open at its end */
	uint64_t triggers;           /**< TRIGGER events */
	struct profev_event trigger; /**< the first of them; type 0 if none */
	uint64_t first_frame;        /**< the lowest frame number of an event (not
	                                  memory, not an image): frames before the
	                                  trace's first event */
	int have_frame;              /**< first_frame was seen */
	double tick_ns;              /**< the client clock's tick, from the metadata (1: ns) */
	uint64_t short_zones;        /**< zones that lasted under 4 ticks of it */
	struct profev_gpu_stat *gpus; /**< by context id */
	uint32_t ngpus;
	struct profev_gpu_zone_stat *gpu_zones; /**< sorted by total_ns, largest first */
	uint32_t ngpu_zones;
};

/**
 * Read the trace to its end and gather statistics. *out is set even on a
 * read error (the statistics of what was whole) and must be freed with
 * profev_stats_free(). Name ids resolve with the reader, which must outlive
 * any use of them.
 * @return 0, or <0 from the reader (PROFEV_E_NOMEM: *out may be NULL).
 */
int profev_stats_collect(struct profev_reader *r, struct profev_stats **out);

/** Write the statistics as a readable report (what pfdump --stats shows). */
void profev_stats_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			unsigned top_zones);

/** How profev_stats_print() draws. */
struct profev_stats_style {
	unsigned top;         /**< rows of the zone and function tables */
	int color;            /**< ANSI colours */
	int unicode;          /**< block characters (UTF-8) for the frame times */
};

/** profev_stats_write() with a style: on a terminal, the frame times drawn
 *  as a sparkline in block characters and colour. */
void profev_stats_print(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			const struct profev_stats_style *style);

/** Every whole frame, one per line in time order (what pfdump --frames
 *  shows): start since the trace's start, number, duration, set.
 *  @return 0, or PROFEV_E_NOMEM/IO. */
int profev_frames_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			enum profev_dump_format format);

/** Write the leak report (what pfdump --leaks shows): each group of blocks
 *  still allocated at the end with its callstack, symbolized where the
 *  trace has symbols. @return 0, or PROFEV_E_IO/NOMEM. */
int profev_leaks_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out);

/** Accepts NULL. */
void profev_stats_free(struct profev_stats *s);


/* ---- comparing two traces (pfdump --compare) ------------------------------ */

/** What one trace holds for a comparison: the durations of its zones by
 *  name and by call site, its frame times by frame set, its allocations by
 *  callstack, all with their names as text (the reader may go). */
struct profev_compare_side;

/**
 * Read the trace to its end and keep what profev_compare_write() compares.
 * *out is set even on a read error (what was whole) and must be freed with
 * profev_compare_side_free(). Memory: 8 bytes per zone and per frame.
 * @return 0, or <0 from the reader (PROFEV_E_NOMEM: *out may be NULL).
 */
int profev_compare_collect(struct profev_reader *r, struct profev_compare_side **out);
/** Accepts NULL. */
void profev_compare_side_free(struct profev_compare_side *s);

enum profev_compare_sort {
	PROFEV_COMPARE_BY_CHANGE = 0, /**< flagged rows first, then the largest change */
	PROFEV_COMPARE_BY_TOTAL = 1,  /**< the most time in both traces first */
	PROFEV_COMPARE_BY_NAME = 2,   /**< by name (bytes), then location */
};

/** How profev_compare_write() decides and writes; see pfdump(1). */
struct profev_compare_opts {
	double alpha;         /**< significance level of each row's verdict (0.05) */
	double threshold;     /**< smallest change flagged, as a fraction (0.05: 5%) */
	uint64_t min_count;   /**< fewer samples on either side: too rare to test (20) */
	enum profev_compare_sort sort;
	enum profev_dump_format format;
	const char *base_name, *new_name; /**< for the headings (file names) */
};

/** What profev_compare_write() found, over the frame sets, zone names and
 *  call sites (a slower site counts even where its name's row does not). */
struct profev_compare_result {
	uint64_t slower, faster, same, untested; /**< rows by verdict */
	uint64_t only_base, only_new;            /**< rows in one trace only */
};

/** The defaults above. */
void profev_compare_opts_init(struct profev_compare_opts *o);

/**
 * Compare new with base and write the tables (text) or one JSON object per
 * row (JSONL): frame times first, then zones by name, zones by call site,
 * and allocations by callstack where both traces hold memory events. Each
 * timed row's verdict comes from a Mann-Whitney U test at alpha / 2 and a
 * test of the share above the pooled 99th percentile at alpha / 2, flagged
 * when significant and at least threshold in the ratio of medians (or of
 * p99s for the tail). res may be NULL.
 * @return 0, or PROFEV_E_NOMEM/IO.
 */
int profev_compare_write(const struct profev_compare_side *base, const struct profev_compare_side *new_,
			 FILE *out, const struct profev_compare_opts *o, struct profev_compare_result *res);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
