/* The client's definitions (rec_internal.h, formats/wire.md): its string
 * ids, call sites, categories and modules, turned into the writer's. */
#include <stdlib.h>
#include <string.h>
#include "rec/elf_file.h"
#include "rec/rec_internal.h"

/*
 * The writer's id of a name, interned. Names are bounded per recording
 * (a client may redefine its string ids, or name every zone anew): past
 * MAX_NAMES distinct names or MAX_NAME_BYTES of them, every new name is
 * OVERFLOW_NAME. 0 if the trace cannot be written.
 */
uint32_t name_id(struct profev_recorder *r, const char *s, size_t len)
{
	if (r->overflow_name)
		return r->overflow_name;
	uint32_t id = profev_writer_string(r->w, s, len);
	if (id > r->max_name) { /* the writer numbers new strings in order */
		r->max_name = id;
		r->name_bytes += len;
		if (id >= MAX_NAMES || r->name_bytes >= MAX_NAME_BYTES) {
			r->overflow_name = profev_writer_string(r->w, OVERFLOW_NAME, strlen(OVERFLOW_NAME));
			rec_warn(r, "more than %u names or %u MiB of them; further names are recorded "
				     "as '%s'", MAX_NAMES, MAX_NAME_BYTES >> 20, OVERFLOW_NAME);
			if (!r->overflow_name)
				return 0;
		}
	}
	return id;
}


/* A map of client ids to writer ids grown from *have to n entries, the new
 * ones 0. 0, or -1 on no memory (the map unchanged). */
static int ids_grow(uint32_t **map, uint32_t *have, uint32_t n)
{
	uint32_t *m = realloc(*map, n * sizeof *m);
	if (!m)
		return -1;
	memset(m + *have, 0, (n - *have) * sizeof *m);
	*map = m;
	*have = n;
	return 0;
}

int def_string(struct profev_recorder *r, uint32_t id, const char *s, size_t len)
{
	/* Ids count call sites: a larger one is a corrupt stream, not a reason
	 * to grow the map. */
	if (id == 0 || id > (1u << 22))
		return -1;
	if (id >= r->nstrings) {
		uint32_t n = r->nstrings ? r->nstrings : 256;
		while (n <= id)
			n *= 2;
		if (ids_grow(&r->strings, &r->nstrings, n))
			return -1;
	}
	if (!s)
		return 0;
	uint32_t wid = name_id(r, s, len);
	if (!wid)
		return writer_failed(r);
	r->strings[id] = wid;
	return 0;
}

/* PFW_SITE: a string id of the client's that is a call site's name; the

 * trace gives each site an id of its own with its source location. */
int def_site(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_site ps;
	if (len < sizeof ps)
		return -1;
	memcpy(&ps, b, sizeof ps);
	if (ps.name_len > len - sizeof ps || ps.func_len > len - sizeof ps - ps.name_len ||
	    ps.file_len != len - sizeof ps - ps.name_len - ps.func_len || ps.id == 0 ||
	    ps.id > (1u << 22))
		return -1;
	const char *name = (const char *)b + sizeof ps;
	struct profev_srcloc loc = { 0, 0, 0, 0, ps.line };
	loc.category = ps.category < r->ncats ? r->cats[ps.category] : 0;
	if ((ps.func_len && !(loc.function = profev_writer_string(r->w, name + ps.name_len,
								   ps.func_len))) ||
	    (ps.file_len && !(loc.file = profev_writer_string(r->w, name + ps.name_len + ps.func_len,
							       ps.file_len))))
		return writer_failed(r);
	if (def_string(r, ps.id, NULL, 0) < 0) /* makes room for the id */
		return -1;
	uint32_t wid = profev_writer_site(r->w, name, ps.name_len, &loc);
	if (!wid)
		return writer_failed(r);
	r->strings[ps.id] = wid;
	return 0;
}


/*
 * The items of a --categories list ("render,-audio,*", formats/wire.md
 * PROFEV_CATEGORIES), as the client reads them: the one at *list (its name
 * without '-' in *item, *len bytes), *list moved to the next. 0 at the end.
 */
