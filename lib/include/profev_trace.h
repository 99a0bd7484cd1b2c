/*
 * profev_trace.h - write and read profev trace files (libprofev).
 *
 * A trace is a header followed by self-describing, checksummed, compressed
 * chunks; formats/trace.md is the byte-level specification. This header is
 * the whole public API for producing and consuming traces:
 *
 *   - struct profev_event: the fixed 40-byte decoded event record;
 *   - struct profev_writer: interns strings, deduplicates callstacks,
 *     delta-encodes events per thread and writes whole chunks to an fd;
 *   - struct profev_reader: a one-pass streaming reader (works on pipes)
 *     that hands back chunks and events with ids resolved to names.
 *
 * Contracts that hold for every function here:
 *   - The library never prints and never exits. Failing functions return a
 *     negative enum profev_errc value and fill the handle's error record
 *     (code, byte offset, message), read with profev_writer_error() or
 *     profev_reader_error().
 *   - No global state: handles are independent; one handle must not be used
 *     from two threads at once.
 *   - Every _new has a _free that accepts NULL and frees everything.
 */
#ifndef PROFEV_TRACE_H
#define PROFEV_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libprofev is built with -fvisibility=hidden: what these headers declare
 * is its API and all it exports; its other functions stay inside it. */
#pragma GCC visibility push(default)

#define PROFEV_VERSION_STRING "0.1.0"

/** Trace format version this library writes (formats/trace.md). */
#define PROFEV_FORMAT_MAJOR 1
#define PROFEV_FORMAT_MINOR 0

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/** Stable error codes; values never change once released. */
enum profev_errc {
	PROFEV_OK = 0,
	PROFEV_E_IO = -1,        /**< read or write failed (errno in message) */
	PROFEV_E_NOMEM = -2,     /**< allocation failed */
	PROFEV_E_EMPTY = -3,     /**< input holds no bytes at all */
	PROFEV_E_MAGIC = -4,     /**< not a profev trace */
	PROFEV_E_VERSION = -5,   /**< major version newer than this reader */
	PROFEV_E_TRUNCATED = -6, /**< input ends inside the header or a chunk */
	PROFEV_E_CHECKSUM = -7,  /**< chunk checksum does not match */
	PROFEV_E_CORRUPT = -8,   /**< chunk body is malformed */
	PROFEV_E_LIMIT = -9,     /**< a size exceeds the format's limits */
	PROFEV_E_ARG = -10,      /**< invalid argument from the caller */
	PROFEV_E_STATE = -11,    /**< call not valid in the handle's state */
	PROFEV_E_NOEND = -12,    /**< trace has no end chunk: it was cut */
	PROFEV_E_UNSUPPORTED = -13, /**< valid input this build cannot handle */
};

/** Name of an error code ("checksum mismatch", ...); never NULL. */
const char *profev_strerror(int code);

/** Detailed error record kept by each handle. */
struct profev_error {
	int code;          /**< enum profev_errc, PROFEV_OK if none */
	uint64_t offset;   /**< byte offset in the trace the error refers to */
	int has_offset;    /**< offset is meaningful */
	char message[256]; /**< what went wrong, lowercase, no trailing period */
};

/* ------------------------------------------------------------------ */
/* Event model                                                         */
/* ------------------------------------------------------------------ */

