/* The trace writer: buffers definitions and events, and hands them to the
 * chunk store (chunk_store.c) as whole chunks, definitions always before
 * the events chunk that may use them (formats/trace.md). */
#include <stdlib.h>
#include <zstd.h>
#include "trace/trace_internal.h"

#define DEFAULT_LEVEL 1
#define DEFAULT_CHUNK_EVENTS 65536u
/* Pending definitions are written once they reach this size, so a writer's
 * memory does not grow with a long recording. */
#define PENDING_LIMIT (1u << 20)

struct pending {
	struct buf body;
	uint32_t first; /* first id or index defined by body */
	uint32_t count;
};

struct profev_writer {
	int failed; /* sticky: after an I/O error nothing more is written */
	int closed;
	struct profev_error err;
	uint32_t chunk_events;
	struct chunk_store *store;
	struct buf body;

	struct strtab *strings;
	struct cstack *stacks;
	uint32_t modules;
	struct pending p_strings, p_threads, p_modules, p_segments, p_stacks, p_symbols, p_srclocs;
	struct strtab *sites;   /* (name, location) bytes -> index in site_ids */
	uint32_t *site_ids, site_ids_cap;

	struct event_encoder *events; /* the events chunk being built */
	struct image_coder *images;   /* made at the first DXT1 image */
	struct gpu_enc *gpu;          /* made at the first GPU context */
	size_t image_bytes;           /* image data since the last events chunk */

	struct profev_totals totals;
};

const struct profev_error *profev_writer_error(const struct profev_writer *w)
{
	return &w->err;
}

static int fail(struct profev_writer *w, int code, const char *what)
{
	uint64_t bytes, chunks;
	chunk_store_counts(w->store, &bytes, &chunks);
	err_set_at(&w->err, code, bytes, "%s", what);
	return code;
}

static int write_chunk(struct profev_writer *w, unsigned kind, uint32_t count, const void *body,
		       size_t len, int compress)
{
	if (w->failed)
		return w->err.code;
	if (len > CHUNK_MAX_RAW)
		return fail(w, PROFEV_E_LIMIT, "chunk body over the format's limit");
	int rc = chunk_store_put(w->store, kind, count, body, len, compress, &w->err);
	w->failed = rc != 0;
	return rc;
}

/* A pending definition chunk's body is "first id, entries": the first id is
 * prefixed here so entries can be appended as they come. */
static int flush_pending(struct profev_writer *w, struct pending *p, unsigned kind, int has_first)
{
	if (!p->count)
		return 0;
	buf_reset(&w->body);
	if ((has_first && buf_varint(&w->body, p->first)) || buf_put(&w->body, p->body.data, p->body.len))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	int rc = write_chunk(w, kind, p->count, w->body.data, w->body.len, 1);
	buf_reset(&p->body);
	p->first += p->count;
	p->count = 0;
	return rc;
}

/* Strings first (everything names them), modules before the stacks that
 * point into them, symbols last. */
static int flush_definitions(struct profev_writer *w)
{
	int rc;
	if ((rc = flush_pending(w, &w->p_strings, PROFEV_CHUNK_STRINGS, 1)) ||
	    (rc = flush_pending(w, &w->p_modules, PROFEV_CHUNK_MODULES, 1)) ||
	    (rc = flush_pending(w, &w->p_segments, PROFEV_CHUNK_SEGMENTS, 0)) ||
	    (rc = flush_pending(w, &w->p_threads, PROFEV_CHUNK_THREADS, 0)) ||
	    (rc = flush_pending(w, &w->p_stacks, PROFEV_CHUNK_STACKS, 1)) ||
	    (rc = flush_pending(w, &w->p_symbols, PROFEV_CHUNK_SYMBOLS, 0)) ||
	    (rc = flush_pending(w, &w->p_srclocs, PROFEV_CHUNK_SRCLOCS, 0)))
		return rc;
	if (w->gpu && w->gpu->ndefs) {
		rc = write_chunk(w, PROFEV_CHUNK_GPU, w->gpu->ndefs, w->gpu->defs.data, w->gpu->defs.len, 1);
		buf_reset(&w->gpu->defs);
		w->gpu->ndefs = 0;
	}
	return rc;
}

