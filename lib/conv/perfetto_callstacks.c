/*
 * The Perfetto target's callstacks: frames, mappings and callstacks
 * interned on sequence 1 for zones, allocations and samples.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/perfetto_packets.h"

/* Mapping path components: iid (module index + 1) << 8 | component. */
#define PATH_PARTS 255


/* ---- callstacks ---- */

static const struct profev_module *frame_module(const struct conv *c, const struct profev_frame *f)
{
	return f->flags & PROFEV_FRAMEF_NOMODULE ? NULL : profev_reader_module(c->r, f->module);
}

static struct frame_iids *frame_slot(const struct perfetto *p, uint32_t module, uint64_t offset, uint32_t ret)
{
	uint64_t h = (offset * 0x9e3779b97f4a7c15ull ^ module ^ (uint64_t)ret << 32) * 0xff51afd7ed558ccdull;
	size_t i = (size_t)(h >> 32) & p->frames_mask;
	while (p->frames[i].iid &&
	       (p->frames[i].offset != offset || p->frames[i].module != module || p->frames[i].ret != ret))
		i = (i + 1) & p->frames_mask;
	return &p->frames[i];
}

static int frames_rehash(struct perfetto *p)
{
	size_t n = p->frames ? p->frames_mask + 1 : 0, mask = n ? 2 * n - 1 : 255;
	struct frame_iids *old = p->frames;
	if (!(p->frames = calloc(mask + 1, sizeof(*p->frames)))) {
		p->frames = old;
		return PROFEV_E_NOMEM;
	}
	p->frames_mask = mask;
	for (size_t i = 0; i < n; i++)
		if (old[i].iid)
			*frame_slot(p, old[i].module, old[i].offset, old[i].ret) = old[i];
	free(old);
	return 0;
}

/*
 * A frame's rel_pc is the address pfsym resolves, as Perfetto's producers
 * (libunwindstack in traced_perf and heapprofd) store it: a return address
 * less one, in the call instruction.
 */
static uint32_t frame_ret(const struct profev_frame *f)
{
	return (f->flags & PROFEV_FRAMEF_RETURN) && !(f->flags & PROFEV_FRAMEF_NOMODULE) && f->offset;
}

/* The frame iids of f, made on first sight. */
static struct frame_iids *frame_iids_of(struct conv *c, const struct profev_frame *f)
{
	struct perfetto *p = c->fmt;
	if ((!p->frames || (p->nframes + 1) * 2 > p->frames_mask) && frames_rehash(p))
		return NULL;
	uint32_t module = frame_module(c, f) ? f->module : NO_MODULE;
	uint32_t ret = frame_ret(f);
	struct frame_iids *e = frame_slot(p, module, f->offset, ret);
	if (e->iid)
		return e;
	unsigned n = 0;
	if (module != NO_MODULE && !conv_symbol(c, module, f->offset, &n))
		n = 0;
	if (!n)
		n = 1;
	if (p->next_iid > UINT32_MAX - n - 1)
		return NULL;
	*e = (struct frame_iids){ f->offset, module, p->next_iid + 1, n, 0, ret };
	p->next_iid += n;
	p->nframes++;
	return e;
}

static size_t path_parts(const char *path)
{
	size_t n = 0;
	for (const char *s = path; *s; s++)
		n += (s == path || s[-1] == '/') && *s != '/';
	return n < PATH_PARTS ? n : PATH_PARTS;
}

/*
 * Make ready to define callstack id in the next packet, with the frames and
 * mappings this part has not defined yet; *need grows by the room they
 * take. @return 1 if the packet may refer to it (0: unknown or empty
 * stack), <0 on no memory.
 */