/** Event types. Values are part of the file format. */
enum profev_event_type {
	PROFEV_EV_FRAME_MARK = 1,  /**< name: frame set (0 = default) */
	PROFEV_EV_ZONE_BEGIN = 2,  /**< name: zone; payload: category id */
	PROFEV_EV_ZONE_END = 3,    /**< name: zone (may be 0); payload: category id */
	PROFEV_EV_COUNTER = 4,     /**< name: counter; payload: double bits */
	PROFEV_EV_INSTANT = 5,     /**< name: instant; payload: category id */
	PROFEV_EV_MESSAGE = 6,     /**< text carried with the event; payload: category id;
	                                name: 0 or its call site (an empty name) */
	PROFEV_EV_THREAD_NAME = 7, /**< name: new name of thread tid */
	PROFEV_EV_MEM_ALLOC = 8,   /**< addr, payload: size, name: pool (0 = default) */
	PROFEV_EV_MEM_FREE = 9,    /**< addr, name: pool (0 = default) */
	PROFEV_EV_FRAME_IMAGE = 10, /**< payload: image id (an image chunk) */
	PROFEV_EV_LOST = 11,       /**< payload: events lost on thread tid before ts */
	/* 12..23: rich events. Arguments and flow marks belong to the zone
	 * open on their thread before them, in file order (ts equals the
	 * previous event's of the thread). */
	PROFEV_EV_ARG = 12,        /**< name: key; payload: value, per
	                                PROFEV_EVF_ARG_KIND (a string's id for STR) */
	PROFEV_EV_FLOW_OUT = 13,   /**< payload: flow id; the zone starts or continues it */
	PROFEV_EV_FLOW_IN = 14,    /**< payload: flow id; the flow arrives and ends */
	PROFEV_EV_ASYNC_BEGIN = 15, /**< name: span (a call site, see profev_srcloc);
	                                 payload: span id */
	PROFEV_EV_ASYNC_END = 16,  /**< as ASYNC_BEGIN; may be on another thread */
	PROFEV_EV_LOCK_WAIT = 17,  /**< name: lock name; payload: lock address */
	PROFEV_EV_LOCK_ACQUIRED = 18, /**< payload: lock address */
	PROFEV_EV_LOCK_RELEASED = 19, /**< payload: lock address */
	PROFEV_EV_FRAME_START = 20, /**< name: frame set; a discontinuous frame begins */
	PROFEV_EV_FRAME_END = 21,  /**< name: frame set; its frame ends */
	PROFEV_EV_POINT_ARG = 22,  /**< as ARG, but of the thread's next INSTANT or
	                                MESSAGE: it comes right before that event */
	/* 23 reserved for rich events */
	PROFEV_EV_SAMPLE = 24,     /**< cpu-clock sample of thread tid: stack: its
	                                callstack; payload: the CPU number */
	PROFEV_EV_SWITCH_OUT = 25, /**< thread tid went off CPU; payload: the CPU
	                                number, plus PROFEV_SWITCH_PREEMPTED */
	PROFEV_EV_SWITCH_IN = 26,  /**< thread tid came back on CPU; payload: the CPU */
	PROFEV_EV_SAMPLE_LOST = 27, /**< payload: samples and switches the kernel
	                                could not hand over (PERF_RECORD_LOST) */
	/* 28..29: reserved for samples and context switches */
	PROFEV_EV_CRASH = 30,      /**< the program crashed on thread tid: name:
	                                the signal ("SIGSEGV"); payload: the fault
	                                address, 0 for a signal sent; stack: the
	                                thread's callstack, frame 0 exact */
	/* 31..39: recording windows (a flight recorder's snapshot, an attach) */
	PROFEV_EV_TRIGGER = 31,    /**< a snapshot was asked for: name: the reason
	                                ("hitch", "SIGUSR1", "crash", "exit");
	                                payload: the snapshot's number (1, 2, ...);
	                                tid: the thread that asked, or the program's pid */
	PROFEV_EV_ZONE_BEFORE = 32, /**< a zone begun before the recording's window,
	                                 open at its start: as ZONE_BEGIN, ts is the
	                                 window's start */
	PROFEV_EV_ZONE_AFTER = 33, /**< a zone still open at the window's end: as
	                                ZONE_END, ts is the window's end */
	PROFEV_EV_ATTACH = 34,      /**< pfrec --attach began recording: payload:
	                                 default frame marks the program made before */
	PROFEV_EV_DETACH = 35,      /**< it ended (detached): payload: default frame
	                                 marks the program made before */
	/* 36..39: reserved for recording windows */
	PROFEV_EV_GPU_ZONE = 40,   /**< never stored in an events chunk: a GPU zone
	                                as a listing shows it (profev_dump_list):
	                                ts: its begin on the CPU timeline; name:
	                                the zone; payload: its duration in ns;
	                                frame: its context id; tid: the thread
	                                that recorded it */
	/* 41..49: reserved for GPU */
	PROFEV_EV_TYPE_MAX = 40
};

/** SWITCH_OUT payload bit: the thread was preempted (still runnable);
 *  clear when it blocked (waits for something). */
#define PROFEV_SWITCH_PREEMPTED (1ull << 32)

/** Event flags. */
enum profev_event_flags {
	PROFEV_EVF_DOUBLE = 1u << 0,   /**< payload holds an IEEE-754 double's bits */
	PROFEV_EVF_UNCLOSED = 1u << 1, /**< ZONE_END made up by a reader for a zone
	                                    the program never closed */
	PROFEV_EVF_SECURE = 1u << 2,   /**< memory event from a SECURE macro */
	PROFEV_EVF_WINDOW_EDGE = 1u << 3, /**< ZONE_BEGIN or ZONE_END that
	                                    profev_event_window_view() made of a
	                                    ZONE_BEFORE or ZONE_AFTER (never stored) */
	PROFEV_EVF_ARG_KIND = 7u << 3, /**< ARG: enum profev_arg_kind << 3 */
	PROFEV_EVF_TRUNCATED = 1u << 6, /**< ARG: the string was cut at
	                                     PROFEV_ARG_STR_MAX bytes */
	PROFEV_EVF_ZONE_NAME = 1u << 7, /**< ARG of kind STR: the zone's name from
	                                     here on (PROFEV_ZONE_NAME, Tracy's
	                                     ZoneName), not an argument */
};