/* GPU zones after the definitions they name. */
static int flush_gpu_zones(struct profev_writer *w)
{
	if (!w->gpu || !w->gpu->nzones)
		return 0;
	int rc = flush_definitions(w);
	if (!rc)
		rc = write_chunk(w, PROFEV_CHUNK_GPU_ZONES, w->gpu->nzones, w->gpu->zones.data,
				 w->gpu->zones.len, 1);
	buf_reset(&w->gpu->zones);
	w->gpu->nzones = 0;
	return rc;
}

static int maybe_flush_definitions(struct profev_writer *w, const struct pending *p)
{
	return p->body.len >= PENDING_LIMIT ? flush_definitions(w) : 0;
}

static int flush_events(struct profev_writer *w)
{
	uint32_t n = encoder_count(w->events);
	if (!n)
		return 0;
	int rc = flush_definitions(w);
	if (rc)
		return rc;
	if (encoder_finish(w->events, &w->body))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	rc = write_chunk(w, PROFEV_CHUNK_EVENTS, n, w->body.data, w->body.len, 1);
	if (!rc)
		w->totals.events += n;
	w->image_bytes = 0;
	return rc ? rc : flush_gpu_zones(w);
}

static struct profev_writer *writer_new(int fd, chunk_sink_fn sink, void *ctx,
				       const struct profev_writer_opts *opts, struct profev_error *err)
{
	struct profev_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		return NULL;
	}
	int level = opts && opts->zstd_level ? opts->zstd_level : DEFAULT_LEVEL;
	if (level > ZSTD_maxCLevel())
		level = ZSTD_maxCLevel();
	w->chunk_events = opts && opts->chunk_events ? opts->chunk_events : DEFAULT_CHUNK_EVENTS;
	if (w->chunk_events > EVENTS_MAX_CHUNK)
		w->chunk_events = EVENTS_MAX_CHUNK;
	w->store = sink ? chunk_store_new_sink(sink, ctx, level) : chunk_store_new(fd, level, opts && opts->threaded);
	w->strings = strtab_new();
	w->sites = strtab_new();
	w->stacks = cstack_new();
	w->events = encoder_new(w->chunk_events);
	w->p_strings.first = w->p_stacks.first = 1;
	if (!w->store || !w->strings || !w->sites || !w->stacks || !w->events) {
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		profev_writer_free(w);
		return NULL;
	}
	uint8_t hdr[FILE_HEADER_SIZE] = { 0 };
	memcpy(hdr, FILE_MAGIC, 8);
	put_le16(hdr + 8, PROFEV_FORMAT_MAJOR);
	put_le16(hdr + 10, PROFEV_FORMAT_MINOR);
	/* Waiting for the header's write tells an unwritable output (a full
	 * disk, /dev/full) now, before a recorder starts the program. */
	if (chunk_store_raw(w->store, hdr, sizeof(hdr), 0, &w->err) ||
	    chunk_store_drain(w->store, &w->err)) {
		if (err)
			*err = w->err;
		profev_writer_free(w);
		return NULL;
	}
	return w;
}

struct profev_writer *profev_writer_new(int fd, const struct profev_writer_opts *opts,
					struct profev_error *err)
{
	return writer_new(fd, NULL, NULL, opts, err);
}

struct profev_writer *writer_new_sink(chunk_sink_fn sink, void *ctx, const struct profev_writer_opts *opts,
				      struct profev_error *err)
{
	return writer_new(-1, sink, ctx, opts, err);
}