int perfetto_stack_prepare(struct conv *c, uint32_t id, size_t *need)
{
	struct perfetto *p = c->fmt;
	unsigned n;
	p->stack = 0;
	p->nnew_frames = p->nnew_modules = 0;
	const struct profev_frame *f = conv_stack(c, id, &n);
	if (!f)
		return 0;
	int fresh = conv_idset_add(&p->stacks, id);
	if (fresh <= 0)
		return fresh < 0 ? fresh : 1;
	if (n > p->new_cap) {
		struct frame_iids *a = realloc(p->new_frames, n * sizeof(*a));
		if (a)
			p->new_frames = a;
		uint32_t *b = realloc(p->new_modules, n * sizeof(*b));
		if (b)
			p->new_modules = b;
		if (!a || !b)
			return PROFEV_E_NOMEM;
		p->new_cap = n;
	}
	size_t room = 32;
	for (unsigned i = 0; i < n; i++) {
		struct frame_iids *e = frame_iids_of(c, &f[i]);
		if (!e)
			return PROFEV_E_NOMEM;
		room += 11 * (size_t)e->n;
		if (e->part == p->part)
			continue;
		e->part = p->part;
		p->new_frames[p->nnew_frames++] = *e;
		unsigned ns = 0;
		const struct profev_symframe *sym =
			e->module == NO_MODULE ? NULL : conv_symbol(c, e->module, e->offset, &ns);
		room += 112 * (size_t)e->n;
		for (unsigned k = 0; sym && k < ns && k < e->n; k++)
			room += 3 * (strlen(sym[k].function ? sym[k].function : "") +
				     strlen(sym[k].file ? sym[k].file : ""));
		if (e->module == NO_MODULE)
			continue;
		int r = conv_idset_add(&p->mappings, e->module);
		if (r < 0)
			return r;
		if (r) {
			const struct profev_module *m = profev_reader_module(c->r, e->module);
			p->new_modules[p->nnew_modules++] = e->module;
			room += 128 + m->build_id_len + 3 * strlen(m->path) + 32 * path_parts(m->path);
		}
	}
	p->stack = id;
	*need += room;
	return 1;
}

static void interned_string(struct conv *c, uint32_t field, uint64_t iid, const char *s, size_t n)
{
	struct outbuf *o = &c->out;
	size_t e = pb_begin(o, field);
	pb_uint(o, IS_IID, iid);
	c->st.replaced_bytes += pb_string_utf8(o, IS_STR, s, n);
	pb_end(o, e);
}

struct map_desc {
	uint64_t start, end, exact_offset, load_bias;
};

/* The executable mapping of module m, page-aligned as the kernel maps it. */
static struct map_desc map_desc(const struct profev_module *m)
{
	struct map_desc d = { 0, 0, 0, 0 };
	const uint64_t page = 4096;
	uint64_t v = m->exec_vaddr, off = m->exec_offset;
	/* (a hostile trace: nothing that wraps or that no ELF file holds) */
	if (!m->exec_size || v < off || (v & (page - 1)) != (off & (page - 1)) ||
	    v + m->exec_size < v || m->load_bias + v + m->exec_size < m->load_bias)
		return d;
	d.start = m->load_bias + (v & ~(page - 1));
	d.end = (m->load_bias + v + m->exec_size + page - 1) & ~(page - 1);
	d.exact_offset = off & ~(page - 1);
	d.load_bias = v - off;
	if (d.end <= d.start)
		d.end = 0;
	return d;
}

