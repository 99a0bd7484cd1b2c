/* The streaming trace reader: one sequential pass (pipes work), every chunk
 * checked (limits, checksum, decompression, body structure) before any of it
 * is believed; each body then goes to the parser of its kind (reader_defs.c,
 * reader_meta.c, reader_images.c), and events are decoded here and handed
 * out by reader_events.c. */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>
#include "trace/trace_internal.h"

const struct profev_error *profev_reader_error(const struct profev_reader *r)
{
	return &r->err;
}

static int fail_at(struct profev_reader *r, int code, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(struct profev_reader *r, int code, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	char msg[200];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_set_at(&r->err, code, offset, "%s", msg);
	r->failed = 1;
	return code;
}

/* Errors inside a chunk name the chunk and its offset. */
static int chunk_fail(struct profev_reader *r, int code, uint64_t offset, const char *what)
{
	return fail_at(r, code, offset, "chunk %u at offset %llu: %s", r->chunk_index,
		       (unsigned long long)offset, what);
}

static size_t read_full(struct profev_reader *r, void *p, size_t n)
{
	size_t got = fread(p, 1, n, r->f);
	r->offset += got;
	return got;
}

struct profev_reader *profev_reader_new(FILE *f, struct profev_error *err)
{
	struct profev_reader *r = calloc(1, sizeof(*r));
	if (!r || !(r->dctx = ZSTD_createDCtx())) {
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		free(r);
		return NULL;
	}
	r->f = f;
	if (reader_defs_init(r)) {
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		profev_reader_free(r);
		return NULL;
	}
	uint8_t hdr[FILE_HEADER_SIZE];
	size_t got = read_full(r, hdr, sizeof(hdr));
	int code = 0;
	if (got == 0 && ferror(f))
		code = fail_at(r, PROFEV_E_IO, 0, "read failed: %s", strerror(errno));
	else if (got == 0)
		code = fail_at(r, PROFEV_E_EMPTY, 0, "empty file: not a profev trace");
	else if (memcmp(hdr, FILE_MAGIC, got < 8 ? got : 8) != 0)
		code = fail_at(r, PROFEV_E_MAGIC, 0, "not a profev trace (bad magic)");
	else if (got < sizeof(hdr))
		code = fail_at(r, PROFEV_E_TRUNCATED, got, "trace is cut inside its %d-byte header",
			       FILE_HEADER_SIZE);
	if (!code) {
		r->major = get_le16(hdr + 8);
		r->minor = get_le16(hdr + 10);
		if (r->major != PROFEV_FORMAT_MAJOR)
			code = fail_at(r, PROFEV_E_VERSION, 8,
				       "format version %u.%u is not supported (this reader reads %d.x)",
				       r->major, r->minor, PROFEV_FORMAT_MAJOR);
	}
	if (code) {
		if (err)
			*err = r->err;
		profev_reader_free(r);
		return NULL;
	}
	return r;
}

void profev_reader_version(const struct profev_reader *r, unsigned *major, unsigned *minor)
{
	*major = r->major;
	*minor = r->minor;
}

uint64_t profev_reader_offset(const struct profev_reader *r)
{
	return r->offset;
}

static int decode_events(struct profev_reader *r, const uint8_t *body, size_t len, uint32_t count,
			const char **why)
{
	/* Every event takes at least one body byte (its time), and a chunk
	 * holds at most EVENTS_MAX_CHUNK of them: this bounds the allocation a
	 * hostile count can ask for. */
	if ((uint64_t)count > len || count > EVENTS_MAX_CHUNK) {
		*why = "event count larger than the body can hold";
		return PROFEV_E_CORRUPT;
	}
	if (array_grow((void **)&r->events, &r->events_cap, sizeof(*r->events), count) ||
	    array_grow((void **)&r->texts, &r->texts_cap, sizeof(*r->texts), count)) {
		*why = "out of memory";
		return PROFEV_E_NOMEM;
	}
	int rc = events_decode(body, len, count, r->events, r->texts, &r->ntexts, &r->thread_names_left, why);
	if (rc)
		return rc;
	r->nevents = count;
	return 0;
}

int profev_reader_next_chunk(struct profev_reader *r, struct profev_chunk *c)
{
	if (r->failed)
		return r->err.code;
	if (r->ended)
		return 0;
	r->nevents = r->ev_pos = 0;
	r->ntexts = r->thread_names_left = 0;
	r->texts_indexed = 0;
	memset(c, 0, sizeof(*c));

	uint64_t at = r->offset;
	buf_reset(&r->stored);
	if (buf_reserve(&r->stored, CHUNK_HEADER_SIZE))
		return chunk_fail(r, PROFEV_E_NOMEM, at, "out of memory");
	uint8_t *hdr = r->stored.data;
	size_t got = read_full(r, hdr, CHUNK_HEADER_SIZE);
	if (got < CHUNK_HEADER_SIZE && ferror(r->f))
		return chunk_fail(r, PROFEV_E_IO, at, strerror(errno));
	if (got == 0)
		return fail_at(r, PROFEV_E_NOEND, at,
			       "trace is cut: it ends at offset %llu after %u chunks, without an end chunk",
			       (unsigned long long)at, r->chunk_index);
	if (got < CHUNK_HEADER_SIZE) {
		char what[96];
		snprintf(what, sizeof(what), "trace is cut: %zu of the chunk header's %d bytes present",
			 got, CHUNK_HEADER_SIZE);
		return chunk_fail(r, PROFEV_E_TRUNCATED, at, what);
	}
	struct chunk_header h;
	chunk_header_decode(hdr, &h);
	if (h.stored_size > CHUNK_MAX_STORED || h.raw_size > CHUNK_MAX_RAW)
		return chunk_fail(r, PROFEV_E_LIMIT, at, "chunk size over the format's limits");
	if (buf_reserve(&r->stored, CHUNK_HEADER_SIZE + (size_t)h.stored_size))
		return chunk_fail(r, PROFEV_E_NOMEM, at, "out of memory");
	hdr = r->stored.data;
	uint8_t *body = hdr + CHUNK_HEADER_SIZE;
	got = read_full(r, body, h.stored_size);
	if (got < h.stored_size) {
		if (ferror(r->f))
			return chunk_fail(r, PROFEV_E_IO, at, strerror(errno));
		char what[128];
		snprintf(what, sizeof(what), "trace is cut: %zu of the %s chunk's %u body bytes present",
			 got, profev_chunk_kind_name(h.kind), h.stored_size);
		return chunk_fail(r, PROFEV_E_TRUNCATED, at, what);
	}
	r->stored.len = CHUNK_HEADER_SIZE + (size_t)h.stored_size;
	if (chunk_checksum(hdr, body, h.stored_size) != h.checksum) {
		if (h.kind != PROFEV_CHUNK_IMAGE)
			return chunk_fail(r, PROFEV_E_CHECKSUM, at, "checksum mismatch");
		/* A damaged image loses that image, not the trace. */
		*c = (struct profev_chunk){ .kind = h.kind, .flags = h.flags, .count = h.count,
					    .offset = at, .stored_size = h.stored_size,
					    .raw_size = h.raw_size, .stored = hdr,
					    .stored_total = r->stored.len };
		r->chunk_index++;
		r->lost_images++;
		return 1;
	}

	c->kind = h.kind;
	c->flags = h.flags;
	c->count = h.count;
	c->offset = at;
	c->stored_size = h.stored_size;
	c->raw_size = h.raw_size;
	c->stored = hdr;
	c->stored_total = r->stored.len;
	r->chunk_index++;
	uint32_t index = r->chunk_index - 1;

	int known = h.kind >= PROFEV_CHUNK_META && h.kind <= PROFEV_CHUNK_SRCLOCS;
	known |= h.kind == PROFEV_CHUNK_END || h.kind == PROFEV_CHUNK_SEGMENTS;
	known |= h.kind == PROFEV_CHUNK_GPU || h.kind == PROFEV_CHUNK_GPU_ZONES;
	if (!known)
		return 1; /* a newer writer's chunk: skipped, so its traces stay readable */
	if (h.flags & ~CHUNK_F_ZSTD)
		return chunk_fail(r, PROFEV_E_UNSUPPORTED, at, "unknown chunk flags");
	if (!(h.flags & CHUNK_F_ZSTD) && h.raw_size != h.stored_size)
		return chunk_fail(r, PROFEV_E_CORRUPT, at, "stored and raw sizes differ in a raw chunk");

	const uint8_t *raw = body;
	if (h.flags & CHUNK_F_ZSTD) {
		buf_reset(&r->raw);
		if (buf_reserve(&r->raw, h.raw_size ? h.raw_size : 1))
			return chunk_fail(r, PROFEV_E_NOMEM, at, "out of memory");
		size_t n = ZSTD_decompressDCtx(r->dctx, r->raw.data, h.raw_size, body, h.stored_size);
		if (ZSTD_isError(n) || n != h.raw_size) {
			r->chunk_index = index;
			return chunk_fail(r, PROFEV_E_CORRUPT, at, "compressed body does not decode");
		}
		raw = r->raw.data;
	}
	c->raw = raw;
	r->body = raw;

	struct cursor cur = { raw, raw + h.raw_size, 0 };
	const char *why = "malformed body";
	int rc = 0;
	switch (h.kind) {
	case PROFEV_CHUNK_META: rc = reader_parse_meta(r, &cur, h.count); break;
	case PROFEV_CHUNK_STRINGS: rc = reader_parse_strings(r, &cur, h.count); break;
	case PROFEV_CHUNK_THREADS: rc = reader_parse_threads(r, &cur, h.count); break;
	case PROFEV_CHUNK_MODULES: rc = reader_parse_modules(r, &cur, h.count); break;
	case PROFEV_CHUNK_SEGMENTS: rc = reader_parse_segments(r, &cur, h.count); break;
	case PROFEV_CHUNK_STACKS: rc = reader_parse_stacks(r, &cur, h.count); break;
	case PROFEV_CHUNK_SYMBOLS: rc = reader_parse_symbols(r, &cur, h.count); break;
	case PROFEV_CHUNK_SRCLOCS: rc = reader_parse_srclocs(r, &cur, h.count); break;
	case PROFEV_CHUNK_IMAGE:
		rc = reader_parse_image(r, &cur);
		c->image = rc == 0 ? &r->image : NULL;
		if (rc == 1) {
			r->lost_images++;
			rc = 0;
			cur.p = cur.end;
		}
		break;
	case PROFEV_CHUNK_GPU:
	case PROFEV_CHUNK_GPU_ZONES:
		rc = reader_parse_gpu(r, &cur, h.kind, h.count, c);
		break;
	case PROFEV_CHUNK_END:
		rc = reader_parse_end(r, &cur);
		if (!rc)
			r->ended = 1;
		break;
	case PROFEV_CHUNK_EVENTS:
		rc = decode_events(r, raw, h.raw_size, h.count, &why);
		cur.p = cur.end;
		c->events = r->events;
		c->nevents = r->nevents;
		break;
	}
	if (rc == 0 && (cur.bad || cur.p != cur.end))
		rc = -1;
	if (rc) {
		char what[160];
		r->chunk_index = index;
		r->nevents = 0;
		if (rc == PROFEV_E_NOMEM)
			return chunk_fail(r, PROFEV_E_NOMEM, at, "out of memory");
		if (rc == PROFEV_E_LIMIT)
			return chunk_fail(r, PROFEV_E_LIMIT, at, "string table over the format's limits");
		snprintf(what, sizeof(what), "%s chunk: %s", profev_chunk_kind_name(h.kind),
			 h.kind == PROFEV_CHUNK_EVENTS ? why : "malformed or undefined ids");
		return chunk_fail(r, PROFEV_E_CORRUPT, at, what);
	}
	r->chunk_index = index + 1;
	return r->ended ? 0 : 1;
}

void profev_reader_free(struct profev_reader *r)
{
	if (!r)
		return;
	ZSTD_freeDCtx(r->dctx);
	buf_free(&r->stored);
	buf_free(&r->raw);
	reader_defs_free(r);
	reader_meta_free(r);
	reader_images_free(r);
	gpu_dec_free(r->gpu);
	free(r->events);
	free(r->texts);
	free(r->text_events);
	free(r);
}