uint32_t profev_writer_string(struct profev_writer *w, const char *s, size_t len)
{
	if (len > STRING_MAX_LEN) {
		fail(w, PROFEV_E_LIMIT, "string longer than 1 MiB");
		return 0;
	}
	int is_new;
	uint32_t id = strtab_intern(w->strings, s ? s : "", s ? len : 0, &is_new);
	if (!id) {
		fail(w, PROFEV_E_NOMEM, "out of memory");
		return 0;
	}
	if (is_new) {
		if (buf_bytes(&w->p_strings.body, s, len)) {
			fail(w, PROFEV_E_NOMEM, "out of memory");
			return 0;
		}
		w->p_strings.count++;
		w->totals.strings++;
		if (maybe_flush_definitions(w, &w->p_strings))
			return 0;
	}
	return id;
}

uint32_t profev_writer_cstring(struct profev_writer *w, const char *s)
{
	return s ? profev_writer_string(w, s, strlen(s)) : 0;
}

enum meta_type { META_STRING = 1, META_UINT = 2, META_SINT = 3, META_DOUBLE = 4, META_LIST = 5 };

static int meta_key(struct buf *b, const char *key, enum meta_type t)
{
	return buf_bytes(b, key, strlen(key)) || buf_put(b, &(uint8_t){ (uint8_t)t }, 1);
}

static int meta_str(struct buf *b, const char *key, const char *v, uint32_t *n)
{
	if (!v)
		return 0;
	++*n;
	return meta_key(b, key, META_STRING) || buf_bytes(b, v, strlen(v));
}

static int meta_uint(struct buf *b, const char *key, uint64_t v, uint32_t *n)
{
	if (!v)
		return 0;
	++*n;
	return meta_key(b, key, META_UINT) || buf_varint(b, v);
}

int writer_meta_body(struct buf *b, const struct profev_meta *m, uint32_t *count)
{
	uint32_t n = 0;
	int bad = 0;
	buf_reset(b);
	bad |= meta_str(b, "program", m->program, &n);
	if (m->argv && m->argc) {
		n++;
		bad |= meta_key(b, "argv", META_LIST) || buf_varint(b, m->argc);
		for (uint32_t i = 0; i < m->argc; i++) {
			const char *a = m->argv[i] ? m->argv[i] : "";
			bad |= buf_bytes(b, a, strlen(a));
		}
	}
	bad |= meta_uint(b, "pid", m->pid, &n);
	bad |= meta_str(b, "host", m->host, &n);
	if (m->wall_start_ns) {
		n++;
		bad |= meta_key(b, "wall_start_ns", META_SINT) || buf_varint(b, zigzag(m->wall_start_ns));
	}
	bad |= meta_uint(b, "mono_start_ns", m->mono_start_ns, &n);
	if (m->ticks_per_ns != 0) {
		uint8_t d[8];
		uint64_t bits;
		memcpy(&bits, &m->ticks_per_ns, 8);
		put_le64(d, bits);
		n++;
		bad |= meta_key(b, "ticks_per_ns", META_DOUBLE) || buf_put(b, d, 8);
	}
	bad |= meta_uint(b, "tick_base", m->tick_base, &n);
	bad |= meta_str(b, "clock", m->clock, &n);
	bad |= meta_str(b, "recorder", m->recorder, &n);
	if (m->exit_kind != PROFEV_EXIT_UNKNOWN) {
		n += 2;
		bad |= meta_key(b, "exit_kind", META_UINT) || buf_varint(b, (uint64_t)m->exit_kind);
		bad |= meta_key(b, "exit_code", META_SINT) || buf_varint(b, zigzag(m->exit_code));
	}
	bad |= meta_uint(b, "end_ns", m->end_ns, &n);
	bad |= meta_uint(b, "lost_events", m->lost_events, &n);
	bad |= meta_uint(b, "dropped_args", m->dropped_args, &n);
	bad |= meta_uint(b, "lost_images", m->lost_images, &n);
	bad |= meta_uint(b, "refused_images", m->refused_images, &n);
	bad |= meta_uint(b, "ring_window_start_ns", m->ring_window_start_ns, &n);
	bad |= meta_uint(b, "ring_window_end_ns", m->ring_window_end_ns, &n);
	bad |= meta_uint(b, "ring_let_go_events", m->ring_let_go_events, &n);
	bad |= meta_uint(b, "ring_snapshot", m->ring_snapshot, &n);
	*count = n;
	return bad ? PROFEV_E_NOMEM : 0;
}