/* Inside an InternedData: what perfetto_stack_prepare() found new, in field order. */
void perfetto_stack_write(struct conv *c)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	char hex[24];
	for (unsigned i = 0; i < p->nnew_frames; i++) {
		const struct frame_iids *e = &p->new_frames[i];
		unsigned ns = 0;
		const struct profev_symframe *sym =
			e->module == NO_MODULE ? NULL : conv_symbol(c, e->module, e->offset, &ns);
		for (unsigned k = 0; k < e->n; k++) {
			const char *fn = sym && k < ns ? sym[k].function : NULL;
			if (e->module == NO_MODULE)
				fn = hex, snprintf(hex, sizeof(hex), "0x%" PRIx64, e->offset);
			if (fn)
				interned_string(c, ID_FUNCTION_NAMES, e->iid + k, fn, strlen(fn));
		}
	}
	for (unsigned i = 0; i < p->nnew_frames; i++) {
		const struct frame_iids *e = &p->new_frames[i];
		unsigned ns = 0;
		const struct profev_symframe *sym =
			e->module == NO_MODULE ? NULL : conv_symbol(c, e->module, e->offset, &ns);
		for (unsigned k = 0; k < e->n; k++) {
			const struct profev_symframe *sf = sym && k < ns ? &sym[k] : NULL;
			size_t fm = pb_begin(o, ID_FRAMES);
			pb_uint(o, FR_IID, e->iid + k);
			if ((sf && sf->function) || e->module == NO_MODULE)
				pb_uint(o, FR_FUNCTION_NAME_ID, e->iid + k);
			if (e->module != NO_MODULE) {
				pb_uint(o, FR_MAPPING_ID, (uint64_t)e->module + 1);
				pb_uint(o, FR_REL_PC, e->offset - e->ret);
			}
			if (sf && sf->file)
				pb_uint(o, FR_SOURCE_PATH_IID, e->iid + k);
			if (sf && sf->line)
				pb_uint(o, FR_LINE_NUMBER, sf->line);
			pb_end(o, fm);
		}
	}
	/* Perfetto lists a callstack's frames outermost first. */
	unsigned n;
	const struct profev_frame *f = conv_stack(c, p->stack, &n);
	size_t cs = pb_begin(o, ID_CALLSTACKS);
	pb_uint(o, CST_IID, p->stack);
	for (unsigned i = n; i-- > 0;) {
		const struct frame_iids *e = frame_slot(p, frame_module(c, &f[i]) ? f[i].module : NO_MODULE, f[i].offset, frame_ret(&f[i]));
		for (unsigned k = e->n; k-- > 0;)
			pb_uint(o, CST_FRAME_IDS, e->iid + k);
	}
	pb_end(o, cs);
	for (unsigned i = 0; i < p->nnew_modules; i++) {
		const struct profev_module *m = profev_reader_module(c->r, p->new_modules[i]);
		if (!m->build_id_len)
			continue;
		size_t e = pb_begin(o, ID_BUILD_IDS);
		pb_uint(o, IS_IID, (uint64_t)p->new_modules[i] + 1);
		pb_bytes(o, IS_STR, m->build_id, m->build_id_len);
		pb_end(o, e);
	}
	for (unsigned i = 0; i < p->nnew_modules; i++) {
		const char *s = profev_reader_module(c->r, p->new_modules[i])->path;
		uint64_t base = ((uint64_t)p->new_modules[i] + 1) << 8;
		for (unsigned k = 0; *s && k < PATH_PARTS; k++) {
			while (*s == '/')
				s++;
			size_t len = strcspn(s, "/");
			if (!len)
				break;
			/* the last part keeps the rest of a path too long to split */
			if (k == PATH_PARTS - 1)
				len = strlen(s);
			interned_string(c, ID_MAPPING_PATHS, base | k, s, len);
			s += len;
		}
	}
	for (unsigned i = 0; i < p->nnew_frames; i++) {
		const struct frame_iids *e = &p->new_frames[i];
		unsigned ns = 0;
		const struct profev_symframe *sym =
			e->module == NO_MODULE ? NULL : conv_symbol(c, e->module, e->offset, &ns);
		for (unsigned k = 0; sym && k < ns && k < e->n; k++)
			if (sym[k].file)
				interned_string(c, ID_SOURCE_PATHS, e->iid + k, sym[k].file, strlen(sym[k].file));
	}
	for (unsigned i = 0; i < p->nnew_modules; i++) {
		const struct profev_module *m = profev_reader_module(c->r, p->new_modules[i]);
		uint64_t iid = (uint64_t)p->new_modules[i] + 1;
		size_t e = pb_begin(o, ID_MAPPINGS);
		pb_uint(o, MAP_IID, iid);
		if (m->build_id_len)
			pb_uint(o, MAP_BUILD_ID, iid);
		/* As traced_perf and heapprofd describe a module (libunwindstack's
		 * view of its executable mapping in /proc/PID/maps): start and
		 * end where that mapping is, exact_offset its file offset,
		 * start_offset 0 (the file is the ELF file), load_bias p_vaddr -
		 * p_offset of the first executable segment, and rel_pc the ELF
		 * virtual address (what llvm-symbolizer takes), so that
		 * Perfetto's symbolizer finds the addresses pfsym resolves also
		 * where the two differ (lld). A module whose segment the trace
		 * does not know: all 0, rel_pc as before. */
		struct map_desc d = map_desc(m);
		pb_uint(o, MAP_START_OFFSET, 0);
		if (d.end) {
			pb_uint(o, MAP_START, d.start);
			pb_uint(o, MAP_END, d.end);
		}
		pb_uint(o, MAP_LOAD_BIAS, d.load_bias);
		for (size_t k = 0, np = path_parts(m->path); k < np; k++)
			pb_uint(o, MAP_PATH_STRING_IDS, iid << 8 | k);
		pb_uint(o, MAP_EXACT_OFFSET, d.exact_offset);
		pb_end(o, e);
	}
	p->stack = 0;
}

