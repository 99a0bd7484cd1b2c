/* The streaming trace reader: one sequential pass (pipes work), every chunk
 * checked (limits, checksum, decompression, body structure) before any of it
 * is believed, definitions kept in tables so ids resolve to names. */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>
#include "trace/trace_internal.h"

struct str_entry {
	uint32_t offset, len;
};

struct thread_entry {
	uint32_t tid, pid, name;
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

struct profev_reader {
	FILE *f;
	struct profev_error err;
	int failed, ended;
	unsigned major, minor;
	uint64_t offset;
	uint32_t chunk_index;
	ZSTD_DCtx *dctx;
	struct buf stored; /* header + stored body of the current chunk */
	struct buf raw;    /* decompressed body */
	const uint8_t *body; /* the current chunk's body: raw, or stored if uncompressed */

	struct buf arena;  /* NUL-terminated strings */
	struct str_entry *strs;
	uint32_t nstrs, strs_cap;

	struct thread_entry *threads;
	uint32_t nthreads, threads_cap;
	/* The thread of the previous event: runs of one thread are the rule. */
	const struct thread_entry *last_thread;
	uint32_t last_tid;
	struct tid_index thread_index;

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
	struct held_image {
		struct profev_image img;
		uint8_t *data;
		size_t cap;
	} *held;
	uint32_t held_first, nheld;
	size_t held_bytes;
};

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
	r->sym_mask = 1023;
	r->sym_slots = calloc(r->sym_mask + 1, sizeof(uint32_t));
	if (tid_index_init(&r->thread_index) || !r->sym_slots) {
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

/* ---- definitions ----
 *
 * No count from the file sizes an allocation before the body could hold
 * that many entries: each entry takes at least min bytes of what is left,
 * so a table grows by at most a few times the chunk's body (whose size is
 * bounded by CHUNK_MAX_RAW), however large the count claims to be.
 */
static int count_fits(const struct cursor *c, uint64_t count, unsigned min)
{
	return !c->bad && count <= (uint64_t)(c->end - c->p) / min;
}

static int parse_strings(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	uint64_t first = cur_varint(c);
	/* A string is at least its length's byte. */
	if (first != (uint64_t)r->nstrs + 1 || !count_fits(c, count, 1))
		return -1;
	if (array_grow((void **)&r->strs, &r->strs_cap, sizeof(*r->strs), (uint64_t)r->nstrs + count))
		return PROFEV_E_NOMEM;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t len = cur_varint(c);
		const uint8_t *s = cur_take(c, len);
		if (!s)
			return -1;
		if (r->arena.len + len + 1 > UINT32_MAX)
			return PROFEV_E_LIMIT;
		struct str_entry e = { (uint32_t)r->arena.len, (uint32_t)len };
		if (buf_put(&r->arena, s, len) || buf_put(&r->arena, "", 1))
			return PROFEV_E_NOMEM;
		r->strs[r->nstrs++] = e;
	}
	return 0;
}

static uint32_t *thread_slot(const struct profev_reader *r, uint32_t tid)
{
	return tid_index_slot(&r->thread_index, r->threads, sizeof(*r->threads), tid);
}

static const struct thread_entry *find_thread(const struct profev_reader *r, uint32_t tid)
{
	uint32_t s = *thread_slot(r, tid);
	return s ? &r->threads[s - 1] : NULL;
}

static int set_thread(struct profev_reader *r, uint32_t tid, uint32_t pid, uint32_t name, int keep_pid)
{
	r->last_thread = NULL; /* the table may move */
	uint32_t *slot = thread_slot(r, tid);
	if (*slot) {
		struct thread_entry *t = &r->threads[*slot - 1];
		if (!keep_pid)
			t->pid = pid;
		t->name = name;
		return 0;
	}
	if (array_grow((void **)&r->threads, &r->threads_cap, sizeof(*r->threads), r->nthreads + 1))
		return PROFEV_E_NOMEM;
	r->threads[r->nthreads] = (struct thread_entry){ tid, pid, name };
	*slot = ++r->nthreads;
	return tid_index_added(&r->thread_index, r->threads, sizeof(*r->threads), r->nthreads)
		       ? PROFEV_E_NOMEM : 0;
}

static int parse_threads(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	if (!count_fits(c, count, 3))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t tid = cur_varint(c), pid = cur_varint(c), name = cur_varint(c);
		if (c->bad || tid > UINT32_MAX || pid > UINT32_MAX || name > r->nstrs)
			return -1;
		int rc = set_thread(r, (uint32_t)tid, (uint32_t)pid, (uint32_t)name, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/* Executable segments of modules defined before (kind 12). */
static int parse_segments(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	if (!count_fits(c, count, 4))
		return -1;
	free(r->module_views);
	r->module_views = NULL;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t index = cur_varint(c), vaddr = cur_varint(c), offset = cur_varint(c),
			 size = cur_varint(c);
		if (c->bad || index >= r->nmodules || !size)
			return -1;
		struct module_entry *m = &r->modules[index];
		m->exec_vaddr = vaddr;
		m->exec_offset = offset;
		m->exec_size = size;
	}
	return 0;
}

static int parse_modules(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	/* Views made earlier cover fewer modules: whatever happens below, the
	 * next profev_reader_module() makes them again. */
	free(r->module_views);
	r->module_views = NULL;
	if (cur_varint(c) != r->nmodules || !count_fits(c, count, 4))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t plen = cur_varint(c);
		const uint8_t *path = cur_take(c, plen);
		uint64_t blen = cur_varint(c);
		const uint8_t *bid = cur_take(c, blen);
		uint64_t bias = cur_varint(c), size = cur_varint(c);
		if (c->bad || blen > 255)
			return -1;
		if (array_grow((void **)&r->modules, &r->modules_cap, sizeof(*r->modules), r->nmodules + 1))
			return PROFEV_E_NOMEM;
		struct module_entry *m = &r->modules[r->nmodules];
		memset(m, 0, sizeof(*m));
		m->path = malloc(plen + 1);
		m->build_id = malloc(blen ? blen : 1);
		r->nmodules++; /* counted now so free() releases partial entries */
		if (!m->path || !m->build_id)
			return PROFEV_E_NOMEM;
		memcpy(m->path, path, plen);
		m->path[plen] = 0;
		if (blen)
			memcpy(m->build_id, bid, blen);
		m->build_id_len = (uint32_t)blen;
		m->load_bias = bias;
		m->size = size;
	}
	return 0;
}

/* Room in *p, an arena of *cap entries of elem bytes with used taken, for
 * more entries (doubling). 0, or -1 on no memory. */
static int arena_room(void **p, size_t *cap, size_t elem, size_t used, uint64_t more)
{
	if (*cap - used >= more)
		return 0;
	size_t c = *cap ? *cap : 1024;
	while (c - used < more)
		c *= 2;
	void *n = realloc(*p, c * elem);
	if (!n)
		return -1;
	*p = n;
	*cap = c;
	return 0;
}

static int parse_stacks(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	/* A callstack is at least its frame count's byte. */
	if (cur_varint(c) != (uint64_t)r->nstacks + 1 || !count_fits(c, count, 1))
		return -1;
	if (array_grow((void **)&r->stacks, &r->stacks_cap, sizeof(*r->stacks), (uint64_t)r->nstacks + count))
		return PROFEV_E_NOMEM;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t n = cur_varint(c);
		/* A frame is at least three bytes (module, flags, offset). */
		if (n > STACK_MAX_FRAMES || !count_fits(c, n, 3))
			return -1;
		if (n && arena_room((void **)&r->frames, &r->frames_cap, sizeof(*r->frames), r->nframes, n))
			return PROFEV_E_NOMEM;
		struct profev_frame *f = n ? r->frames + r->nframes : NULL;
		for (uint64_t k = 0; k < n; k++) {
			uint64_t module = cur_varint(c), flags = cur_varint(c);
			f[k].offset = cur_varint(c);
			if (module > UINT32_MAX || flags > UINT32_MAX)
				return -1;
			f[k].module = (uint32_t)module;
			f[k].flags = (uint32_t)flags;
		}
		if (c->bad)
			return -1;
		r->stacks[r->nstacks++] = (struct stack_entry){ r->nframes, (uint32_t)n };
		r->nframes += n;
	}
	return 0;
}