int profev_writer_meta(struct profev_writer *w, const struct profev_meta *m)
{
	uint32_t n;
	if (!m)
		return fail(w, PROFEV_E_ARG, "no metadata given");
	if (writer_meta_body(&w->body, m, &n))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	return write_chunk(w, PROFEV_CHUNK_META, n, w->body.data, w->body.len, 1);
}

/* A string under an id of its own: the first copy of equal bytes keeps the
 * interning slot, so profev_writer_string() never hands this id out. */
static uint32_t string_unique(struct profev_writer *w, const char *s, size_t len)
{
	uint32_t id = strtab_append(w->strings, s, len);
	if (!id || buf_bytes(&w->p_strings.body, s, len)) {
		fail(w, PROFEV_E_NOMEM, "out of memory");
		return 0;
	}
	w->p_strings.count++;
	w->totals.strings++;
	return maybe_flush_definitions(w, &w->p_strings) ? 0 : id;
}

uint32_t profev_writer_site(struct profev_writer *w, const char *name, size_t len,
			    const struct profev_srcloc *loc)
{
	if (len > STRING_MAX_LEN) {
		fail(w, PROFEV_E_LIMIT, "string longer than 1 MiB");
		return 0;
	}
	if (!name)
		len = 0;
	uint32_t total = strtab_count(w->strings);
	if (!loc || loc->category > total || loc->function > total || loc->file > total) {
		fail(w, PROFEV_E_ARG, "source location names an undefined string");
		return 0;
	}
	/* The shared name first: it keeps the slot equal names intern to. */
	uint32_t plain = profev_writer_string(w, name ? name : "", len);
	if (!plain)
		return 0;
	uint32_t key[5] = { plain, loc->category, loc->function, loc->file, loc->line };
	int is_new;
	uint32_t k = strtab_intern(w->sites, (const char *)key, sizeof key, &is_new);
	if (!k) {
		fail(w, PROFEV_E_NOMEM, "out of memory");
		return 0;
	}
	if (!is_new)
		return w->site_ids[k - 1];
	if (array_grow((void **)&w->site_ids, &w->site_ids_cap, sizeof(*w->site_ids), k)) {
		fail(w, PROFEV_E_NOMEM, "out of memory");
		return 0;
	}
	w->site_ids[k - 1] = 0;
	uint32_t id = string_unique(w, name ? name : "", len);
	if (!id)
		return 0;
	struct buf *b = &w->p_srclocs.body;
	if (buf_varint(b, id) || buf_varint(b, plain) || buf_varint(b, loc->category) ||
	    buf_varint(b, loc->function) || buf_varint(b, loc->file) || buf_varint(b, loc->line)) {
		fail(w, PROFEV_E_NOMEM, "out of memory");
		return 0;
	}
	w->p_srclocs.count++;
	w->site_ids[k - 1] = id;
	if (maybe_flush_definitions(w, &w->p_srclocs))
		return 0;
	return id;
}

int profev_writer_thread(struct profev_writer *w, uint32_t tid, uint32_t pid, const char *name)
{
	uint32_t name_id = 0;
	if (name && !(name_id = profev_writer_cstring(w, name)))
		return w->err.code;
	struct buf *b = &w->p_threads.body;
	if (buf_varint(b, tid) || buf_varint(b, pid) || buf_varint(b, name_id))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	w->p_threads.count++;
	w->totals.threads++;
	return maybe_flush_definitions(w, &w->p_threads);
}

