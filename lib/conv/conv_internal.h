/*
 * conv/conv_internal.h - the converters' ops table (not installed).
 *
 * read_loop.c owns the one read loop: it keeps each thread's stack of
 * open zones, applies the time window, the thread filter and the split into
 * parts, closes zones left open, and calls one struct conv_ops per target
 * (conv/perfetto.c, conv/chrome.c, conv/folded.c). A new target is a new
 * file and a row in targets.c's table. Targets only write: they never see
 * an unmatched end, an event outside the window or a filtered thread.
 *
 * The loop's own state (struct conv_loop, at the end) is shared by its
 * files: read_loop.c (the loop and the dispatch of events), targets.c (the
 * registry of targets), tracks.c (the tracks by key), zone_stack.c (the
 * zones through the window; its hot half inline in zone_stack.h), parts.c
 * (the split into parts), memory.c (live blocks and pools), lock_waits.c
 * (locks and their waits) and warnings.c. The Perfetto and Chrome
 * targets' states are struct perfetto and struct chrome, before it.
 */
#ifndef PROFEV_CONV_INTERNAL_H
#define PROFEV_CONV_INTERNAL_H
#include <stdlib.h>
#include <string.h>
#include "common/outbuf.h"
#include "common/json_write.h"
#include "common/u64_map.h"
#include "profev_conv.h"

#define CONV_HIDDEN OUTBUF_HIDDEN

/* An open zone. For the frames track a zone is one frame. */
struct conv_zone {
	uint64_t begin;  /* ts of its BEGIN (its frame mark) */
	uint64_t shown;  /* where it starts in the output: begin, or the window
	                    edge, cut or filter match it was reopened at */
	uint64_t child;  /* ns covered by its written children since shown */
	union {
		uint64_t frame;  /* frames track: the frame number */
		uint64_t stack;  /* thread: callstack id of its BEGIN, 0 = none;
		                    defined in the reader (conv.c drops ids it
		                    does not know) */
	};
	uint64_t aux;    /* the target's own (folded: the stack node) */
	uint32_t name;   /* string id of the zone (frames: of the frame set); a
	                    zone name event (PROFEV_EVF_ZONE_NAME) changes it */
	uint32_t cat;    /* string id of its category */
	uint32_t args;   /* its arguments and flow marks are t->args[args..t->nargs) */
	uint32_t begun_name; /* the target's own: Chrome's name of its B event */
};

enum conv_track_kind {
	CONV_THREAD = 0, /* a thread of the traced program */
	CONV_FRAMES = 1, /* a frame set: frame N spans its mark to the next */
};

struct conv_thread {
	uint64_t key;          /* tid, or 1 << 32 | frame set's string id */
	int kind;              /* enum conv_track_kind */
	uint32_t tid;          /* threads: its TID; frames: the set's string id */
	uint32_t pid;
	unsigned seq;          /* creation order, from 0 */
	char *name;            /* current name, "" if none (frames: set name) */
	const char *name_src;  /* reader pointer the name was last copied from */
	uint64_t name_gen;     /* the read loop's generation it was checked in */
	int selected;          /* passes the thread filter */
	int phase;             /* 0 before the window, 1 in it, 2 past it */
	int announced;         /* ops->thread ran in the current part */
	uint64_t last_ts;      /* latest timestamp seen on it */
	struct conv_zone *stack;
	unsigned depth, cap;
	unsigned dropped;      /* zones over PROFEV_CONV_MAX_DEPTH still open */
	uint64_t aux;          /* the target's own */
	/* Arguments and flow marks (ARG, FLOW_OUT, FLOW_IN events) of the open
	 * zones, innermost last; a zone's are forgotten once it has ended. */
	struct profev_event *args;
	uint32_t nargs, args_cap;
	/* POINT_ARG events for its next instant or message (conv_point_args()). */
	struct profev_event *point;
	uint32_t npoint, point_cap;
	uint64_t wait_lock, wait_ts; /* a LOCK_WAIT not yet acquired, 0 = none */
	uint32_t wait_name;
	uint64_t spans;        /* discontinuous frames begun on a frames track */
};

/* A GPU zone being written (gpu_tracks.c): its times on the CPU timeline,
 * cut to the window and to the zone it is in. */
