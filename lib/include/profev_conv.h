/*
 * profev_conv.h - convert profev traces for other viewers (libprofev).
 *
 * One streaming pass over a struct profev_reader writes Perfetto's protobuf
 * trace, Chrome's Trace Event Format JSON, folded stacks or an SVG flame
 * graph. Memory stays bounded whatever the trace's length: it grows with
 * the number of threads, open zones, distinct names, callstacks and
 * (folded and svg only) stacks of zones, and (Perfetto and Chrome) memory blocks
 * still allocated, never with the number of events.
 *
 * Memory events become a live-bytes counter per pool in Perfetto and
 * Chrome output, counted over the whole trace and every thread (a window or
 * a thread filter selects which values are written, not what they count):
 * blocks are followed by address, a free subtracts its block's size from
 * the block's pool, and a free of an unknown address changes nothing.
 * Where the window or a later part starts, every pool's value is written
 * again.
 * Perfetto output also has each allocation as an instant with its
 * callstack and size; zones recorded with callstacks carry them in both.
 *
 * Contracts (as for profev_trace.h): the library never prints or exits;
 * warnings and progress reach the caller through callbacks; failures return
 * a negative enum profev_errc value with a message in a struct profev_error.
 * A conversion is not thread-safe but conversions are independent.
 */
#ifndef PROFEV_CONV_H
#define PROFEV_CONV_H

#include <stddef.h>
#include <stdint.h>
#include "profev_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* the API: exported (profev_trace.h) */

/** Output formats. */
enum profev_conv_format {
	PROFEV_CONV_PERFETTO = 1, /**< Perfetto TracePacket protobuf (.pftrace) */
	PROFEV_CONV_CHROME = 2,   /**< Trace Event Format JSON (.json) */
	PROFEV_CONV_FOLDED = 3,   /**< collapsed stacks "a;b;c weight" (.folded) */
	PROFEV_CONV_PNG = 4,      /**< frame images as PNG files in a directory */
	PROFEV_CONV_SVG = 5,      /**< an interactive flame graph of the folded
	                               stacks, one SVG file (.svg) */
};

/** Format by name ("perfetto", "chrome", "folded", "png", "svg"); 0 if unknown. */
int profev_conv_format_from_name(const char *name);
/** Name of a format; "unknown" otherwise. */
const char *profev_conv_format_name(int format);
/** File extension of a format with its dot (".pftrace"); "" if unknown. */
const char *profev_conv_format_ext(int format);

/** Option flags. */
enum profev_conv_flags {
	PROFEV_CONV_MERGE_THREADS = 1u << 0, /**< folded: one profile for all threads */
	PROFEV_CONV_CHROME_BE = 1u << 1,     /**< chrome: B/E pairs instead of X events */
	PROFEV_CONV_NO_IMAGES = 1u << 2,     /**< perfetto, chrome: leave frame images out */
	PROFEV_CONV_SAMPLES = 1u << 3,       /**< folded: the samples' callstacks (pfrec
	                                          --sample), one per unit of weight,
	                                          instead of the zones' self time */
	PROFEV_CONV_COMPRESS = 1u << 4,      /**< perfetto: packets deflated into
	                                          compressed_packets, as Perfetto's
	                                          service writes them: about a fifth of
	                                          the bytes, several times the time */
	PROFEV_CONV_GPU = 1u << 5,           /**< folded: the GPU zones' self time, one
	                                          root per GPU context, instead of the
	                                          threads' zones */
	PROFEV_CONV_ALLOC = 1u << 6,         /**< folded, svg: the bytes allocated by
	                                          callstack (memory events) instead of
	                                          the zones' self time */
	PROFEV_CONV_LIVE = 1u << 7,          /**< with PROFEV_CONV_ALLOC: less the
	                                          bytes freed in the window, leaving
	                                          what is still allocated at its end */
	PROFEV_CONV_THREAD_NAMES = 1u << 8,  /**< folded, svg: a thread's frame is its
	                                          name alone, without its TID, so that
	                                          two runs' stacks match */
	PROFEV_CONV_SVG_EMBED = 1u << 9,     /**< svg: no XML declaration and no script,
	                                          to be placed in an HTML page that
	                                          brings the script (the report) */
};

/**
 * Where output goes. Output is a sequence of parts (files): part 0 always,
 * and more only when split_size is set; each part is a complete trace in the
 * chosen format. Every callback returns 0, or <0 to stop the conversion
 * (profev_conv_run() then fails with PROFEV_E_IO; the sink keeps its own
 * errno or message for the caller to print).
 */
struct profev_conv_sink {
	int (*open)(void *ctx, unsigned part);   /**< may be NULL */
	int (*write)(void *ctx, const void *data, size_t len);
	int (*close)(void *ctx, unsigned part);  /**< may be NULL */
	void *ctx;
};

/** Running counts, passed to the progress callback and returned at the end. */
struct profev_conv_stats {
	uint64_t events_in;      /**< events read from the trace */
	uint64_t events_out;     /**< events converted (after window and filter) */
	uint64_t bytes_in;       /**< trace bytes consumed */
	uint64_t bytes_out;      /**< output bytes over all parts */
	unsigned parts;          /**< output parts opened */
	uint64_t zones;          /**< zones written; a zone cut by a split or a window
	                              edge counts once per piece; frames apart */
	uint64_t unclosed;       /**< zones never closed, closed at their thread's end */
	uint64_t unmatched_ends; /**< zone ends without a begin, dropped */
	uint64_t replaced_bytes; /**< bytes that were not UTF-8, written as U+FFFD
	                              (Chrome counts a repeated name once) */
	uint64_t images;         /**< frame images written */
	uint64_t lost_images;    /**< frame_image events whose image was lost */
	uint64_t threads_selected; /**< threads whose events were kept: those
	                              opts->thread matched (0: it matched none),
	                              else every thread */
};