int profev_writer_module(struct profev_writer *w, const struct profev_module *m)
{
	if (!m || (m->build_id_len && !m->build_id) || m->build_id_len > 255)
		return fail(w, PROFEV_E_ARG, "invalid module");
	const char *path = m->path ? m->path : "";
	struct buf *b = &w->p_modules.body;
	if (buf_bytes(b, path, strlen(path)) || buf_bytes(b, m->build_id, m->build_id_len) ||
	    buf_varint(b, m->load_bias) || buf_varint(b, m->size))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	w->p_modules.count++;
	w->totals.modules++;
	int index = (int)w->modules++;
	if (m->exec_size) {
		struct buf *s = &w->p_segments.body;
		if (buf_varint(s, (uint64_t)index) || buf_varint(s, m->exec_vaddr) ||
		    buf_varint(s, m->exec_offset) || buf_varint(s, m->exec_size))
			return fail(w, PROFEV_E_NOMEM, "out of memory");
		w->p_segments.count++;
	}
	int rc = maybe_flush_definitions(w, &w->p_modules);
	return rc ? rc : index;
}

static int encode_stack(struct buf *b, const struct profev_frame *f, unsigned n)
{
	if (buf_varint(b, n))
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (buf_varint(b, f[i].module) || buf_varint(b, f[i].flags) || buf_varint(b, f[i].offset))
			return -1;
	return 0;
}

uint32_t profev_writer_stack(struct profev_writer *w, const struct profev_frame *frames, unsigned n)
{
	if (n > STACK_MAX_FRAMES || (n && !frames)) {
		fail(w, PROFEV_E_ARG, "callstack deeper than 256 frames");
		return 0;
	}
	int is_new;
	uint32_t id = cstack_intern(w->stacks, frames, n, &is_new);
	if (!id) {
		fail(w, PROFEV_E_NOMEM, "out of memory");
		return 0;
	}
	if (is_new) {
		if (encode_stack(&w->p_stacks.body, frames, n)) {
			fail(w, PROFEV_E_NOMEM, "out of memory");
			return 0;
		}
		w->p_stacks.count++;
		w->totals.stacks++;
		if (maybe_flush_definitions(w, &w->p_stacks))
			return 0;
	}
	return id;
}

int profev_writer_symbol(struct profev_writer *w, uint32_t module, uint64_t offset,
			 const struct profev_symframe *frames, unsigned n)
{
	if (n > STACK_MAX_FRAMES || (n && !frames))
		return fail(w, PROFEV_E_ARG, "inline chain deeper than 256 frames");
	uint32_t ids[2 * STACK_MAX_FRAMES];
	for (unsigned i = 0; i < n; i++) {
		ids[2 * i] = frames[i].function ? profev_writer_cstring(w, frames[i].function) : 0;
		ids[2 * i + 1] = frames[i].file ? profev_writer_cstring(w, frames[i].file) : 0;
		if ((frames[i].function && !ids[2 * i]) || (frames[i].file && !ids[2 * i + 1]))
			return w->err.code;
	}
	/* Intern before appending: interning may flush the pending symbols. */
	struct buf *b = &w->p_symbols.body;
	int bad = buf_varint(b, module) || buf_varint(b, offset) || buf_varint(b, n);
	for (unsigned i = 0; i < n && !bad; i++)
		bad = buf_varint(b, ids[2 * i]) || buf_varint(b, ids[2 * i + 1]) ||
		      buf_varint(b, frames[i].line) || buf_varint(b, frames[i].column);
	if (bad)
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	w->p_symbols.count++;
	w->totals.symbols++;
	return maybe_flush_definitions(w, &w->p_symbols);
}

int profev_writer_event(struct profev_writer *w, const struct profev_event *ev)
{
	if (unlikely(ev->type == PROFEV_EV_MESSAGE))
		return profev_writer_message(w, ev, "", 0);
	if (unlikely(w->failed || w->closed))
		return w->closed ? fail(w, PROFEV_E_STATE, "writer is closed") : w->err.code;
	int full = encoder_add(w->events, ev, NULL, 0);
	if (unlikely(full < 0))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	if (unlikely(ev->type == PROFEV_EV_LOST))
		w->totals.lost_events += ev->payload;
	return unlikely(full) ? flush_events(w) : 0;
}

/* After the coder took `added` events of a batch (or ran out of memory):
 * start the next chunk when this one is full. 0 or <0. */