struct conv_gpu_zone {
	uint64_t begin, end;
	uint64_t child;        /* ns covered by its children, once they ended */
	uint64_t aux;          /* the target's own (folded: the stack node) */
	uint32_t name;         /* string id (a call site's) */
};

#define CONV_GPU_MAX_DEPTH 64
/* A GPU context's track: its zones open in the output, outermost first. */
struct conv_gpu_track {
	uint32_t ctx;          /* context id */
	uint32_t part;         /* the target's: the part it was described in */
	uint64_t aux;          /* the target's own */
	uint64_t last;         /* the end of the last outermost zone */
	uint64_t dropped;      /* zones deeper than CONV_GPU_MAX_DEPTH */
	unsigned depth;
	struct conv_gpu_zone stack[CONV_GPU_MAX_DEPTH];
};

/* A thread's wait for a lock, ended by its acquisition. */
struct conv_wait {
	uint64_t begin, end;   /* the wait's and the acquisition's ts */
	uint64_t lock;         /* the lock's address */
	uint32_t name;         /* string id of the lock's name, 0 = none */
	uint32_t holder;       /* tid that held the lock when the wait began, 0 =
	                          none or unknown (the read loop holds a wait back
	                          until the events of its holder's hold are read) */
};

/* How a zone begins or ends in the output. */
enum conv_edge {
	CONV_EDGE_NORMAL = 0,
	CONV_EDGE_CUT = 1,      /* at a window edge, a split or a filter match */
	CONV_EDGE_UNCLOSED = 2, /* never closed: ends at its thread's last ts */
	CONV_EDGE_BEFORE = 3,   /* begun before the trace's window (ZONE_BEFORE) */
	CONV_EDGE_AFTER = 4,    /* still open at the window's end (ZONE_AFTER) */
};

struct conv {
	const struct conv_ops *ops;
	const struct profev_conv_opts *opts;
	struct profev_reader *r;
	struct outbuf out;
	struct profev_conv_stats st;
	uint64_t base;         /* trace start, ns: times are shown relative to it */
	uint32_t pid;          /* the traced process */
	const char *program;   /* its path, NULL if unknown */
	uint64_t now;          /* ts of the event being converted */
	uint64_t part_start;   /* outbuf_size() when the current part began */
	void *fmt;             /* the target's state */
};

/*
 * A memory event as the targets see it. conv.c keeps the blocks still
 * allocated by address and the live bytes per pool, over the whole trace
 * and every thread, so a window or a thread filter never changes the
 * counter's values; an allocation over a block still live first frees it,
 * and a free of an unknown address is not passed on.
 */
struct conv_mem {
	uint64_t size;  /* bytes allocated or freed */
	uint64_t live;  /* the pool's live bytes after the event */
	uint32_t pool;  /* string id of the block's pool, 0 = default */
};

/*
 * A target. Every callback returns 0 or a negative enum profev_errc; an
 * output error is the outbuf's sticky error. Callbacks that may be NULL say
 * so. Strings come from the reader (profev_reader_string(c->r, id)) and are
 * valid during the call only.
 */