/** Kinds of warnings; the message says which thread and when. */
enum profev_conv_warning {
	PROFEV_CONV_W_UNMATCHED_END = 1, /**< zone end without a begin: dropped */
	PROFEV_CONV_W_UNCLOSED = 2,      /**< zone never closed: closed and marked */
	PROFEV_CONV_W_TOO_DEEP = 3,      /**< zones nested deeper than the limit: dropped */
	PROFEV_CONV_W_SUMMARY = 4,       /**< "N more warnings like ..." */
};

struct profev_conv_opts {
	int format;            /**< enum profev_conv_format */
	unsigned flags;        /**< enum profev_conv_flags */
	/** Time window, ns relative to the trace's start (its metadata's
	 *  monotonic start, else its first event). Zones crossing an edge are
	 *  cut at it. to_ns = UINT64_MAX: until the end. */
	uint64_t from_ns, to_ns;
	/** Only this thread's zones, instants, messages, allocations and
	 *  lost-event records: a decimal TID, or a thread name (a thread
	 *  matches from the first time it carries that name). NULL: every
	 *  thread. Counters, memory counters and frame marks belong to the
	 *  whole process and are always kept. */
	const char *thread;
	/** Start a new part when the current one would pass this many bytes;
	 *  zones open at a cut are closed there and reopened in the next part.
	 *  0: one part. Not for folded output. */
	uint64_t split_size;
	/** png: the directory the images go to, as DIR/frame-NNNNNN.png (the
	 *  frame number, six digits or more); a frame's second image, third...
	 *  in reading order are DIR/frame-NNNNNN-1.png, -2..., so every image
	 *  gets a file. It must exist. The sink gets no bytes. Memory grows
	 *  by 16 bytes per frame with an image. */
	const char *image_dir;
	/** Warnings; the first few of each kind are reported one by one, then
	 *  one PROFEV_CONV_W_SUMMARY at the end. May be NULL. */
	void (*warn)(void *ctx, int kind, const char *message);
	/** Called about every million events. May be NULL. */
	void (*progress)(void *ctx, const struct profev_conv_stats *stats);
	void *cb_ctx;
	/** svg: the picture's title; NULL: one made from the flags. */
	const char *title;
	/** svg: a differential flame graph against these folded stacks
	 *  (diff_base_len bytes, as folded output writes them, best with
	 *  PROFEV_CONV_THREAD_NAMES), in the style of difffolded.pl: boxes
	 *  as wide as this trace's weights, red where they grew against the
	 *  base's (scaled to the same total), blue where they shrank. NULL:
	 *  a plain flame graph. */
	const char *diff_base;
	size_t diff_base_len;
};

/** Fill opts with the defaults: whole trace, every thread, one part. */
void profev_conv_opts_init(struct profev_conv_opts *opts, int format);

/** Deepest zone nesting kept per thread; deeper zones are dropped with a warning. */
#define PROFEV_CONV_MAX_DEPTH 1024

/**
 * Convert the rest of the trace read by r into sink.
 * On a trace error (a cut or corrupt trace) everything read until then is
 * converted, open zones are closed at their thread's last timestamp, the
 * output is completed, and the reader's error is returned.
 * @pre r was just opened: no event has been read from it.
 * @return 0 if the whole trace was converted; the reader's error code
 *         (PROFEV_E_NOEND, PROFEV_E_TRUNCATED, PROFEV_E_CHECKSUM...) with
 *         *err copied from it; PROFEV_E_IO if the sink failed; PROFEV_E_ARG
 *         for bad options; PROFEV_E_NOMEM. stats (may be NULL) is filled
 *         in every case.
 */
int profev_conv_run(struct profev_reader *r, const struct profev_conv_opts *opts,
		    const struct profev_conv_sink *sink, struct profev_conv_stats *stats,
		    struct profev_error *err);

/* ---- the HTML report (pfconv to html) ------------------------------------ */

struct profev_stats; /* <profev_dump.h> */

/** One run in a report. */
struct profev_report_run {
	const char *name;                 /**< its file name, for the headings */
	/** Its statistics, from profev_stats_collect() (<profev_dump.h>): the
	 *  frame times, the frame statistics, the zones. */
	const struct profev_stats *stats;
	const struct profev_reader *r;    /**< the reader stats' ids resolve with */
	/** Flame graphs, each an svg conversion with PROFEV_CONV_SVG_EMBED
	 *  (zones by time, CPU samples, allocated bytes); NULL: none. */
	const char *flame, *samples, *alloc;
	size_t flame_len, samples_len, alloc_len;
};

/**
 * Write one self-contained HTML page (no network, no external script) of
 * nruns runs side by side (the base first): for each, the frame-time chart
 * of each frame set with its worst frames marked, the frame statistics and
 * the longest frames with their zones, the zones table (sortable by each
 * column), the flame graphs; then diff_svg (diff_len bytes, an embedded
 * svg conversion with diff_base), if not NULL. The page's script is plain
 * JavaScript written for it. The sink's part 0 is opened and closed.
 * @return 0, PROFEV_E_ARG, PROFEV_E_NOMEM or PROFEV_E_IO (the sink failed).
 */
int profev_conv_report(const struct profev_report_run *runs, unsigned nruns, const char *diff_svg,
		       size_t diff_len, const struct profev_conv_sink *sink, struct profev_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