/** The kind of an ARG event's value, (flags & PROFEV_EVF_ARG_KIND) >> 3. */
enum profev_arg_kind {
	PROFEV_AK_INT = 0,    /**< int64 (two's complement in payload) */
	PROFEV_AK_UINT = 1,   /**< uint64 */
	PROFEV_AK_DOUBLE = 2, /**< a double's bits; PROFEV_EVF_DOUBLE is set too */
	PROFEV_AK_BOOL = 3,   /**< 0 or 1 */
	PROFEV_AK_PTR = 4,    /**< an address */
	PROFEV_AK_STR = 5,    /**< payload: string id of the value */
};


/**
 * The decoded event: a fixed 40-byte trivially copyable record.
 * Field meaning per type is listed at enum profev_event_type; ids are
 * string ids (0 = none) and callstack ids (0 = none) of the same trace.
 * The file stores something much smaller (formats/trace.md, "events").
 */
struct profev_event {
	uint64_t ts;        /**< nanoseconds, CLOCK_MONOTONIC time base */
	union {
		uint64_t frame; /**< frame number the event falls in */
		uint64_t addr;  /**< memory events: the block's address */
	};
	uint64_t payload;   /**< type-specific 64-bit value */
	uint32_t tid;       /**< thread id (Linux TID) */
	uint32_t name;      /**< string id */
	uint32_t stack;     /**< callstack id, 0 = none */
	uint8_t type;       /**< enum profev_event_type */
	uint8_t flags;      /**< enum profev_event_flags */
	uint16_t reserved;  /**< zero; readers ignore it */
};

#ifdef __cplusplus
#define PROFEV_STATIC_ASSERT static_assert
#else
#define PROFEV_STATIC_ASSERT _Static_assert
#endif
PROFEV_STATIC_ASSERT(sizeof(struct profev_event) == 40, "profev_event must be 40 bytes");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, ts) == 0, "layout");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, frame) == 8, "layout");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, payload) == 16, "layout");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, tid) == 24, "layout");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, name) == 28, "layout");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, stack) == 32, "layout");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, type) == 36, "layout");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, flags) == 37, "layout");
PROFEV_STATIC_ASSERT(offsetof(struct profev_event, reserved) == 38, "layout");

/** An ARG event's kind (enum profev_arg_kind). */
static inline unsigned profev_event_arg_kind(const struct profev_event *ev)
{
	return (ev->flags & PROFEV_EVF_ARG_KIND) >> 3;
}

/** Store a double in a counter event's payload, bit-exactly. */
void profev_event_set_double(struct profev_event *ev, double value);
/** Read back a counter event's double. */
double profev_event_double(const struct profev_event *ev);

/** Short lowercase name of an event type ("zone_begin"), "unknown" otherwise. */
const char *profev_event_type_name(unsigned type);

/**
 * A window's zone edges read as zones: a ZONE_BEFORE becomes a ZONE_BEGIN
 * and a ZONE_AFTER a ZONE_END, each with PROFEV_EVF_WINDOW_EDGE set, so
 * that code which matches zone ends to begins needs nothing more. Other
 * events are left alone.
 * @return 1 if ev was changed, else 0.
 */
int profev_event_window_view(struct profev_event *ev);

/* ------------------------------------------------------------------ */
/* Records other than events                                           */
/* ------------------------------------------------------------------ */

/** How the traced program ended. */
enum profev_exit_kind {
	PROFEV_EXIT_UNKNOWN = 0,  /**< not recorded (trace cut, or no recorder) */
	PROFEV_EXIT_EXITED = 1,   /**< exit status in code */
	PROFEV_EXIT_SIGNALED = 2, /**< killed by signal number in code */
	PROFEV_EXIT_NOSTART = 3,  /**< could not be started; code: errno */
};

/**
 * Trace metadata. Strings may be NULL when unknown. A trace may hold several
 * metadata chunks; later keys override earlier ones (the exit fields arrive
 * in a metadata chunk at the end).
 */