static uint32_t sym_hash(uint32_t module, uint64_t offset)
{
	uint64_t h = (offset ^ ((uint64_t)module << 40)) * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32);
}

static uint32_t *sym_slot(const struct profev_reader *r, uint32_t module, uint64_t offset)
{
	uint32_t i = sym_hash(module, offset) & r->sym_mask;
	for (uint32_t s; (s = r->sym_slots[i]) != 0; i = (i + 1) & r->sym_mask)
		if (r->syms[s - 1].module == module && r->syms[s - 1].offset == offset)
			break;
	return &r->sym_slots[i];
}

static int parse_symbols(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	/* An entry is at least three bytes, each of its frames four. */
	if (!count_fits(c, count, 3))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t module = cur_varint(c), offset = cur_varint(c), n = cur_varint(c);
		if (module > UINT32_MAX || n > STACK_MAX_FRAMES || !count_fits(c, n, 4))
			return -1;
		if (n && arena_room((void **)&r->symraw, &r->symraw_cap, sizeof(*r->symraw), r->nsymraw, n))
			return PROFEV_E_NOMEM;
		struct sym_raw *s = n ? r->symraw + r->nsymraw : NULL;
		for (uint64_t k = 0; k < n; k++) {
			uint64_t fn = cur_varint(c), file = cur_varint(c), line = cur_varint(c), col = cur_varint(c);
			if (fn > r->nstrs || file > r->nstrs || line > UINT32_MAX || col > UINT32_MAX)
				return -1;
			s[k] = (struct sym_raw){ (uint32_t)fn, (uint32_t)file, (uint32_t)line, (uint32_t)col };
		}
		if (c->bad)
			return -1;
		uint32_t *slot = sym_slot(r, (uint32_t)module, offset);
		if (*slot) { /* a later definition replaces an earlier one */
			struct sym_entry *e = &r->syms[*slot - 1];
			e->start = r->nsymraw;
			e->n = (uint32_t)n;
			r->nsymraw += n;
			continue;
		}
		if (array_grow((void **)&r->syms, &r->syms_cap, sizeof(*r->syms), r->nsyms + 1))
			return PROFEV_E_NOMEM;
		r->syms[r->nsyms] = (struct sym_entry){ (uint32_t)module, (uint32_t)n, offset, r->nsymraw };
		*slot = ++r->nsyms;
		r->nsymraw += n;
		if (r->nsyms * 2 > r->sym_mask) {
			uint32_t mask = r->sym_mask * 2 + 1;
			uint32_t *slots = calloc((size_t)mask + 1, sizeof(*slots));
			if (!slots)
				return PROFEV_E_NOMEM;
			free(r->sym_slots);
	free(r->srclocs);
	free(r->srcloc_of);
			r->sym_slots = slots;
			r->sym_mask = mask;
			for (uint32_t k = 0; k < r->nsyms; k++)
				*sym_slot(r, r->syms[k].module, r->syms[k].offset) = k + 1;
		}
	}
	return 0;
}