static int category_item(const char **list, const char **item, size_t *len)
{
	const char *s = *list;
	if (!s || !*s)
		return 0;
	size_t n = strcspn(s, ",");
	*item = s + (*s == '-');
	*len = n - (size_t)(*item - s);
	*list = s + n + (s[n] == ',');
	return 1;
}

/* The items that name matches, one bit per item by position; "*" matches
 * every name. */
static uint64_t category_items_matching(const char *list, const char *name, size_t len)
{
	uint64_t bits = 0;
	const char *item;
	size_t k;
	for (unsigned i = 0; i < 64 && category_item(&list, &item, &k); i++)
		if ((k == 1 && *item == '*') || (k == len && !memcmp(item, name, len)))
			bits |= 1ull << i;
	return bits;
}

void categories_unmatched(struct profev_recorder *r)
{
	const char *list = r->o.categories, *item;
	size_t at = 0, k;
	r->cats_unmatched[0] = 0;
	for (unsigned i = 0; i < 64 && category_item(&list, &item, &k); i++) {
		if (!k || (r->cats_matched >> i & 1) || at + k + 2 >= sizeof r->cats_unmatched)
			continue;
		if (at)
			r->cats_unmatched[at++] = ',';
		memcpy(r->cats_unmatched + at, item, k);
		r->cats_unmatched[at += k] = 0;
	}
}

int def_category(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_category c;
	if (len < sizeof c)
		return -1;
	memcpy(&c, b, sizeof c);
	if (c.index > UINT16_MAX || c.name_len > len - sizeof c)
		return -1;
	if (c.index >= r->ncats && ids_grow(&r->cats, &r->ncats, c.index + 16))
		return -1;
	uint32_t wid = name_id(r, (const char *)b + sizeof c, c.name_len);
	if (!wid)
		return writer_failed(r);
	r->cats[c.index] = wid;
	r->cats_matched |= category_items_matching(r->o.categories, (const char *)b + sizeof c,
						   c.name_len);
	return 0;
}

/*
 * The module's executable segment, from its file if the file is the one
 * the client mapped (the same build-id): Perfetto's mappings start there.
 * The client sends only the range of its load segments.
 */
static void module_exec(struct profev_module *pm)
{
	struct elf_file f;
	if (!pm->build_id_len || pm->path[0] != '/' || elf_file_read(pm->path, &f) ||
	    f.build_id_len != pm->build_id_len || memcmp(f.build_id, pm->build_id, f.build_id_len))
		return;
	const struct elf_segment *x = elf_file_exec(&f);
	if (x && x->memsz) {
		pm->exec_vaddr = x->vaddr;
		pm->exec_offset = x->offset;
		pm->exec_size = x->memsz;
	}
}

/*
 * A module replaces whatever it overlaps: the address space was reused
 * after a dlclose, and pcs from now on belong to the new module.
 */
int def_module(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_module m;
	if (len < sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	/* The build-id is checked against the body before the path is checked
	 * against what follows it: the subtraction cannot wrap. */
	if (m.build_id_len > PFW_MAX_BUILD_ID || m.build_id_len > len - sizeof m ||
	    m.path_len > len - sizeof m - m.build_id_len ||
	    m.vaddr_lo >= m.vaddr_hi || m.load_bias + m.vaddr_lo < m.load_bias ||
	    m.load_bias + m.vaddr_hi < m.load_bias + m.vaddr_lo || m.path_len >= 4096)
		return -1;
	if (r->mods.n == MAX_MODULES)
		return 0;
	char path[4096];
	memcpy(path, b + sizeof m + m.build_id_len, m.path_len);
	path[m.path_len] = 0;
	struct profev_module pm = { path, m.build_id_len ? b + sizeof m : NULL, m.build_id_len,
				    m.load_bias, m.vaddr_hi - m.vaddr_lo, 0, 0, 0 };
	module_exec(&pm);
	int index = profev_writer_module(r->w, &pm);
	if (index < 0)
		return writer_failed(r);
	struct module_range add = { m.load_bias + m.vaddr_lo, m.load_bias + m.vaddr_hi,
				    m.load_bias, (uint32_t)index, UINT32_MAX };
	return module_map_add(&r->mods, &add, MAX_MODULES);
}
