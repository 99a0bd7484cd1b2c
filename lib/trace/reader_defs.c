/* The reader's definition tables: strings, threads, modules and their
 * executable segments, callstacks, symbols and source locations, filled
 * from their chunks and looked up by id. */
#include <stdlib.h>
#include "trace/trace_internal.h"

int reader_defs_init(struct profev_reader *r)
{
	u64_map_init(&r->threads, sizeof(struct thread_entry));
	r->sym_mask = 1023;
	r->sym_slots = calloc(r->sym_mask + 1, sizeof(uint32_t));
	return r->sym_slots ? 0 : PROFEV_E_NOMEM;
}

/* No count from the file sizes an allocation before the body could hold
 * that many entries: each entry takes at least min bytes of what is left,
 * so a table grows by at most a few times the chunk's body (whose size is
 * bounded by CHUNK_MAX_RAW), however large the count claims to be.
 */
static int count_fits(const struct cursor *c, uint64_t count, unsigned min)
{
	return !c->bad && count <= (uint64_t)(c->end - c->p) / min;
}

int reader_parse_strings(struct profev_reader *r, struct cursor *c, uint32_t count)
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

const struct thread_entry *reader_thread(const struct profev_reader *r, uint32_t tid)
{
	return u64_map_find(&r->threads, (uint64_t)tid + 1);
}

int reader_set_thread(struct profev_reader *r, uint32_t tid, uint32_t pid, uint32_t name, int keep_pid)
{
	r->last_thread = NULL; /* the table may move */
	int added;
	struct thread_entry *t = u64_map_insert(&r->threads, (uint64_t)tid + 1, &added);
	if (!t)
		return PROFEV_E_NOMEM;
	if (added || !keep_pid)
		t->pid = pid;
	t->name = name;
	return 0;
}

int reader_parse_threads(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	if (!count_fits(c, count, 3))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t tid = cur_varint(c), pid = cur_varint(c), name = cur_varint(c);
		if (c->bad || tid > UINT32_MAX || pid > UINT32_MAX || name > r->nstrs)
			return -1;
		int rc = reader_set_thread(r, (uint32_t)tid, (uint32_t)pid, (uint32_t)name, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/* Executable segments of modules defined before (kind 12). */
int reader_parse_segments(struct profev_reader *r, struct cursor *c, uint32_t count)
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

int reader_parse_modules(struct profev_reader *r, struct cursor *c, uint32_t count)
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

/* Room in *p, an array of *cap entries of elem bytes of which used are
 * taken, for more entries (doubling): array_grow() for the frame and symbol
 * arrays, whose counts may pass 2^32. 0, or -1 on no memory. */
static int array_reserve(void **p, size_t *cap, size_t elem, size_t used, uint64_t more)
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

int reader_parse_stacks(struct profev_reader *r, struct cursor *c, uint32_t count)
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
		if (n && array_reserve((void **)&r->frames, &r->frames_cap, sizeof(*r->frames), r->nframes, n))
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

int reader_parse_symbols(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	/* An entry is at least three bytes, each of its frames four. */
	if (!count_fits(c, count, 3))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t module = cur_varint(c), offset = cur_varint(c), n = cur_varint(c);
		if (module > UINT32_MAX || n > STACK_MAX_FRAMES || !count_fits(c, n, 4))
			return -1;
		if (n && array_reserve((void **)&r->symraw, &r->symraw_cap, sizeof(*r->symraw), r->nsymraw, n))
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
			r->sym_slots = slots;
			r->sym_mask = mask;
			for (uint32_t k = 0; k < r->nsyms; k++)
				*sym_slot(r, r->syms[k].module, r->syms[k].offset) = k + 1;
		}
	}
	return 0;
}

/* Source locations: count × (site, name, category, function, file, line). */
int reader_parse_srclocs(struct profev_reader *r, struct cursor *c, uint32_t count)
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
	const struct thread_entry *t = reader_thread(r, tid);
	return t ? profev_reader_string(r, t->name) : "";
}

uint32_t profev_reader_thread_pid(const struct profev_reader *r, uint32_t tid)
{
	const struct thread_entry *t = reader_thread(r, tid);
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

void reader_defs_free(struct profev_reader *r)
{
	buf_free(&r->arena);
	free(r->strs);
	u64_map_free(&r->threads);
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
}
