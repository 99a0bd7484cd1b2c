/* The trace format's internals, shared by the writer, the reader and the
 * tools that copy chunks: file and chunk framing, storing chunks, the event
 * column codec, string interning and callstack dedup. Not installed. */
#ifndef PROFEV_TRACE_INTERNAL_H
#define PROFEV_TRACE_INTERNAL_H

#include <sys/uio.h>
#include "common/common.h"
#include "common/u64_map.h"

/* ---- file framing (formats/trace.md) ---- */
#define FILE_MAGIC "\x89PFV\r\n\x1a\n"
#define FILE_HEADER_SIZE 16
#define CHUNK_HEADER_SIZE 24
#define CHUNK_F_ZSTD 1u
/* Hostile-input limits: a reader refuses larger chunks before allocating. */
#define CHUNK_MAX_STORED (64u << 20)
#define CHUNK_MAX_RAW (256u << 20)
/* Events in one events chunk (formats/trace.md); writers make smaller ones. */
#define EVENTS_MAX_CHUNK (1u << 22)
#define STRING_MAX_LEN (1u << 20)
#define STACK_MAX_FRAMES 256u

/* ---- chunk framing (chunk.c) ---- */
struct chunk_header {
	uint16_t kind, flags;
	uint32_t count, stored_size, raw_size;
	uint64_t checksum;
};

void chunk_header_encode(uint8_t out[CHUNK_HEADER_SIZE], const struct chunk_header *h);
void chunk_header_decode(const uint8_t in[CHUNK_HEADER_SIZE], struct chunk_header *h);
/* XXH3 over header bytes 0..15 followed by the stored body. */
uint64_t chunk_checksum(const uint8_t header[CHUNK_HEADER_SIZE], const void *body, size_t len);

/* ---- storing chunks (chunk_store.c) ---- */
/* Compresses, checksums and writes chunks to fd, on the caller's thread or
 * (threaded) on a thread of its own, in the order they are put. Errors are
 * sticky: the call that meets one, or any later call, returns it with *err
 * filled (an offset in the file). */
struct chunk_store;
struct chunk_store *chunk_store_new(int fd, int level, int threaded); /* NULL: no memory */
void chunk_store_free(struct chunk_store *s); /* writes what is queued first */
/* Where a store hands whole chunks (kind, header then stored body in iov)
 * and raw bytes (kind 0) instead of writing them: 0, or <0 with *err. */
typedef int (*chunk_sink_fn)(void *ctx, unsigned kind, const struct iovec *iov, int n,
			     struct profev_error *err);
/* A store that hands its chunks to sink, on the caller's thread. */
struct chunk_store *chunk_store_new_sink(chunk_sink_fn sink, void *ctx, int level);
/* A chunk of kind with count entries; body compressed when asked and when
 * that makes it smaller. 0 or <0. */
int chunk_store_put(struct chunk_store *s, unsigned kind, uint32_t count, const void *body,
		    size_t len, int compress, struct profev_error *err);
/* Bytes written as they are: the file header (chunks = 0) or a chunk
 * copied whole (chunks = 1). 0 or <0. */
int chunk_store_raw(struct chunk_store *s, const void *bytes, size_t len, uint32_t chunks,
		    struct profev_error *err);
/* Wait until everything put is written. 0 or <0. */
int chunk_store_drain(struct chunk_store *s, struct profev_error *err);
/* Bytes and chunks written so far; from any thread. */
void chunk_store_counts(struct chunk_store *s, uint64_t *bytes, uint64_t *chunks);

/* ---- event column codec (event_codec.c) ---- */
struct event_text {
	uint32_t offset, len; /* a message text within the chunk body */
};

#define EVENT_COLUMNS 8
/* Codes events into the EVENTS chunk body as they come (event_codec.c). */
struct event_encoder;
/* An encoder for chunks of up to capacity events; NULL on no memory. */
struct event_encoder *encoder_new(uint32_t capacity);
void encoder_free(struct event_encoder *e);
/* Add one event; text is a MESSAGE's text. 1 when the chunk is now full,
 * 0 when it is not, PROFEV_E_NOMEM, or PROFEV_E_STATE when it already was. */
int encoder_add(struct event_encoder *e, const struct profev_event *ev, const char *text, size_t len);
/* Add events from ev[0] on while they are of ev[0]'s thread and neither a
 * MESSAGE nor a LOST (ev[0] must not be), at most n and as far as the
 * chunk has room. @return how many, or PROFEV_E_NOMEM. */
int64_t encoder_add_run(struct event_encoder *e, const struct profev_event *ev, uint32_t n);
/* A zone begin, zone end or instant with no flags and no callstack: what a
 * tight loop makes, and what a recorder can hand over without building
 * whole events. */