struct profev_meta {
	const char *program;        /**< path of the traced program */
	const char *const *argv;    /**< its arguments, argc entries */
	uint32_t argc;
	uint32_t pid;
	const char *host;           /**< hostname */
	int64_t wall_start_ns;      /**< CLOCK_REALTIME at start, ns since epoch */
	uint64_t mono_start_ns;     /**< CLOCK_MONOTONIC at start, same base as ts */
	double ticks_per_ns;        /**< client clock calibration (0 = ns clock) */
	uint64_t tick_base;         /**< tick value at mono_start_ns */
	const char *clock;          /**< "tsc" or "monotonic" */
	const char *recorder;       /**< "pfrec 0.1.0", ... */
	int exit_kind;              /**< enum profev_exit_kind */
	int exit_code;              /**< status, signal or errno per exit_kind */
	uint64_t end_ns;            /**< CLOCK_MONOTONIC when recording ended */
	uint64_t lost_events;       /**< events dropped by the recorder (--drop) */
	uint64_t dropped_args;      /**< arguments and flow marks made with no
	                                 zone open, which the recorder dropped */
	uint64_t lost_images;       /**< frame images dropped (--drop, queue full)
	                                 or lost in the recorder */
	uint64_t refused_images;    /**< frame images refused for their size */
	/* A flight recorder's snapshot (pfrec --ring); 0 in other traces. */
	uint64_t ring_window_start_ns; /**< where the snapshot's window starts */
	uint64_t ring_window_end_ns;   /**< and ends (CLOCK_MONOTONIC, as ts) */
	uint64_t ring_let_go_events;   /**< events the ring let go before the window */
	uint64_t ring_snapshot;        /**< the snapshot's number, from 1 */
};

/** A loaded module (executable or shared object). */
struct profev_module {
	const char *path;
	const uint8_t *build_id;  /**< GNU build-id bytes, may be NULL */
	uint32_t build_id_len;
	uint64_t load_bias;       /**< runtime address minus ELF virtual address */
	uint64_t size;            /**< bytes of address space mapped */
	/** The module's first executable PT_LOAD segment, where Perfetto's
	 *  producers start its mapping; exec_size 0: unknown (a trace written
	 *  before these were recorded, or a module without its file). */
	uint64_t exec_vaddr;      /**< its p_vaddr */
	uint64_t exec_offset;     /**< its p_offset in the file */
	uint64_t exec_size;       /**< its p_memsz */
};

/** One callstack frame: module index plus ELF virtual address in it. */
struct profev_frame {
	uint32_t module;          /**< index in the module table */
	uint32_t flags;           /**< PROFEV_FRAMEF_* */
	uint64_t offset;          /**< pc - load_bias (llvm-symbolizer's address) */
};

enum profev_frame_flags {
	PROFEV_FRAMEF_RETURN = 1u << 0, /**< a return address: look up offset - 1 */
	PROFEV_FRAMEF_NOMODULE = 1u << 1, /**< pc fell outside every module:
	                                       offset holds the absolute pc */
};

/** One function in a symbolized address's inline chain, innermost first. */
struct profev_symframe {
	const char *function;     /**< demangled name, NULL if unknown */
	const char *file;         /**< source file, NULL if unknown */
	uint32_t line;            /**< 0 if unknown */
	uint32_t column;          /**< 0 if unknown */
};

/**
 * Where a call site stands in the program's source (a source-locations
 * chunk). Events whose name is the site's string id came from it; that id
 * is the site's alone, and name is the id of the same text as every other
 * event with that name uses (group by it).
 */
struct profev_srcloc {
	uint32_t name;            /**< string id of the site's name, shared */
	uint32_t category;        /**< string id of its category, 0 = none */
	uint32_t function;        /**< string id of the function (__func__) */
	uint32_t file;            /**< string id of the file (__FILE__) */
	uint32_t line;
};

/** Frame image formats. */
enum profev_image_format {
	PROFEV_IMG_RGBA8 = 1,     /**< width x height x 4 bytes, rows top-down */
	PROFEV_IMG_DXT1 = 2,      /**< DXT1 (BC1) blocks, 8 bytes per 4x4 pixels, rows of blocks top-down */
	PROFEV_IMG_DXT1Z = 3,     /**< how older writers stored DXT1 (formats/trace.md); readers hand out DXT1 */
	PROFEV_IMG_DXT1RC = 4,    /**< how the writer stores DXT1 (formats/trace.md); readers hand out DXT1 */
};

/** Largest image: width x height pixels (1920 x 1080 and 2048 x 2048 fit). */
#define PROFEV_IMAGE_MAX_PIXELS (4096u * 1024u)
/** Largest width or height. */
#define PROFEV_IMAGE_MAX_SIDE 4096u

/**
 * A frame image (screenshot). The writer stores DXT1 coded (DXT1RC) and RGBA8
 * as given; a reader hands out DXT1 or RGBA8, rows top-down.
 */
struct profev_image {
	uint32_t id;
	uint32_t width, height;
	uint32_t format;          /**< enum profev_image_format */
	uint64_t frame;           /**< frame it shows */
	uint64_t ts;
	const void *data;
	size_t size;
};