/* Source locations: count × (site, name, category, function, file, line). */
static int parse_srclocs(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		uint64_t v[6];
		for (int k = 0; k < 6; k++)
			v[k] = cur_varint(c);
		if (c->bad || v[0] == 0 || v[5] > UINT32_MAX)
			return -1;
		for (int k = 0; k < 5; k++)
			if (v[k] > r->nstrs)
				return -1;
		uint32_t site = (uint32_t)v[0];
		if (site >= r->srcloc_of_cap) {
			uint32_t old = r->srcloc_of_cap;
			if (array_grow((void **)&r->srcloc_of, &r->srcloc_of_cap, sizeof(*r->srcloc_of),
				       (uint64_t)r->nstrs + 1))
				return PROFEV_E_NOMEM;
			memset(r->srcloc_of + old, 0, (r->srcloc_of_cap - old) * sizeof(*r->srcloc_of));
		}
		struct profev_srcloc loc = { (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3],
					     (uint32_t)v[4], (uint32_t)v[5] };
		if (r->srcloc_of[site]) { /* a later definition replaces an earlier one */
			r->srclocs[r->srcloc_of[site] - 1] = loc;
			continue;
		}
		if (array_grow((void **)&r->srclocs, &r->srclocs_cap, sizeof(*r->srclocs), r->nsrclocs + 1))
			return PROFEV_E_NOMEM;
		r->srclocs[r->nsrclocs++] = loc;
		r->srcloc_of[site] = r->nsrclocs;
	}
	return 0;
}

const struct profev_srcloc *profev_reader_srcloc(const struct profev_reader *r, uint32_t id)
{
	if (id >= r->srcloc_of_cap || !r->srcloc_of[id])
		return NULL;
	return &r->srclocs[r->srcloc_of[id] - 1];
}