struct plain_event {
	uint64_t ts;
	uint32_t name;
	uint32_t category;  /* the payload: string id of the category's name */
	uint32_t type;      /* PROFEV_EV_ZONE_BEGIN, _ZONE_END or _INSTANT */
	uint32_t reserved;
};
/* Add up to n plain events of thread tid in frame, as far as the chunk has
 * room. @return how many, or PROFEV_E_NOMEM. */
int64_t encoder_add_plain(struct event_encoder *e, uint32_t tid, uint64_t frame,
			  const struct plain_event *ev, uint32_t n);
/* A writer whose chunks go to sink (see chunk_store_new_sink), on the
 * caller's thread; NULL with *err. */
struct profev_writer *writer_new_sink(chunk_sink_fn sink, void *ctx, const struct profev_writer_opts *opts,
				      struct profev_error *err);
/* A metadata chunk's body for m (only the fields set): 0 with the entry
 * count in *count, or PROFEV_E_NOMEM. */
int writer_meta_body(struct buf *b, const struct profev_meta *m, uint32_t *count);
/* The writer's side of it (trace/writer.c): n events, 0 or <0. */
int writer_add_plain(struct profev_writer *w, uint32_t tid, uint64_t frame,
		     const struct plain_event *ev, size_t n);
uint32_t encoder_count(const struct event_encoder *e);
size_t encoder_text_bytes(const struct event_encoder *e);
/* Write the chunk body into out and start the next chunk. 0 or NOMEM. */
int encoder_finish(struct event_encoder *e, struct buf *out);

/* Decode an EVENTS body of n events. texts receive (offset, len) of each
 * MESSAGE's text relative to body; *nthread_names counts THREAD_NAME events.
 * Returns 0 or PROFEV_E_CORRUPT with a message in *why. */
int events_decode(const uint8_t *body, size_t len, uint32_t n, struct profev_event *out,
		  struct event_text *texts, uint32_t *ntexts, uint32_t *nthread_names, const char **why);

/* ---- frame images (image_codec.c) ---- */
/* Codes DXT1 images for image chunks (format PROFEV_IMG_DXT1RC, or
 * PROFEV_IMG_DXT1Z as older writers did) and back, keeping the last image
 * of each size as the reference of the next. */
struct image_coder;
/* The writer writes its events out after this many bytes of images, and a
 * reader holds at least four times as many for the events that name them. */
#define IMAGE_EVENTS_EVERY (16u << 20)
#define IMAGE_HOLD_BYTES (4 * IMAGE_EVENTS_EVERY)
#define IMAGE_HOLD_COUNT 4096u
struct image_coder *image_coder_new(int zstd_level); /* 0: the default; NULL: no memory */
void image_coder_free(struct image_coder *c);
/* The format image_encode() writes: PROFEV_IMG_DXT1RC (the default) or
 * PROFEV_IMG_DXT1Z (for tests and measures). 0 or PROFEV_E_ARG. */
int image_coder_set_format(struct image_coder *c, uint32_t format);
uint32_t image_coder_format(const struct image_coder *c);
struct image_code_stats {
	size_t intra, inter; /* bytes coded alone, and against the reference (0: not tried) */
};
/* The coded data of a DXT1 image (img->data, img->size bytes of blocks),
 * appended to out; against the previous image of its size when that is
 * smaller and allow_inter. 0 or PROFEV_E_NOMEM. */
int image_encode(struct image_coder *c, const struct profev_image *img, int allow_inter,
		 struct buf *out, struct image_code_stats *st);
/* The DXT1 blocks of a coded image (img->data: what image_encode wrote,
 * img->format DXT1Z or DXT1RC) into blocks. 0, PROFEV_E_NOMEM, or
 * PROFEV_E_CORRUPT with *why. */
int image_decode(struct image_coder *c, const struct profev_image *img, struct buf *blocks,
		 const char **why);
/* Bytes of nb blocks regrouped into 8 planes of nb bytes, and back. */
void image_planes(const uint8_t *blocks, size_t nb, uint8_t *planes);
void image_unplanes(const uint8_t *planes, size_t nb, uint8_t *blocks);
/* Format 4's body (image_rc.c): bw x bh blocks, against the blocks of the
 * reference image when ref is not NULL. scratch is the caller's, reused.
 * Encode appends to out: 0 or PROFEV_E_NOMEM. Decode writes bw x bh blocks:
 * 0, PROFEV_E_NOMEM, or PROFEV_E_CORRUPT when the body ends too early. */
int image_rc_encode(const uint8_t *blocks, const uint8_t *ref, uint32_t bw, uint32_t bh,
		    struct buf *scratch, struct buf *out);
int image_rc_decode(const uint8_t *data, size_t len, const uint8_t *ref, uint32_t bw, uint32_t bh,
		    struct buf *scratch, uint8_t *blocks);