/** Totals from the end chunk; a trace without one was cut. */
struct profev_totals {
	uint64_t events;
	uint64_t chunks;          /**< chunks before the end chunk */
	uint64_t strings;
	uint64_t stacks;
	uint64_t threads;
	uint64_t modules;
	uint64_t symbols;
	uint64_t images;
	uint64_t lost_events;
	uint64_t bytes;           /**< file size up to the end chunk */
};

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

struct profev_writer;
struct profev_chunk;
struct profev_gpu_context;
struct profev_gpu_calibration;
struct profev_gpu_zone;

struct profev_writer_opts {
	int zstd_level;          /**< 0 = default (1); negative = faster */
	uint32_t chunk_events;   /**< events per chunk, 0 = default (65536) */
	int threaded;            /**< 1: compress and write chunks on a thread of
	                              the writer's own, so the caller's thread only
	                              codes events (a recorder's choice); a write
	                              error then surfaces at a later call */
};

/**
 * Start a trace on a file descriptor open for writing (pipes work).
 * Writes the file header at once, and waits for that write even when
 * threaded, so an fd that cannot be written (a full disk) fails here.
 * The fd stays the caller's to close.
 * @return a writer, or NULL with *err filled (err may be NULL).
 */
struct profev_writer *profev_writer_new(int fd, const struct profev_writer_opts *opts,
					struct profev_error *err);

/** The writer's last error; never NULL. */
const struct profev_error *profev_writer_error(const struct profev_writer *w);

/**
 * Intern a string. Equal strings get the same id; the id is defined in the
 * file before any chunk that may use it.
 * @return its id (>= 1), or 0 on error (length over 1 MiB or no memory).
 */
uint32_t profev_writer_string(struct profev_writer *w, const char *s, size_t len);
/** profev_writer_string() of a NUL-terminated string; NULL gives id 0. */
uint32_t profev_writer_cstring(struct profev_writer *w, const char *s);

/** Write a metadata chunk (only the fields that are set: strings non-NULL,
 *  numbers non-zero; exit fields when exit_kind != UNKNOWN). @return 0 or <0. */
int profev_writer_meta(struct profev_writer *w, const struct profev_meta *m);

/**
 * Define a call site: a string id of its own for name (len bytes) with
 * its source location (loc->name is filled here; category, function and
 * file are string ids of this writer, 0 = none). Events from the site
 * carry the returned id as their name. The same name and location give
 * the same id.
 * @return the site's id (>= 1), or 0 on error.
 */
uint32_t profev_writer_site(struct profev_writer *w, const char *name, size_t len,
			    const struct profev_srcloc *loc);

/** Define or rename a thread. @return 0 or <0. */
int profev_writer_thread(struct profev_writer *w, uint32_t tid, uint32_t pid, const char *name);

/** Add a module. @return its index (>= 0) or <0. */
int profev_writer_module(struct profev_writer *w, const struct profev_module *m);

/**
 * Intern a callstack of n frames (n <= 256), outermost last. Identical
 * frame arrays share one id (XXH3 hash table).
 * @return its id (>= 1), or 0 on error.
 */
uint32_t profev_writer_stack(struct profev_writer *w, const struct profev_frame *frames, unsigned n);

/** Attach symbols to (module, offset): n frames of its inline chain,
 *  innermost first. @return 0 or <0. */
int profev_writer_symbol(struct profev_writer *w, uint32_t module, uint64_t offset,
			 const struct profev_symframe *frames, unsigned n);

/** Append an event. Use profev_writer_message() for MESSAGE. @return 0 or <0. */
int profev_writer_event(struct profev_writer *w, const struct profev_event *ev);

/**
 * Append n events, as n calls of profev_writer_event() would, but faster
 * for runs of one thread's events: a recorder's path. A MESSAGE among
 * them is written with an empty text.
 * @return 0 or <0 (the events before the failing one are written).
 */
int profev_writer_events(struct profev_writer *w, const struct profev_event *ev, size_t n);

/** Append a MESSAGE event with its text; ev->name is 0 or the call site
 *  (profev_writer_site()) the message came from. */
int profev_writer_message(struct profev_writer *w, const struct profev_event *ev,
			  const char *text, size_t len);

/**
 * Write a frame image chunk. DXT1 images are stored coded against the
 * previous image of the same size where that is smaller (formats/trace.md);
 * width and height must then be multiples of 4, data hold
 * width * height / 2 bytes. Write a frame_image event (payload: img->id)
 * after it, so that the image shows on its thread at its time.
 * @return 0 or <0.
 */
int profev_writer_image(struct profev_writer *w, const struct profev_image *img);

/**
 * Decode an image a reader handed out (DXT1 or RGBA8) into width x height
 * RGBA8 pixels, row y at rgba + y * stride (stride >= 4 * width).
 * @return 0, or PROFEV_E_ARG for another format or a size that does not match.
 */