enum { META_STRING = 1, META_UINT = 2, META_SINT = 3, META_DOUBLE = 4, META_LIST = 5 };

static int keep_string(char **slot, const uint8_t *s, uint64_t len, const char **out)
{
	char *copy = malloc(len + 1);
	if (!copy)
		return PROFEV_E_NOMEM;
	memcpy(copy, s, len);
	copy[len] = 0;
	free(*slot);
	*slot = copy;
	*out = copy;
	return 0;
}

static void free_argv(struct profev_reader *r)
{
	if (r->meta_argv)
		for (uint32_t i = 0; i < r->meta.argc; i++)
			free(r->meta_argv[i]);
	free(r->meta_argv);
	r->meta_argv = NULL;
	r->meta.argv = NULL;
	r->meta.argc = 0;
}

static int parse_meta(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	static const char *const string_keys[] = { "program", "host", "clock", "recorder" };
	struct profev_meta *m = &r->meta;
	const char **string_fields[] = { &m->program, &m->host, &m->clock, &m->recorder };
	for (uint32_t i = 0; i < count; i++) {
		uint64_t klen = cur_varint(c);
		const uint8_t *key = cur_take(c, klen);
		uint8_t type = cur_u8(c);
		if (c->bad)
			return -1;
#define IS(k) (klen == strlen(k) && memcmp(key, k, klen) == 0)
		if (type == META_STRING) {
			uint64_t len = cur_varint(c);
			const uint8_t *s = cur_take(c, len);
			if (!s)
				return -1;
			for (int k = 0; k < 4; k++)
				if (IS(string_keys[k]) && keep_string(&r->meta_strings[k], s, len, string_fields[k]))
					return PROFEV_E_NOMEM;
		} else if (type == META_UINT || type == META_SINT) {
			uint64_t v = cur_varint(c);
			int64_t sv = unzigzag(v);
			if (IS("pid")) m->pid = (uint32_t)v;
			else if (IS("mono_start_ns")) m->mono_start_ns = v;
			else if (IS("tick_base")) m->tick_base = v;
			else if (IS("exit_kind")) m->exit_kind = (int)v;
			else if (IS("end_ns")) m->end_ns = v;
			else if (IS("lost_events")) m->lost_events = v;
			else if (IS("dropped_args")) m->dropped_args = v;
			else if (IS("lost_images")) m->lost_images = v;
			else if (IS("refused_images")) m->refused_images = v;
			else if (IS("wall_start_ns")) m->wall_start_ns = type == META_SINT ? sv : (int64_t)v;
			else if (IS("exit_code")) m->exit_code = (int)(type == META_SINT ? sv : (int64_t)v);
		} else if (type == META_DOUBLE) {
			const uint8_t *d = cur_take(c, 8);
			if (!d)
				return -1;
			uint64_t bits = get_le64(d);
			if (IS("ticks_per_ns"))
				memcpy(&m->ticks_per_ns, &bits, 8);
		} else if (type == META_LIST) {
			uint64_t n = cur_varint(c);
			if (c->bad || n > (uint64_t)(c->end - c->p))
				return -1;
			int is_argv = IS("argv");
			if (is_argv) {
				free_argv(r);
				r->meta_argv = calloc(n ? n : 1, sizeof(char *));
				if (!r->meta_argv)
					return PROFEV_E_NOMEM;
				/* argc counts the strings kept so far: argv is
				 * whole up to it even if the list ends early. */
				m->argv = (const char *const *)r->meta_argv;
			}
			for (uint64_t k = 0; k < n; k++) {
				uint64_t len = cur_varint(c);
				const uint8_t *s = cur_take(c, len);
				if (!s)
					return -1;
				if (is_argv) {
					const char *unused;
					if (keep_string(&r->meta_argv[k], s, len, &unused))
						return PROFEV_E_NOMEM;
					m->argc = (uint32_t)k + 1;
				}
			}
			if (is_argv)
				m->argv = (const char *const *)r->meta_argv;
		} else {
			return -1; /* unknown value types cannot be skipped */
		}
#undef IS
	}
	return 0;
}