struct conv_ops {
	const char *name;
	int split_ok;   /* output can be cut into complete parts */
	int (*init)(struct conv *c);                   /* may be NULL */
	void (*fini)(struct conv *c);                  /* may be NULL */
	/* Start and end a part (file header and trailer; reset what each part
	 * must define again, such as Perfetto's interning). */
	int (*part_begin)(struct conv *c);
	int (*part_end)(struct conv *c);
	/* A track is about to get its first event in this part, or was renamed. */
	int (*thread)(struct conv *c, struct conv_thread *t);
	int (*zone_begin)(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge);
	/* z is still on t's stack (t->stack[t->depth - 1]) during the call. */
	int (*zone_end)(struct conv *c, struct conv_thread *t, struct conv_zone *z,
			uint64_t ts, int edge);
	/* Instants and messages carry their arguments: conv_point_args(). */
	int (*instant)(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
	/* text[0..len) is the message's text, not NUL-terminated. */
	int (*message)(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		       const char *text, size_t len);
	int (*lost)(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
	int (*counter)(struct conv *c, const struct profev_event *ev);
	/* A memory event (ev->type MEM_ALLOC or MEM_FREE) in the window. t is
	 * its thread, or NULL when only the pool's counter is to be written:
	 * the thread filter leaves the thread out, or conv.c restates each
	 * pool's live bytes where a later part or the window starts (a FREE
	 * of size 0). NULL: memory is skipped. */
	int (*memory)(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const struct conv_mem *m);
	/* A frame image (a FRAME_IMAGE event in the window, its image still
	 * held by the reader), on thread t. NULL: images are skipped, as they
	 * are with PROFEV_CONV_NO_IMAGES. */
	int (*image)(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		     const struct profev_image *img);
	/* A cpu-clock sample of t (ev->type SAMPLE; ev->stack known to the
	 * reader or 0) in the window, at ev->ts. Samples and switches come in
	 * the kernel's order, not with t's zones: t's clock may be past ev->ts.
	 * NULL: samples are skipped. */
	int (*sample)(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
	/* A context switch of t (SWITCH_OUT or SWITCH_IN), as sample().
	 * NULL: switches are skipped. */
	int (*sched)(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
	/* ev->payload samples and switches that the kernel dropped from a ring
	 * (SAMPLE_LOST, on the program's main thread t), as sample(). NULL:
	 * losses are left out. */
	int (*sample_lost)(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
	/* The program crashed on t (ev->type CRASH: ev->name the signal's
	 * name, ev->payload the fault address, ev->stack known to the reader
	 * or 0), in the window, at c->now: t's last event, in its order (its
	 * zones still open end there). NULL: left out. */
	int (*crash)(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
	/* After the last event, before the last part_end. May be NULL. */
	int (*finish)(struct conv *c);
	/* An ARG, FLOW_OUT or FLOW_IN event of t's top zone z, which the read
	 * loop has just added to the zone's (conv_zone_args()). May be NULL. */
	int (*arg)(struct conv *c, struct conv_thread *t, struct conv_zone *z, const struct profev_event *ev);
	/* An ASYNC_BEGIN or ASYNC_END of thread t (the span's category is its
	 * site's: profev_reader_srcloc()). May be NULL: skipped. */
	int (*async)(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
	/* t's top zone z was renamed (z->name; a PROFEV_EVF_ZONE_NAME arg, which
	 * is not one of its arguments): a target that wrote z's begin with its
	 * old name may write it again. May be NULL: the zone shows under its
	 * new name where its events are written from here on. */
	int (*zone_rename)(struct conv *c, struct conv_thread *t, struct conv_zone *z);
	/* Thread t waited for a lock and has it now. May be NULL: skipped. */
	int (*lock_wait)(struct conv *c, struct conv_thread *t, const struct conv_wait *w);
	/* A GPU zone z begins on GPU track t (z on t->stack, c->now its
	 * begin), and ends (z->end) after the zones it holds. Per track in
	 * time order; across tracks and threads, in no order. gpu_begin
	 * NULL: GPU zones are skipped; gpu_end may be NULL. */
	int (*gpu_begin)(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z);
	int (*gpu_end)(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z);
};

/* The arguments and flow marks of t's zone z (on its stack), in order. */
static inline const struct profev_event *conv_zone_args(const struct conv_thread *t,
							 const struct conv_zone *z, uint32_t *n)
{
	*n = t->nargs > z->args ? t->nargs - z->args : 0;
	return t->args ? t->args + z->args : NULL; /* no args yet: no NULL + 0 */
}

#define CONV_POINT_ARGS_MAX 256

/* The arguments of the instant or message that t's ops->instant() or
 * ops->message() is writing (POINT_ARG events), in order. */
static inline const struct profev_event *conv_point_args(const struct conv_thread *t, uint32_t *n)
{
	*n = t->npoint;
	return t->point;
}

CONV_HIDDEN extern const struct conv_ops conv_perfetto_ops;
CONV_HIDDEN extern const struct conv_ops conv_chrome_ops;
CONV_HIDDEN extern const struct conv_ops conv_folded_ops;
CONV_HIDDEN extern const struct conv_ops conv_png_ops;
CONV_HIDDEN extern const struct conv_ops conv_folded_alloc_ops;
CONV_HIDDEN extern const struct conv_ops conv_svg_ops;
CONV_HIDDEN extern const struct conv_ops conv_svg_alloc_ops;

/* Frame images as the targets write them (conv/shots.c). */
#define CONV_JPEG_QUALITY 85
struct conv_shots {
	void *tj;            /* TurboJPEG compressor, made on first use */
	uint8_t *rgba;
	size_t rgba_cap;
	unsigned char *jpg;  /* TurboJPEG's buffer */
	unsigned long jpg_cap;
};
CONV_HIDDEN void conv_shots_free(struct conv_shots *s);
/* img's pixels as RGBA8 in s->rgba, rows top-down. 0 or <0. */
CONV_HIDDEN int conv_shot_rgba(struct conv_shots *s, const struct profev_image *img);
/* img as a JPEG of CONV_JPEG_QUALITY: *jpg[0..*len), valid until the next
 * call. 0 or <0. */
CONV_HIDDEN int conv_shot_jpeg(struct conv_shots *s, const struct profev_image *img,
			       const uint8_t **jpg, size_t *len);
/* n bytes as base64 (4 * ((n + 2) / 3) bytes; the caller reserved them). */
CONV_HIDDEN void conv_base64(struct outbuf *o, const uint8_t *p, size_t n);

/* Shared helpers for targets (titles.c). */
/* Name shown for a track: the thread's name, else "thread TID". */
CONV_HIDDEN const char *conv_track_name(const struct conv_thread *t, char buf[32]);
/* "Frame N", a frame's title, in buf (at least CONV_FRAME_TITLE bytes, not
 * NUL-terminated): once per frame, where snprintf() cost ten instructions
 * per event of a game trace. @return its length. */
#define CONV_FRAME_TITLE 32
CONV_HIDDEN size_t conv_frame_title(char *buf, uint64_t frame);
/* A message's one-line title: its text up to the first line end, at most
 * max bytes, cut on a UTF-8 boundary. @return its length. */
CONV_HIDDEN size_t conv_message_title(const char *text, size_t len, size_t max);
/* A set of ids (string or callstack ids), growing with the largest id; the
 * read loop keeps ids within the reader's tables, so its size is bounded
 * (id_set.c). */
struct conv_idset {
	uint64_t *w;
	size_t nw;
};
CONV_HIDDEN int conv_idset_grow(struct conv_idset *s, uint32_t id);
/* Add id: 1 if it is new, 0 if it was there, <0 on no memory. */
static inline int conv_idset_add(struct conv_idset *s, uint32_t id)
{
	size_t i = id >> 6;
	if (__builtin_expect(i >= s->nw, 0) && conv_idset_grow(s, id))
		return PROFEV_E_NOMEM;
	uint64_t bit = 1ull << (id & 63);
	if (s->w[i] & bit)
		return 0;
	s->w[i] |= bit;
	return 1;
}
static inline int conv_idset_has(const struct conv_idset *s, uint32_t id)
{
	size_t i = id >> 6;
	return i < s->nw && (s->w[i] >> (id & 63) & 1);
}
static inline void conv_idset_clear(struct conv_idset *s)
{
	if (s->w)
		memset(s->w, 0, s->nw * sizeof(*s->w));
}
static inline void conv_idset_free(struct conv_idset *s)
{
	free(s->w);
	s->w = NULL;
	s->nw = 0;
}
/* Frames of callstack id as the reader knows them, innermost first; NULL
 * (and *n = 0) for an unknown or empty one. */
static inline const struct profev_frame *conv_stack(const struct conv *c, uint32_t id, unsigned *n)
{
	const struct profev_frame *f = id ? profev_reader_stack(c->r, id, n) : NULL;
	if (!f || !*n) {
		*n = 0;
		return NULL;
	}
	return f;
}

/*
 * The inline chain of (module, offset), innermost first, as the viewers
 * show it: profev's own helpers inlined at its innermost end (the bodies of
 * <profev.h>'s macros and of the Tracy layer's, functions named profev__*
 * or profev_tracy__*) are left out, so that callstacks begin at the user's
 * call site; the outermost function always stays. The client cannot skip
 * them when it captures: they are inlined, so the first pc it keeps (the
 * return address into the macro's caller) is in the user's function, and
 * only the debug info says a helper was inlined there. pfsym and pfdump
 * keep the whole chain. NULL (and *n = 0) if not symbolized.
 */
static inline const struct profev_symframe *conv_symbol(const struct conv *c, uint32_t module,
							 uint64_t offset, unsigned *n)
{
	const struct profev_symframe *s = profev_reader_symbol(c->r, module, offset, n);
	if (!s) {
		*n = 0;
		return NULL;
	}
	while (*n > 1 && s->function &&
	       (!strncmp(s->function, "profev__", 8) || !strncmp(s->function, "profev_tracy__", 14)))
		s++, --*n;
	return s;
}

/* The output error as a return code: the outbuf's sticky sink error. */
static inline int conv_out_rc(const struct conv *c) { return c->out.err ? PROFEV_E_IO : 0; }

/* ------------------------------------------------------------------ */
/* The Perfetto target's state (perfetto*.c)                           */

/*
 * Callstack interning. The trace's callstack ids serve as callstack iids
 * and module index + 1 as mapping and build-id iids. Frames get their own
 * iids: each distinct (module, offset) a run of consecutive ones, one per
 * function of its inline chain (one if it is not symbolized), innermost
 * first; function names and source paths take their frame's iid. Iids are
 * never reused for other values, as Perfetto requires across resets; each
 * part defines again what it uses.
 */
struct frame_iids {
	uint64_t offset;
	uint32_t module;  /* index, or NO_MODULE: the offset is an absolute pc */
	uint32_t iid;     /* first of n; 0 = empty slot */
	uint32_t n;
	uint32_t part;    /* part it was last defined in, counted from 1 */
	uint32_t ret;     /* a return address: rel_pc is offset - 1 */
};
#define NO_MODULE UINT32_MAX

/* A packet sequence and what is interned on it in the current part. */
struct perfetto_seq {
	uint32_t id;        /* trusted_packet_sequence_id */
	uint32_t part;      /* the part it was started in, 0 = none yet */
	uint32_t idx;       /* track sequences: the track's creation order */
	int incremental;    /* timestamps are deltas on CLOCK_SEQ */
	uint64_t last;      /* that clock: the last time written on it */
	uint64_t track;     /* default track uuid, 0 = none */
	uint64_t head;      /* after the timestamp: the sequence id's field and
	                       TP_TRACK_EVENT's tag and a length byte, from the
	                       lowest byte; their count in the top byte */
	uint64_t needs;     /* sequence_flags SEQ_NEEDS_INCREMENTAL_STATE, as
	                       head: on every packet after a track sequence's
	                       first (its TracePacketDefaults require it); 0 on
	                       sequence 1, where only packets that refer to
	                       interned data carry it */
	/* string ids interned on it in the part (sets of ids): event names,
	 * categories, source locations and debug annotation names */
	struct u64_map names, cats, srclocs, arg_names;
};

/* A zone name's TE_NAME_IID and TE_CATEGORY_IIDS fields, encoded once: they
 * may be copied in the part they were made in, for the category they were
 * made with, on the sequences whose bit is set in seqs (both strings are
 * interned there, and so is the source location when it is encoded). */
struct zone_name_fields {
	uint64_t bytes[2];  /* the fields, from the lowest byte */
	uint64_t seqs;      /* track sequences by idx, the first 64 */
	uint32_t cat;
	uint32_t part_len;  /* part << 6 | srcloc << 5 | byte count (at most 16) */
};

struct perfetto {
	struct conv_idset counters, pools, stacks, mappings;
	struct perfetto_seq shared;  /* sequence 1 */
	struct perfetto_seq **seqs;  /* track sequences by creation order */
	uint32_t nseqs;
	struct perfetto_seq *cur;    /* the sequence being written on */
	struct conv_thread *last_t; /* the track last written for */
	struct u64_map asyncs;       /* async track uuids described in this part */
	/* The zone begin written last, while nothing follows it: the arguments
	 * and flows that come next are written into it again. */
	const struct conv_thread *open_t;
	unsigned open_depth;
	int open_edge;
	const uint8_t *open_p;
	uint64_t open_drained;
	size_t open_len;
	struct perfetto_seq *open_seq;   /* its sequence, and that clock before it */
	uint64_t open_last;
	/* Arguments whose keys the packet being written defines. */
	const struct profev_event *key_args;
	uint32_t nkey_args;
	/* What the open zone begin defined, to define again when it is
	 * written again; more than fits: it is not written again. */
	struct { struct u64_map *set; uint32_t id; } undo[16];
	unsigned nundo;
	struct zone_name_fields *zone_fields; /* by zone name id */
	uint32_t nzone_fields;
	int allocs_track;         /* the allocations track is described */
	int shots_track;          /* the Screenshots track is described */
	struct conv_shots shots;  /* frame images to JPEG */
	uint32_t part;
	/* (module, offset, return address) -> frame iids: three keys, not one
	 * u64, so a table of its own (perfetto_callstacks.c) */
	struct frame_iids *frames;
	size_t frames_mask, nframes;
	uint32_t next_iid;
	/* What the packet being prepared defines. */
	uint32_t stack;           /* callstack to define, 0 = none */
	struct frame_iids *new_frames;
	uint32_t *new_modules;
	unsigned nnew_frames, nnew_modules, new_cap;
};

/* ------------------------------------------------------------------ */
/* The Chrome target's state (chrome*.c)                               */

/* A string's quoted JSON form, kept in the arena: names repeat on every
 * event, so each is escaped and checked for UTF-8 once. */
struct json_name {
	uint32_t off, len; /* len 0: not made yet */
};

/* A zone's ,"name":N,"cat":K in the arena, made from its name and the
 * first category it came with: most of an X event, in one copy. */
struct zone_fragment {
	uint32_t off, len; /* len 0: not made yet */
	uint32_t cat;      /* the category it holds */
};
#define FRAG_COPY 64       /* fragments this short are copied as 64 bytes */

/*
 * Exact nesting. A viewer ends an X event at ts + dur, and one that adds
 * them as doubles (speedscope does, after subtracting the thread's first
 * ts) may end it an ulp before or after another time that is the same ns:
 * a child that ends with its parent (two scope exits in the same ns), a
 * zone that ends where the next begins. A zone whose end is the time of
 * another zone's begin or end on its thread is therefore written as a B
 * and an E event, whose times are the same text as the other's and so the
 * same double. The two forms cannot mix among zones that begin together:
 * at one ts trace_processor takes X events (longest first) before B
 * events, speedscope B events before X ones. So a zone that begins with
 * its parent is a member of its parent's chain, and a chain (its head, the
 * outermost, and the members under it) takes one form, decided when the
 * head has ended and the thread's next zone boundary shows whether that end
 * coincides: until then the ended zones wait on the thread's deferred
 * stack, innermost first. B events are written outermost first and E
 * events innermost first, the order in which equal times must be read.
 */
struct deferred_zone {
	struct conv_zone z;
	uint64_t end;
	int edge;
	int force;  /* its chain must be B and E events */
	char *args; /* its ,"args":{...} (malloc'ed), NULL: none but the edge's */
};

struct chrome_thread {
	struct conv_thread *t;
	struct deferred_zone *deferred; /* the deferred stack */
	uint32_t n, cap;
	uint32_t awaiting;    /* 1 + base of the ended chain awaiting the next boundary; 0: none */
	uint32_t just;        /* 1 + index of the zone that ended last, until the next boundary; 0: none */
	uint64_t last_end;    /* 1 + ts of the thread's last zone end; 0: none in the part */
};

struct chrome {
	int first;  /* no event written in this part yet */
	struct conv_shots shots;  /* frame images to JPEG */
	struct conv_idset stacks; /* callstacks the part's events refer to */
	struct json_name *names; /* by string id */
	uint32_t nnames;
	char *arena;
	size_t arena_len, arena_cap;
	struct json_us_cache ts; /* the digits of the last "ts" */
	struct zone_fragment *fragments; /* by zone name id */
	uint32_t nfragments;
	struct chrome_thread *threads; /* by track's creation order */
	uint32_t nthreads;
	char *args;          /* a zone's ,"args":{...} being made */
	size_t args_cap;
	struct u64_map flows; /* flow ids started (a set) */
};

/* ------------------------------------------------------------------ */
/* The read loop's state                                               */

/* A memory block still allocated (memory.c), by address. */
struct live_block {
	uint64_t addr;  /* the map's key: never 0 (blocks at 0 are not kept) */
	uint64_t size;
	uint32_t pool;  /* string id of its pool */
};

/* A pool's live bytes (memory.c); pools are few: searched in order. */
struct mem_pool {
	uint32_t name;
	uint64_t live;
};

/* A lock, for the holder of a wait (lock_waits.c): its latest holds as the
 * events read so far tell, up to CONV_LOCK_HOLDS of them (a waiter's events
 * may reach the file that many holds after its holder's). The history grows
 * with the lock's use, so a trace of many locks each taken once keeps
 * little. */
#define CONV_LOCK_HOLDS 64
struct lock_hold {
	uint64_t from, to; /* to = UINT64_MAX: still held */
	uint32_t tid;
};
struct lock_history {
	uint64_t addr;          /* the map's key: never 0 */
	struct lock_hold *hold; /* the newest at (n - 1) & (cap - 1) */
	uint32_t n, cap;        /* cap grows only before the history wraps */
};

/*
 * A lock wait whose holder the events read so far do not settle: threads'
 * events reach the file in batches, so the holder's acquisition or release
 * may come after the waiter's acquisition. The candidate is the other
 * thread's hold that began last at or before the wait: when its release is
 * read, it either covers the wait's start (the holder, final: holds of one
 * lock do not overlap) or ended before it (no holder, unless a later hold
 * that began before the wait is still to come).
 */
#define CONV_HELD_WAITS 64
struct held_wait {
	struct conv_thread *t;
	struct conv_wait w;  /* w.holder: the candidate's thread, 0 = none yet */
	uint64_t from, to;   /* the candidate hold; to = UINT64_MAX: not released yet */
};

/* A track's entry in the read loop's index: its key + 1, as a TID may be 0. */
struct track_index_entry {
	uint64_t key_plus_1;
	uint64_t index; /* in struct conv_loop's threads */
};

struct conv_loop {
	struct conv c;
	const struct profev_conv_sink *sink;
	struct conv_zpack *zpack;   /* PROFEV_CONV_COMPRESS: between c.out and sink */
	uint64_t from, to;          /* absolute window */
	int based;                  /* base is known */
	int in_part;                /* a part is open */
	uint64_t part_events;       /* events written to the current part */
	uint64_t open_zones;        /* over all threads, for the split estimate */
	uint64_t last_ts;           /* latest timestamp in the trace so far */
	uint64_t filter_tid;        /* opts->thread as a TID, 0 if a name */
	struct conv_thread **threads; /* every track, in creation order */
	unsigned nthreads, threads_cap;
	struct u64_map track_index; /* track key + 1 -> struct track_index_entry */
	struct conv_thread *last;   /* lookup cache: events come in runs per thread */
	uint64_t gen;               /* counts the reader's runs of events: thread
	                               names can only change between them */
	uint32_t nstr;              /* strings the reader knows in this run */
	const struct profev_event *text_src; /* the reader's copy of an event
	                               on_event() sees corrected, for its text */
	uint64_t warned[PROFEV_CONV_W_SUMMARY];
	struct u64_map live_blocks; /* struct live_block by address */
	struct u64_map locks;       /* struct lock_history by address */
	struct held_wait *waits;    /* lock waits held back, oldest first */
	uint32_t nwaits, waits_cap;
	struct mem_pool *pools;     /* live bytes per pool */
	unsigned npools, pools_cap;
	uint32_t nstacks;           /* callstacks the reader knew at last look */
	int snap;                   /* restate the pools' live bytes: at snap_ts,
	                               or at the next event's ts if 0 */
	uint64_t snap_ts;
	int pending;                /* before the next event: open a part or
	                               restate memory (one test per event) */
	struct conv_gpu *gpu;       /* GPU zones (gpu_tracks.c), NULL: none yet */
	int gpu_failed;
};

/* targets.c: the target of options checked by conv_check_opts(). */
CONV_HIDDEN const struct conv_ops *conv_target(const struct profev_conv_opts *o);
/* 0, or <0 with err set: options the loop cannot run. */
CONV_HIDDEN int conv_check_opts(const struct profev_conv_opts *o, const struct profev_conv_sink *sink,
				struct profev_error *err);

/* warnings.c: warnings of one kind told one by one up to a few, then
 * counted for conv_warn_summary(). */
CONV_HIDDEN void conv_warn(struct conv_loop *l, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "1.234567890s" after the trace start, for warnings. */
CONV_HIDDEN const char *conv_when(const struct conv_loop *l, uint64_t ts, char buf[40]);
CONV_HIDDEN void conv_warn_summary(struct conv_loop *l);

/* tracks.c: tracks by key (a TID, 1 << 32 | a frame set's string id, or
 * 2 << 32 | a set of discontinuous frames). */
CONV_HIDDEN struct conv_thread *conv_track_find(struct conv_loop *l, uint64_t key);
/* The thread of ev, made on first sight, its name brought up to date in
 * this run of events (tracks.h's conv_thread_of() tries the cache
 * first). NULL on no memory or an output error. */
CONV_HIDDEN struct conv_thread *conv_thread_lookup(struct conv_loop *l, const struct profev_event *ev);
/* The track of frame set set's marks, and that of its discontinuous frames. */
CONV_HIDDEN struct conv_thread *conv_frames_track(struct conv_loop *l, uint32_t set);
CONV_HIDDEN struct conv_thread *conv_spans_track(struct conv_loop *l, uint32_t set);
CONV_HIDDEN void conv_tracks_free(struct conv_loop *l);

/* zone_stack.c: the cold half of zone_stack.h's zone stack. */
/* Open in the output every zone on t's stack, outermost first, at ts. */
CONV_HIDDEN int conv_open_all(struct conv_loop *l, struct conv_thread *t, uint64_t ts);
/* Close in the output every zone on t's stack, innermost first, at ts;
 * they stay open in the trace. */
CONV_HIDDEN int conv_close_all(struct conv_loop *l, struct conv_thread *t, uint64_t ts, int edge);
CONV_HIDDEN int conv_advance_slow(struct conv_loop *l, struct conv_thread *t, uint64_t ts);
/* A zone named name begun at ts past PROFEV_CONV_MAX_DEPTH: dropped. */
CONV_HIDDEN void conv_zone_too_deep(struct conv_loop *l, struct conv_thread *t, uint64_t ts,
				    uint32_t name);

/* gpu_tracks.c: GPU zones from the reader, held until the events read with
 * them are converted, then written (last: every zone still open ends). */
CONV_HIDDEN void conv_gpu_start(struct conv_loop *l);
CONV_HIDDEN int conv_gpu_flush(struct conv_loop *l, int last);
CONV_HIDDEN void conv_gpu_free(struct conv_loop *l);

/* parts.c: the output's parts. */
CONV_HIDDEN int conv_part_open(struct conv_loop *l);
CONV_HIDDEN int conv_part_close(struct conv_loop *l);
/* Start a new part when this one is about to pass the split size. */
CONV_HIDDEN int conv_maybe_split(struct conv_loop *l);

/* memory.c: a MEM_ALLOC or MEM_FREE of t at ts (its stack id checked). */
CONV_HIDDEN int conv_memory_event(struct conv_loop *l, struct conv_thread *t,
				  const struct profev_event *ev, uint64_t ts);
/* Write every pool's live bytes at ts. */
CONV_HIDDEN int conv_memory_snapshot(struct conv_loop *l, uint64_t ts);
CONV_HIDDEN void conv_memory_free(struct conv_loop *l);

/* lock_waits.c: a LOCK_WAIT, LOCK_ACQUIRED or LOCK_RELEASED of t at ts. */
CONV_HIDDEN int conv_lock_event(struct conv_loop *l, struct conv_thread *t,
				const struct profev_event *ev, uint64_t ts);
/* Every held wait written out: at a split and at the end, where no later
 * event can tell more. */
CONV_HIDDEN int conv_waits_flush(struct conv_loop *l);
CONV_HIDDEN void conv_locks_free(struct conv_loop *l);
#endif