int profev_image_rgba(const struct profev_image *img, uint8_t *rgba, size_t stride);

/**
 * Copy a chunk read by a profev_reader into this trace unchanged (its exact
 * bytes), after flushing what is buffered. Definitions in it (strings,
 * stacks, modules, threads) are registered, so ids this writer hands out
 * afterwards continue the copied numbering and interning still deduplicates
 * against them; an END chunk is not copied (close() writes a fresh one).
 * This is how a tool rewrites a trace while adding chunks (pfsym).
 * @return 0 or <0.
 */
int profev_writer_copy_chunk(struct profev_writer *w, const struct profev_chunk *c);

/** Write out buffered definitions and events as whole chunks. @return 0 or <0. */
int profev_writer_flush(struct profev_writer *w);

/**
 * Finish the trace: flush, then write the end chunk with totals. After
 * this only profev_writer_free() is valid. @return 0 or <0.
 */
int profev_writer_close(struct profev_writer *w);

/** Totals so far (events written, chunks, bytes...). */
void profev_writer_totals(const struct profev_writer *w, struct profev_totals *t);

/** Free the writer without finishing the trace (what was flushed stays
 *  readable as a cut trace). Accepts NULL. */
void profev_writer_free(struct profev_writer *w);

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

struct profev_reader;

/** Chunk kinds. Values are part of the file format. */
enum profev_chunk_kind {
	PROFEV_CHUNK_META = 1,
	PROFEV_CHUNK_STRINGS = 2,
	PROFEV_CHUNK_THREADS = 3,
	PROFEV_CHUNK_EVENTS = 4,
	PROFEV_CHUNK_MODULES = 5,
	PROFEV_CHUNK_STACKS = 6,
	PROFEV_CHUNK_SYMBOLS = 7,
	PROFEV_CHUNK_IMAGE = 8,
	PROFEV_CHUNK_SRCLOCS = 9,
	PROFEV_CHUNK_SEGMENTS = 12, /**< modules' executable segments */
	PROFEV_CHUNK_GPU = 16,      /**< GPU contexts, calibrations, lost zones */
	PROFEV_CHUNK_GPU_ZONES = 17, /**< GPU zones, in their context's clock */
	PROFEV_CHUNK_END = 15,
};

/** Short name of a chunk kind ("events"), "unknown" otherwise. */
const char *profev_chunk_kind_name(unsigned kind);

/** A chunk as read; pointers stay valid until the next reader call. */
struct profev_chunk {
	uint32_t kind;            /**< enum profev_chunk_kind, or unknown */
	uint32_t flags;
	uint32_t count;           /**< items in the chunk */
	uint64_t offset;          /**< file offset of the chunk header */
	uint32_t stored_size;     /**< body bytes on disk (compressed) */
	uint32_t raw_size;        /**< body bytes decompressed */
	const void *stored;       /**< header and stored body: the chunk's exact bytes */
	size_t stored_total;      /**< header + stored body */
	const void *raw;          /**< decompressed body (NULL for unknown kinds) */
	const struct profev_event *events; /**< EVENTS: decoded events */
	uint32_t nevents;
	const struct profev_image *image;  /**< IMAGE: the image; NULL when it was lost
	                                        (its data corrupt, or its reference lost) */
	const struct profev_gpu_zone *gpu_zones; /**< GPU_ZONES: the zones, mapped */
	uint32_t ngpu_zones;
};

/** What profev_reader_next_event() resolves for an event. Pointers stay
 *  valid until the next reader call; absent names are "". */
struct profev_event_info {
	const char *name;         /**< zone, counter, instant, pool, frame set, thread name */
	const char *category;     /**< zones, instants, messages */
	const char *thread;       /**< current name of the event's thread, "" if none */
	const char *text;         /**< MESSAGE: its text (not NUL-terminated inside) */
	size_t text_len;
};

/**
 * Open a trace for one pass. The FILE is read sequentially only (pipes
 * work) and stays the caller's; error messages name chunks and offsets, so
 * the caller adds the file's name. Reads and checks the file header.
 * @return a reader, or NULL with *err filled (EMPTY, MAGIC, VERSION...).
 */
struct profev_reader *profev_reader_new(FILE *f, struct profev_error *err);

/** The reader's last error; never NULL. */
const struct profev_error *profev_reader_error(const struct profev_reader *r);

/** Format version of the file header. */
void profev_reader_version(const struct profev_reader *r, unsigned *major, unsigned *minor);