static int batch_took(struct profev_writer *w, int64_t added)
{
	if (unlikely(added < 0))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	return encoder_count(w->events) == w->chunk_events ? flush_events(w) : 0;
}

static inline uint32_t batch_size(size_t left)
{
	return left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
}

int profev_writer_events(struct profev_writer *w, const struct profev_event *ev, size_t n)
{
	for (size_t k = 0; k < n;) {
		if (unlikely(ev[k].type == PROFEV_EV_MESSAGE || ev[k].type == PROFEV_EV_LOST)) {
			int rc = profev_writer_event(w, &ev[k++]);
			if (rc)
				return rc;
			continue;
		}
		if (unlikely(w->failed || w->closed))
			return w->closed ? fail(w, PROFEV_E_STATE, "writer is closed") : w->err.code;
		int64_t added = encoder_add_run(w->events, ev + k, batch_size(n - k));
		int rc = batch_took(w, added);
		if (rc)
			return rc;
		k += (size_t)added;
	}
	return 0;
}

int writer_add_plain(struct profev_writer *w, uint32_t tid, uint64_t frame,
		     const struct plain_event *ev, size_t n)
{
	if (unlikely(w->failed || w->closed))
		return w->closed ? fail(w, PROFEV_E_STATE, "writer is closed") : w->err.code;
	for (size_t k = 0; k < n;) {
		int64_t added = encoder_add_plain(w->events, tid, frame, ev + k, batch_size(n - k));
		int rc = batch_took(w, added);
		if (rc)
			return rc;
		k += (size_t)added;
	}
	return 0;
}

int profev_writer_message(struct profev_writer *w, const struct profev_event *ev,
			  const char *text, size_t len)
{
	if (w->failed || w->closed)
		return w->closed ? fail(w, PROFEV_E_STATE, "writer is closed") : w->err.code;
	if (len > STRING_MAX_LEN)
		return fail(w, PROFEV_E_LIMIT, "message longer than 1 MiB");
	/* A chunk's texts share one arena; start a new chunk before it grows
	 * past what a reader accepts. */
	if (encoder_text_bytes(w->events) + len > CHUNK_MAX_RAW / 4) {
		int rc = flush_events(w);
		if (rc)
			return rc;
	}
	struct profev_event e = *ev;
	e.type = PROFEV_EV_MESSAGE;
	int full = encoder_add(w->events, &e, text, len);
	if (full < 0)
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	return full ? flush_events(w) : 0;
}

int profev_writer_image(struct profev_writer *w, const struct profev_image *img)
{
	if (!img || (img->size && !img->data))
		return fail(w, PROFEV_E_ARG, "invalid image");
	if (img->size > CHUNK_MAX_RAW - 64)
		return fail(w, PROFEV_E_LIMIT, "image larger than a chunk may be");
	int dxt1 = img->format == PROFEV_IMG_DXT1;
	if (dxt1 && (img->width % 4 || img->height % 4 || !img->width || !img->height ||
		     (uint64_t)img->width * img->height > PROFEV_IMAGE_MAX_PIXELS ||
		     img->size != (size_t)img->width * img->height / 2))
		return fail(w, PROFEV_E_ARG, "DXT1 image of a wrong size");
	if (dxt1 && !w->images && !(w->images = image_coder_new(0)))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	/* Readers hold images until their events come (profev_reader_image()):
	 * events are written out before that holds too much. */
	if (w->image_bytes > IMAGE_EVENTS_EVERY) {
		int frc = flush_events(w);
		if (frc)
			return frc;
	}
	struct buf *b = &w->body;
	buf_reset(b);
	if (buf_varint(b, img->id) || buf_varint(b, img->width) || buf_varint(b, img->height) ||
	    buf_varint(b, dxt1 ? image_coder_format(w->images) : img->format) || buf_varint(b, img->frame) ||
	    buf_varint(b, img->ts))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	if (dxt1 ? image_encode(w->images, img, 1, b, NULL) != 0 : buf_put(b, img->data, img->size))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	/* Coded DXT1 is compressed already. */
	int rc = write_chunk(w, PROFEV_CHUNK_IMAGE, 1, b->data, b->len, !dxt1);
	w->image_bytes += img->size;
	if (!rc)
		w->totals.images++;
	return rc;
}