/* ---- string interning (strtab.c) ---- */
struct strtab;
struct strtab *strtab_new(void);
void strtab_free(struct strtab *t);
/* Id of s (>= 1) interning it if new; *is_new tells which. 0 on no memory. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t len, int *is_new);
/* Append s under the next id even if equal bytes are interned already: for
 * copying another writer's numbering. 0 on no memory. */
uint32_t strtab_append(struct strtab *t, const char *s, size_t len);
uint32_t strtab_count(const struct strtab *t);

/* ---- callstack deduplication (cstack.c) ---- */
struct cstack;
struct cstack *cstack_new(void);
void cstack_free(struct cstack *t);
/* Id of the frame array (>= 1) adding it if new; 0 on no memory. */
uint32_t cstack_intern(struct cstack *t, const struct profev_frame *f, unsigned n, int *is_new);
/* Append under the next id even if an equal array exists (see strtab_append). */
uint32_t cstack_append(struct cstack *t, const struct profev_frame *f, unsigned n);
uint32_t cstack_count(const struct cstack *t);


/* ---- the reader ----
 * reader.c opens the file and reads and checks each chunk, then hands its
 * body to the parser of its kind; reader_defs.c keeps the definition tables
 * (strings, threads, modules, callstacks, symbols, source locations),
 * reader_meta.c the metadata and the end chunk's totals, reader_images.c
 * the frame images, and reader_events.c hands the events out. */
struct str_entry {
	uint32_t offset, len;
};

/* A thread, in the reader's map under tid + 1 (key 0 is an empty slot). */
struct thread_entry {
	uint64_t key;
	uint32_t pid, name;
};

struct stack_entry {
	size_t start;
	uint32_t n;
};

struct sym_raw {
	uint32_t function, file, line, column;
};

struct sym_entry {
	uint32_t module, n;
	uint64_t offset;
	size_t start; /* in symraw */
};

struct module_entry {
	char *path;
	uint8_t *build_id;
	uint32_t build_id_len;
	uint64_t load_bias, size;
	uint64_t exec_vaddr, exec_offset, exec_size; /* kind 12; size 0: none */
};

struct held_image {
	struct profev_image img;
	uint8_t *data;
	size_t cap;
};

struct profev_reader {
	FILE *f;
	struct profev_error err;
	int failed, ended;
	unsigned major, minor;
	uint64_t offset;
	uint32_t chunk_index;
	struct ZSTD_DCtx_s *dctx; /* a ZSTD_DCtx: <zstd.h> stays in reader.c */
	struct buf stored; /* header + stored body of the current chunk */
	struct buf raw;    /* decompressed body */
	const uint8_t *body; /* the current chunk's body: raw, or stored if uncompressed */

	struct buf arena;  /* NUL-terminated strings */
	struct str_entry *strs;
	uint32_t nstrs, strs_cap;

	struct u64_map threads; /* of struct thread_entry */
	/* The thread of the previous event: runs of one thread are the rule. */
	const struct thread_entry *last_thread;
	uint32_t last_tid;

	struct module_entry *modules;
	struct profev_module *module_views;
	uint32_t nmodules, modules_cap;

	struct profev_frame *frames;
	size_t nframes, frames_cap;
	struct stack_entry *stacks;
	uint32_t nstacks, stacks_cap;

	struct sym_raw *symraw;
	size_t nsymraw, symraw_cap;
	struct sym_entry *syms;
	uint32_t nsyms, syms_cap;
	uint32_t *sym_slots, sym_mask;
	struct profev_symframe symscratch[STACK_MAX_FRAMES];

	struct profev_srcloc *srclocs;
	uint32_t nsrclocs, srclocs_cap;
	uint32_t *srcloc_of;  /* string id -> 1 + index in srclocs, 0 = none */
	uint32_t srcloc_of_cap;

	struct profev_meta meta;
	char *meta_strings[6];  /* program, host, clock, recorder: owned copies */
	char **meta_argv;

	struct profev_totals totals;
	int have_totals;

	struct profev_event *events;
	uint32_t nevents, events_cap, ev_pos;
	struct event_text *texts;
	uint32_t ntexts, texts_cap;
	/* THREAD_NAME events of the chunk that next_events() has not handed
	 * out yet, or more: 0 means none is left to end a run at */
	uint32_t thread_names_left;
	/* Index of each text's MESSAGE event in events, made on first need. */
	uint32_t *text_events;
	uint32_t text_events_cap;
	int texts_indexed;
	struct profev_image image;
	struct image_coder *images;  /* made at the first coded image */
	struct buf image_blocks;     /* its DXT1 blocks */
	uint64_t lost_images;        /* image chunks that were corrupt */
	/* Images held for the frame_image events that name them, oldest at
	 * held_first: a ring of IMAGE_HOLD_COUNT, at most IMAGE_HOLD_BYTES. */
	struct held_image *held;
	uint32_t held_first, nheld;
	size_t held_bytes;
	struct gpu_dec *gpu;         /* made at the first gpu chunk or handler */
	profev_gpu_zones_fn gpu_fn;
	void *gpu_arg;
};