/**
 * Read the next chunk and apply its definitions (strings, threads, modules,
 * stacks, symbols, metadata) to the reader's tables. Unknown kinds are
 * returned with raw == NULL and otherwise skipped. Events of an EVENTS chunk
 * are decoded into c->events; profev_reader_next_event() hands out the ones
 * not yet taken.
 * @return 1 with *c filled; 0 at the end chunk (totals available);
 *         PROFEV_E_NOEND when the input ends cleanly between chunks but
 *         without an end chunk; another <0 on errors (the offset names the
 *         chunk). Everything returned before an error stays valid.
 */
int profev_reader_next_chunk(struct profev_reader *r, struct profev_chunk *c);

/**
 * Next event in file order, reading chunks as needed.
 * @return 1 with *ev (and *info if not NULL) filled, 0 at the end,
 *         <0 as profev_reader_next_chunk().
 */
int profev_reader_next_event(struct profev_reader *r, struct profev_event *ev,
			     struct profev_event_info *info);

/**
 * The next run of events in file order, reading chunks as needed: *events
 * points into the reader's decoded chunk (nothing is copied and no id is
 * resolved) and *count is at least 1. This is the fast way through a
 * trace; resolve only what you need with profev_reader_string(),
 * profev_reader_thread_name() and profev_reader_event_text().
 *
 * A THREAD_NAME event only ever starts a run, and the reader applies it
 * before returning, so for every event of a run the thread names are those
 * in force when it happened (as with profev_reader_next_event()). Ids are
 * defined before the chunk that uses them: a run may hold ids above
 * profev_reader_string_count() or profev_reader_stack_count() only in a
 * corrupt trace, where they resolve to "" and NULL. May be mixed with
 * profev_reader_next_event(): each hands out the events the other has not.
 * @return 1 with *events and *count set; 0 at the end (*count = 0);
 *         <0 as profev_reader_next_chunk(). The array stays valid until
 *         the next call that reads (_next_chunk, _next_event, _next_events).
 */
int profev_reader_next_events(struct profev_reader *r, const struct profev_event **events,
			      size_t *count);

/**
 * The text of a MESSAGE event, ev pointing into the current chunk's events
 * (an array from profev_reader_next_events() or profev_chunk.events).
 * @return the text, not NUL-terminated, with *len its length; "" and
 *         *len = 0 for any other event or pointer. Valid as the array is.
 */
const char *profev_reader_event_text(const struct profev_reader *r, const struct profev_event *ev,
				     size_t *len);

/** Resolve ids against what has been read so far. Returned pointers stay
 *  valid until the next profev_reader_next_chunk(), _next_event() or
 *  _next_events() call. */
const char *profev_reader_string(const struct profev_reader *r, uint32_t id); /**< "" if unknown */
uint32_t profev_reader_string_count(const struct profev_reader *r);
const char *profev_reader_thread_name(const struct profev_reader *r, uint32_t tid); /**< "" if unknown */
uint32_t profev_reader_thread_pid(const struct profev_reader *r, uint32_t tid);
const struct profev_module *profev_reader_module(const struct profev_reader *r, uint32_t index); /**< NULL */
uint32_t profev_reader_module_count(const struct profev_reader *r);
/** Frames of callstack id; NULL (and *n = 0) if unknown. */
const struct profev_frame *profev_reader_stack(const struct profev_reader *r, uint32_t id, unsigned *n);
uint32_t profev_reader_stack_count(const struct profev_reader *r);
/** Inline chain of (module, offset), innermost first; NULL if not symbolized. */
const struct profev_symframe *profev_reader_symbol(const struct profev_reader *r, uint32_t module,
						   uint64_t offset, unsigned *n);
/** The source location of call site id (an event's name), NULL if the
 *  string is no call site's. */
const struct profev_srcloc *profev_reader_srcloc(const struct profev_reader *r, uint32_t id);
/** Metadata merged from every metadata chunk read so far. */
const struct profev_meta *profev_reader_meta(const struct profev_reader *r);
/** Totals of the end chunk; NULL until it has been read. */
const struct profev_totals *profev_reader_totals(const struct profev_reader *r);
/**
 * The image a frame_image event names (its payload), as its image chunk
 * gave it: the reader holds the latest images read (64 MiB of them, and
 * writers write events at least every 16 MiB of images), so an event finds
 * its image. NULL if it was lost or let go. Valid until the next reader
 * call that reads.
 */
const struct profev_image *profev_reader_image(const struct profev_reader *r, uint32_t id);
/** Image chunks read so far whose image was lost: corrupt data (checksum
 *  or body), or coded against an image that was lost. */
uint64_t profev_reader_lost_images(const struct profev_reader *r);
/** Bytes consumed from the input so far. */
uint64_t profev_reader_offset(const struct profev_reader *r);

/* ------------------------------------------------------------------ */
/* GPU zones (formats/trace.md, "GPU")                                 */
/* ------------------------------------------------------------------ */

/** At most this many GPU contexts, ids 0..255. */
#define PROFEV_GPU_MAX_CONTEXTS 256