static int gpu_ready(struct profev_writer *w)
{
	if (w->failed)
		return w->err.code;
	if (!w->gpu && !(w->gpu = gpu_enc_new()))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	return 0;
}

static int gpu_added(struct profev_writer *w, int rc)
{
	if (rc)
		return fail(w, rc, rc == PROFEV_E_ARG ? "GPU context id over 255" : "out of memory");
	return w->gpu->defs.len >= PENDING_LIMIT ? flush_definitions(w) : 0;
}

int profev_writer_gpu_context(struct profev_writer *w, const struct profev_gpu_context *c,
			      const char *name)
{
	int rc = gpu_ready(w);
	if (rc)
		return rc;
	if (c->id >= PROFEV_GPU_MAX_CONTEXTS)
		return gpu_added(w, PROFEV_E_ARG);
	uint32_t id = profev_writer_cstring(w, name ? name : "");
	if (!id)
		return w->err.code ? w->err.code : fail(w, PROFEV_E_NOMEM, "out of memory");
	return gpu_added(w, gpu_enc_context(w->gpu, c, id));
}

int profev_writer_gpu_calibration(struct profev_writer *w, const struct profev_gpu_calibration *cal)
{
	int rc = gpu_ready(w);
	return rc ? rc : gpu_added(w, cal->ctx < PROFEV_GPU_MAX_CONTEXTS ? gpu_enc_calibration(w->gpu, cal)
									    : PROFEV_E_ARG);
}

int profev_writer_gpu_lost(struct profev_writer *w, uint32_t ctx, uint64_t n)
{
	int rc = gpu_ready(w);
	return rc ? rc : gpu_added(w, ctx < PROFEV_GPU_MAX_CONTEXTS ? gpu_enc_lost(w->gpu, ctx, n) : PROFEV_E_ARG);
}

int profev_writer_gpu_zones(struct profev_writer *w, const struct profev_gpu_zone *z, size_t n)
{
	int rc = gpu_ready(w);
	for (size_t i = 0; i < n && !rc; i++) {
		if ((rc = gpu_enc_zone(w->gpu, &z[i])))
			return gpu_added(w, rc);
		if (w->gpu->nzones >= GPU_ZONES_CHUNK)
			rc = flush_gpu_zones(w);
	}
	return rc;
}

int profev_writer_flush(struct profev_writer *w)
{
	if (w->failed)
		return w->err.code;
	int rc = flush_events(w);
	if (!rc)
		rc = flush_gpu_zones(w);
	if (!rc)
		rc = flush_definitions(w);
	if (!rc && (rc = chunk_store_drain(w->store, &w->err)))
		w->failed = 1;
	return rc;
}