/* ---- GPU contexts and zones (gpu_codec.c) ---- */
/* The writer's side: definitions (contexts, calibrations, lost zones) and
 * zones, coded as they come; writer.c writes them as chunks. */
struct gpu_enc {
	struct buf defs, zones;
	uint32_t ndefs, nzones;
	uint64_t prev[PROFEV_GPU_MAX_CONTEXTS][2]; /* per context: cpu_ns, gpu_begin */
};
/* Zones per gpu zones chunk a writer makes. */
#define GPU_ZONES_CHUNK 16384u
struct gpu_enc *gpu_enc_new(void); /* NULL: no memory */
void gpu_enc_free(struct gpu_enc *e);
/* 0 or PROFEV_E_NOMEM (PROFEV_E_ARG: a context id over 255). */
int gpu_enc_context(struct gpu_enc *e, const struct profev_gpu_context *c, uint32_t name);
int gpu_enc_calibration(struct gpu_enc *e, const struct profev_gpu_calibration *c);
int gpu_enc_lost(struct gpu_enc *e, uint32_t ctx, uint64_t n);
int gpu_enc_zone(struct gpu_enc *e, const struct profev_gpu_zone *z);

/* The reader's side: contexts and their calibrations, zones mapped. */
struct gpu_dec;
struct gpu_dec *gpu_dec_new(void); /* NULL: no memory */
void gpu_dec_free(struct gpu_dec *d);
void gpu_dec_handler(struct gpu_dec *d, profev_gpu_zones_fn fn, void *arg);
const struct profev_gpu_context *gpu_dec_context(const struct gpu_dec *d, uint32_t id);
int gpu_dec_time(const struct gpu_dec *d, uint32_t ctx, uint64_t gpu, uint64_t *ns);
/* A chunk's body: 0, -1 when malformed or naming what is not defined
 * (string ids up to nstrings are), or PROFEV_E_NOMEM. */
int gpu_dec_defs(struct gpu_dec *d, struct cursor *cur, uint32_t count, uint32_t nstrings);
int gpu_dec_zones(struct gpu_dec *d, struct cursor *cur, uint32_t count, uint32_t nstrings,
		  const struct profev_gpu_zone **out, uint32_t *nout);

/* The definition tables (reader_defs.c). 0 or PROFEV_E_NOMEM. */
int reader_defs_init(struct profev_reader *r);
void reader_defs_free(struct profev_reader *r);
void reader_meta_free(struct profev_reader *r);
void reader_images_free(struct profev_reader *r);

/* A chunk's body, count entries as its header says, into the reader's
 * tables: 0, -1 when the body is malformed or names an undefined id,
 * PROFEV_E_NOMEM, or PROFEV_E_LIMIT (the strings outgrow the format). A
 * parser reads to the body's end; reader.c checks that it did. */
int reader_parse_strings(struct profev_reader *r, struct cursor *c, uint32_t count);
int reader_parse_threads(struct profev_reader *r, struct cursor *c, uint32_t count);
int reader_parse_modules(struct profev_reader *r, struct cursor *c, uint32_t count);
int reader_parse_segments(struct profev_reader *r, struct cursor *c, uint32_t count);
int reader_parse_stacks(struct profev_reader *r, struct cursor *c, uint32_t count);
int reader_parse_symbols(struct profev_reader *r, struct cursor *c, uint32_t count);
int reader_parse_srclocs(struct profev_reader *r, struct cursor *c, uint32_t count);
int reader_parse_meta(struct profev_reader *r, struct cursor *c, uint32_t count);
int reader_parse_end(struct profev_reader *r, struct cursor *c);
/* A gpu or gpu zones chunk (reader_gpu.c); the zones go to c. */
int reader_parse_gpu(struct profev_reader *r, struct cursor *cur, unsigned kind, uint32_t count,
		     struct profev_chunk *c);
/* 0 with the image in r->image, 1 when the image is lost (its data do not
 * decode), <0 on errors. */
int reader_parse_image(struct profev_reader *r, struct cursor *c);

/* The entry of thread tid, or NULL; valid until the next reader_set_thread(). */
const struct thread_entry *reader_thread(const struct profev_reader *r, uint32_t tid);
/* Define thread tid, or rename it (keep_pid: a THREAD_NAME event's rename
 * keeps the pid it had). 0 or PROFEV_E_NOMEM. */
int reader_set_thread(struct profev_reader *r, uint32_t tid, uint32_t pid, uint32_t name, int keep_pid);

#endif