static int parse_end(struct profev_reader *r, struct cursor *c)
{
	struct profev_totals *t = &r->totals;
	uint64_t *fields[] = { &t->events, &t->chunks, &t->strings, &t->stacks, &t->threads,
			       &t->modules, &t->symbols, &t->images, &t->lost_events, &t->bytes };
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		*fields[i] = cur_varint(c);
	if (c->bad)
		return -1;
	r->have_totals = 1;
	return 0;
}

static int hold_image(struct profev_reader *r, const struct profev_image *im);

/* 0 with the image in r->image, 1 when the image is lost (its data do not
 * decode), <0 on errors. */
static int parse_image(struct profev_reader *r, struct cursor *c)
{
	struct profev_image *im = &r->image;
	uint64_t v[6];
	for (int i = 0; i < 6; i++)
		v[i] = cur_varint(c);
	if (c->bad || v[0] > UINT32_MAX || v[1] > UINT32_MAX || v[2] > UINT32_MAX || v[3] > UINT32_MAX)
		return 1;
	*im = (struct profev_image){ (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3],
				     v[4], v[5], c->p, (size_t)(c->end - c->p) };
	c->p = c->end;
	if (im->format != PROFEV_IMG_DXT1Z && im->format != PROFEV_IMG_DXT1RC)
		return hold_image(r, im);
	if (!r->images && !(r->images = image_coder_new(0)))
		return PROFEV_E_NOMEM;
	const char *why;
	int rc = image_decode(r->images, im, &r->image_blocks, &why);
	if (rc == PROFEV_E_NOMEM)
		return rc;
	if (rc)
		return 1;
	im->format = PROFEV_IMG_DXT1;
	im->data = r->image_blocks.data;
	im->size = r->image_blocks.len;
	return hold_image(r, im);
}

static int hold_image(struct profev_reader *r, const struct profev_image *im)
{
	if (!r->held && !(r->held = calloc(IMAGE_HOLD_COUNT, sizeof *r->held)))
		return PROFEV_E_NOMEM;
	while (r->nheld && (r->nheld == IMAGE_HOLD_COUNT || r->held_bytes + im->size > IMAGE_HOLD_BYTES)) {
		r->held_bytes -= r->held[r->held_first].img.size;
		r->held_first = (r->held_first + 1) % IMAGE_HOLD_COUNT;
		r->nheld--;
	}
	struct held_image *h = &r->held[(r->held_first + r->nheld) % IMAGE_HOLD_COUNT];
	if (h->cap < im->size) {
		uint8_t *p = realloc(h->data, im->size);
		if (!p)
			return PROFEV_E_NOMEM;
		h->data = p;
		h->cap = im->size;
	}
	if (im->size)
		memcpy(h->data, im->data, im->size);
	h->img = *im;
	h->img.data = h->data;
	r->held_bytes += im->size;
	r->nheld++;
	return 0;
}

const struct profev_image *profev_reader_image(const struct profev_reader *r, uint32_t id)
{
	for (uint32_t k = r->nheld; k-- > 0;) {
		const struct held_image *h = &r->held[(r->held_first + k) % IMAGE_HOLD_COUNT];
		if (h->img.id == id)
			return &h->img;
	}
	return NULL;
}

uint64_t profev_reader_lost_images(const struct profev_reader *r)
{
	return r->lost_images;
}