/* Registers what a copied chunk defines, so later ids continue after it. */
static int register_copied(struct profev_writer *w, const struct profev_chunk *c)
{
	struct cursor cur = { c->raw, (const uint8_t *)c->raw + c->raw_size, 0 };
	switch (c->kind) {
	case PROFEV_CHUNK_STRINGS:
		cur_varint(&cur);
		for (uint32_t i = 0; i < c->count && !cur.bad; i++) {
			uint64_t len = cur_varint(&cur);
			const uint8_t *s = cur_take(&cur, len);
			if (s && !strtab_append(w->strings, (const char *)s, len))
				return fail(w, PROFEV_E_NOMEM, "out of memory");
		}
		w->p_strings.first += c->count;
		w->totals.strings += c->count;
		break;
	case PROFEV_CHUNK_STACKS: {
		struct profev_frame f[STACK_MAX_FRAMES];
		cur_varint(&cur);
		for (uint32_t i = 0; i < c->count && !cur.bad; i++) {
			uint64_t n = cur_varint(&cur);
			if (n > STACK_MAX_FRAMES)
				return fail(w, PROFEV_E_CORRUPT, "copied stack too deep");
			for (uint64_t k = 0; k < n; k++) {
				f[k].module = (uint32_t)cur_varint(&cur);
				f[k].flags = (uint32_t)cur_varint(&cur);
				f[k].offset = cur_varint(&cur);
			}
			if (!cstack_append(w->stacks, f, (unsigned)n))
				return fail(w, PROFEV_E_NOMEM, "out of memory");
		}
		w->p_stacks.first += c->count;
		w->totals.stacks += c->count;
		break;
	}
	case PROFEV_CHUNK_MODULES:
		w->modules += c->count;
		w->p_modules.first += c->count;
		w->totals.modules += c->count;
		break;
	case PROFEV_CHUNK_THREADS: w->totals.threads += c->count; break;
	case PROFEV_CHUNK_SYMBOLS: w->totals.symbols += c->count; break;
	case PROFEV_CHUNK_IMAGE: w->totals.images += c->count; break;
	case PROFEV_CHUNK_EVENTS:
		w->totals.events += c->count;
		for (uint32_t i = 0; i < c->nevents; i++)
			if (c->events[i].type == PROFEV_EV_LOST)
				w->totals.lost_events += c->events[i].payload;
		break;
	}
	return cur.bad ? fail(w, PROFEV_E_CORRUPT, "copied chunk is malformed") : 0;
}

int profev_writer_copy_chunk(struct profev_writer *w, const struct profev_chunk *c)
{
	if (!c || !c->stored)
		return fail(w, PROFEV_E_ARG, "no chunk given");
	if (c->kind == PROFEV_CHUNK_END)
		return 0;
	int rc = profev_writer_flush(w);
	if (rc)
		return rc;
	if (c->raw && (rc = register_copied(w, c)))
		return rc;
	if ((rc = chunk_store_raw(w->store, c->stored, c->stored_total, 1, &w->err)))
		w->failed = 1;
	return rc;
}

int profev_writer_close(struct profev_writer *w)
{
	if (w->closed)
		return fail(w, PROFEV_E_STATE, "writer is closed");
	int rc = profev_writer_flush(w);
	if (rc)
		return rc;
	struct buf *b = &w->body;
	struct profev_totals *t = &w->totals;
	chunk_store_counts(w->store, &t->bytes, &t->chunks);
	buf_reset(b);
	if (buf_varint(b, t->events) || buf_varint(b, t->chunks) || buf_varint(b, t->strings) ||
	    buf_varint(b, t->stacks) || buf_varint(b, t->threads) || buf_varint(b, t->modules) ||
	    buf_varint(b, t->symbols) || buf_varint(b, t->images) || buf_varint(b, t->lost_events) ||
	    buf_varint(b, t->bytes))
		return fail(w, PROFEV_E_NOMEM, "out of memory");
	rc = write_chunk(w, PROFEV_CHUNK_END, 10, b->data, b->len, 0);
	if (!rc && (rc = chunk_store_drain(w->store, &w->err)))
		w->failed = 1;
	w->closed = 1;
	return rc;
}

void profev_writer_totals(const struct profev_writer *w, struct profev_totals *t)
{
	*t = w->totals;
	chunk_store_counts(w->store, &t->bytes, &t->chunks);
	t->events += encoder_count(w->events);
}

void profev_writer_free(struct profev_writer *w)
{
	if (!w)
		return;
	chunk_store_free(w->store);
	buf_free(&w->body);
	strtab_free(w->strings);
	strtab_free(w->sites);
	free(w->site_ids);
	cstack_free(w->stacks);
	buf_free(&w->p_strings.body);
	buf_free(&w->p_threads.body);
	buf_free(&w->p_modules.body);
	buf_free(&w->p_segments.body);
	buf_free(&w->p_stacks.body);
	buf_free(&w->p_symbols.body);
	buf_free(&w->p_srclocs.body);
	encoder_free(w->events);
	image_coder_free(w->images);
	gpu_enc_free(w->gpu);
	free(w);
}