/** What made a GPU context. */
enum profev_gpu_kind {
	PROFEV_GPU_MANUAL = 1,  /**< timestamps given by the program (<profev_gpu.h>) */
	PROFEV_GPU_OPENGL = 2,  /**< timer queries (<profev_gl.h>) */
	PROFEV_GPU_VULKAN = 3,  /**< vkCmdWriteTimestamp (<profev_vulkan.h>) */
};

/** A GPU context: one clock and one track of GPU zones. */
struct profev_gpu_context {
	uint32_t id;              /**< 0..255 */
	uint32_t name;            /**< string id of its name */
	uint32_t kind;            /**< enum profev_gpu_kind */
	uint32_t tid;             /**< the thread that made it */
	double period_ns;         /**< ns per GPU tick; a reader refuses <= 0, NaN */
	/* What a reader learned (zero in what a writer is given): */
	uint64_t calibrations;    /**< calibrations accepted */
	uint64_t bad_calibrations; /**< refused: time standing still or going
	                                backwards, or no usable period */
	uint64_t lost;            /**< zones the program could not record */
	uint64_t unmapped;        /**< zones read that could not be placed */
	double max_drift_ns;      /**< largest |CPU time - the previous
	                               calibration's prediction| at a calibration */
	double drift_ppm;         /**< the clocks' drift from the first to the
	                               latest calibration, per million */
	uint64_t error_ns;        /**< the largest error_ns of the calibrations
	                               accepted */
};

/** A GPU calibration: a GPU and a CPU reading taken together. */
struct profev_gpu_calibration {
	uint32_t ctx;
	uint32_t error_ns;        /**< how far apart the two readings may be */
	uint64_t gpu;             /**< GPU ticks */
	uint64_t cpu_ns;          /**< CLOCK_MONOTONIC ns, the events' time base */
};

/** Flags of a GPU zone a reader hands out. */
enum profev_gpu_zone_flags {
	PROFEV_GPUZ_UNMAPPED = 1u << 0, /**< no usable calibration: begin_ns and
	                                    end_ns are 0; show it nowhere */
	PROFEV_GPUZ_BACKWARDS = 1u << 1, /**< gpu_end < gpu_begin: end_ns is begin_ns */
};

/** A GPU zone: what the GPU did between two timestamps. */
struct profev_gpu_zone {
	uint64_t gpu_begin, gpu_end; /**< GPU ticks, as recorded */
	uint64_t cpu_ns;          /**< when its begin was recorded on the CPU */
	uint64_t begin_ns, end_ns; /**< reader: on the CPU timeline (CLOCK_MONOTONIC) */
	uint32_t ctx;             /**< its context */
	uint32_t name;            /**< string id (or call site) of its name */
	uint32_t tid;             /**< the thread that recorded it */
	uint32_t flags;           /**< reader: enum profev_gpu_zone_flags */
};

/** Define GPU context c->id (name: c->name is ignored, name given here).
 *  A later definition of the same id replaces it. @return 0 or <0. */
int profev_writer_gpu_context(struct profev_writer *w, const struct profev_gpu_context *c,
			      const char *name);
/** Record a calibration of context cal->ctx, as it came. @return 0 or <0. */
int profev_writer_gpu_calibration(struct profev_writer *w, const struct profev_gpu_calibration *cal);
/** n more zones of context ctx that the program could not record. */
int profev_writer_gpu_lost(struct profev_writer *w, uint32_t ctx, uint64_t n);
/** Append n GPU zones (begin_ns, end_ns and flags are not stored), each of
 *  a context defined before, parents before the zones they hold. */
int profev_writer_gpu_zones(struct profev_writer *w, const struct profev_gpu_zone *z, size_t n);

/** The GPU context id as read so far, NULL if not defined. */
const struct profev_gpu_context *profev_reader_gpu_context(const struct profev_reader *r, uint32_t id);
/**
 * CPU time of GPU tick gpu of context ctx, by the calibrations read so
 * far: between two calibrations, the line through them; before the first
 * or after the last, that one and the context's period.
 * @return 0 with *ns set, or -1 when the context has no usable calibration.
 */
int profev_reader_gpu_time(const struct profev_reader *r, uint32_t ctx, uint64_t gpu, uint64_t *ns);
/** Called with every GPU zones chunk's zones as the reader reads it (from
 *  _next_chunk, _next_event and _next_events alike). NULL: none. */
typedef void (*profev_gpu_zones_fn)(void *arg, const struct profev_gpu_zone *z, size_t n);
void profev_reader_on_gpu_zones(struct profev_reader *r, profev_gpu_zones_fn fn, void *arg);

/** Accepts NULL. */
void profev_reader_free(struct profev_reader *r);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