static int parse_events(struct profev_reader *r, const uint8_t *body, size_t len, uint32_t count,
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
	case PROFEV_CHUNK_META: rc = parse_meta(r, &cur, h.count); break;
	case PROFEV_CHUNK_STRINGS: rc = parse_strings(r, &cur, h.count); break;
	case PROFEV_CHUNK_THREADS: rc = parse_threads(r, &cur, h.count); break;
	case PROFEV_CHUNK_MODULES: rc = parse_modules(r, &cur, h.count); break;
	case PROFEV_CHUNK_SEGMENTS: rc = parse_segments(r, &cur, h.count); break;
	case PROFEV_CHUNK_STACKS: rc = parse_stacks(r, &cur, h.count); break;
	case PROFEV_CHUNK_SYMBOLS: rc = parse_symbols(r, &cur, h.count); break;
	case PROFEV_CHUNK_SRCLOCS: rc = parse_srclocs(r, &cur, h.count); break;
	case PROFEV_CHUNK_IMAGE:
		rc = parse_image(r, &cur);
		c->image = rc == 0 ? &r->image : NULL;
		if (rc == 1) {
			r->lost_images++;
			rc = 0;
			cur.p = cur.end;
		}
		break;
	case PROFEV_CHUNK_END:
		rc = parse_end(r, &cur);
		if (!rc)
			r->ended = 1;
		break;
	case PROFEV_CHUNK_EVENTS:
		rc = parse_events(r, raw, h.raw_size, h.count, &why);
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

/* The k-th MESSAGE event of a chunk carries its k-th text: find the MESSAGE
 * events once per chunk, when a text is first asked for. */
static int index_texts(struct profev_reader *r)
{
	if (array_grow((void **)&r->text_events, &r->text_events_cap, sizeof(*r->text_events), r->ntexts))
		return -1;
	uint32_t k = 0;
	for (uint32_t i = 0; i < r->nevents && k < r->ntexts; i++)
		if (r->events[i].type == PROFEV_EV_MESSAGE)
			r->text_events[k++] = i;
	for (; k < r->ntexts; k++)
		r->text_events[k] = UINT32_MAX; /* never matches an event */
	r->texts_indexed = 1;
	return 0;
}

const char *profev_reader_event_text(const struct profev_reader *r, const struct profev_event *ev,
				     size_t *len)
{
	*len = 0;
	if (!r->ntexts || ev < r->events || ev >= r->events + r->nevents || ev->type != PROFEV_EV_MESSAGE)
		return "";
	struct profev_reader *rw = (struct profev_reader *)r;
	if (!r->texts_indexed && index_texts(rw))
		return "";
	uint32_t i = (uint32_t)(ev - r->events), lo = 0, hi = r->ntexts;
	while (lo < hi) { /* text_events is increasing */
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->text_events[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->ntexts || r->text_events[lo] != i)
		return "";
	*len = r->texts[lo].len;
	return (const char *)r->body + r->texts[lo].offset;
}

/* Make the event at ev_pos the next one to hand out, reading chunks as
 * needed. @return 1, 0 at the end, <0 on errors. */
static int fill(struct profev_reader *r)
{
	while (r->ev_pos >= r->nevents) {
		struct profev_chunk c;
		int rc = profev_reader_next_chunk(r, &c);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* A THREAD_NAME event renames its thread as it is handed out. */
static void apply_thread_name(struct profev_reader *r, const struct profev_event *ev)
{
	if (ev->name <= r->nstrs)
		set_thread(r, ev->tid, 0, ev->name, 1);
}

int profev_reader_next_event(struct profev_reader *r, struct profev_event *ev,
			     struct profev_event_info *info)
{
	int rc = fill(r);
	if (rc <= 0)
		return rc;
	const struct profev_event *src = &r->events[r->ev_pos++];
	*ev = *src;
	if (ev->type == PROFEV_EV_THREAD_NAME)
		apply_thread_name(r, ev);
	if (info) {
		int has_category = ev->type == PROFEV_EV_ZONE_BEGIN || ev->type == PROFEV_EV_ZONE_END ||
				   ev->type == PROFEV_EV_INSTANT || ev->type == PROFEV_EV_MESSAGE;
		info->name = profev_reader_string(r, ev->name);
		info->category = has_category && ev->payload <= UINT32_MAX
					 ? profev_reader_string(r, (uint32_t)ev->payload) : "";
		if (!r->last_thread || r->last_tid != ev->tid) {
			r->last_thread = find_thread(r, ev->tid);
			r->last_tid = ev->tid;
		}
		info->thread = r->last_thread ? profev_reader_string(r, r->last_thread->name) : "";
		info->text = profev_reader_event_text(r, src, &info->text_len);
	}
	return 1;
}

int profev_reader_next_events(struct profev_reader *r, const struct profev_event **events,
			      size_t *count)
{
	int rc = fill(r);
	if (rc <= 0) {
		*events = NULL;
		*count = 0;
		return rc;
	}
	const struct profev_event *ev = r->events;
	uint32_t start = r->ev_pos, end = start + 1, n = r->nevents;
	/* A run ends before the next THREAD_NAME event, so that every event of
	 * it sees the thread names as they were when it happened. */
	if (ev[start].type == PROFEV_EV_THREAD_NAME) {
		apply_thread_name(r, &ev[start]);
		if (r->thread_names_left)
			r->thread_names_left--;
	}
	if (!r->thread_names_left)
		end = n; /* the decoder counted them: none is left to look for */
	while (end < n && ev[end].type != PROFEV_EV_THREAD_NAME)
		end++;
	r->ev_pos = end;
	*events = ev + start;
	*count = end - start;
	return 1;
}

const char *profev_reader_string(const struct profev_reader *r, uint32_t id)
{
	if (id == 0 || id > r->nstrs)
		return "";
	return (const char *)r->arena.data + r->strs[id - 1].offset;
}

uint32_t profev_reader_string_count(const struct profev_reader *r)
{
	return r->nstrs;
}

const char *profev_reader_thread_name(const struct profev_reader *r, uint32_t tid)
{
	const struct thread_entry *t = find_thread(r, tid);
	return t ? profev_reader_string(r, t->name) : "";
}

uint32_t profev_reader_thread_pid(const struct profev_reader *r, uint32_t tid)
{
	const struct thread_entry *t = find_thread(r, tid);
	return t ? t->pid : 0;
}

const struct profev_module *profev_reader_module(const struct profev_reader *r, uint32_t index)
{
	if (index >= r->nmodules)
		return NULL;
	struct profev_reader *rw = (struct profev_reader *)r;
	if (!rw->module_views) {
		rw->module_views = calloc(r->nmodules, sizeof(*rw->module_views));
		if (!rw->module_views)
			return NULL;
		for (uint32_t i = 0; i < r->nmodules; i++) {
			const struct module_entry *m = &r->modules[i];
			rw->module_views[i] = (struct profev_module){ m->path, m->build_id, m->build_id_len,
								      m->load_bias, m->size, m->exec_vaddr,
								      m->exec_offset, m->exec_size };
		}
	}
	return &r->module_views[index];
}

uint32_t profev_reader_module_count(const struct profev_reader *r)
{
	return r->nmodules;
}

const struct profev_frame *profev_reader_stack(const struct profev_reader *r, uint32_t id, unsigned *n)
{
	if (id == 0 || id > r->nstacks) {
		*n = 0;
		return NULL;
	}
	*n = r->stacks[id - 1].n;
	return r->frames + r->stacks[id - 1].start;
}

uint32_t profev_reader_stack_count(const struct profev_reader *r)
{
	return r->nstacks;
}

const struct profev_symframe *profev_reader_symbol(const struct profev_reader *r, uint32_t module,
						   uint64_t offset, unsigned *n)
{
	uint32_t s = *sym_slot(r, module, offset);
	*n = 0;
	if (!s)
		return NULL;
	const struct sym_entry *e = &r->syms[s - 1];
	struct profev_reader *rw = (struct profev_reader *)r;
	for (uint32_t k = 0; k < e->n; k++) {
		const struct sym_raw *raw = &r->symraw[e->start + k];
		rw->symscratch[k] = (struct profev_symframe){
			raw->function ? profev_reader_string(r, raw->function) : NULL,
			raw->file ? profev_reader_string(r, raw->file) : NULL, raw->line, raw->column };
	}
	*n = e->n;
	return rw->symscratch;
}

const struct profev_meta *profev_reader_meta(const struct profev_reader *r)
{
	return &r->meta;
}

const struct profev_totals *profev_reader_totals(const struct profev_reader *r)
{
	return r->have_totals ? &r->totals : NULL;
}

void profev_reader_free(struct profev_reader *r)
{
	if (!r)
		return;
	ZSTD_freeDCtx(r->dctx);
	image_coder_free(r->images);
	buf_free(&r->image_blocks);
	if (r->held)
		for (uint32_t i = 0; i < IMAGE_HOLD_COUNT; i++)
			free(r->held[i].data);
	free(r->held);
	buf_free(&r->stored);
	buf_free(&r->raw);
	buf_free(&r->arena);
	free(r->strs);
	free(r->threads);
	tid_index_free(&r->thread_index);
	for (uint32_t i = 0; i < r->nmodules; i++) {
		free(r->modules[i].path);
		free(r->modules[i].build_id);
	}
	free(r->modules);
	free(r->module_views);
	free(r->frames);
	free(r->stacks);
	free(r->symraw);
	free(r->syms);
	free(r->sym_slots);
	free(r->srclocs);
	free(r->srcloc_of);
	for (size_t i = 0; i < sizeof(r->meta_strings) / sizeof(r->meta_strings[0]); i++)
		free(r->meta_strings[i]);
	free_argv(r);
	free(r->events);
	free(r->texts);
	free(r->text_events);
	free(r);
}
