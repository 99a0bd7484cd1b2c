/*
 * sym/split_dwarf.c - split DWARF (-gsplit-dwarf). A skeleton unit in the
 * module (DWARF 5 DW_UT_skeleton, or a GNU DWARF 4 compile unit with
 * DW_AT_GNU_dwo_name and DW_AT_GNU_dwo_id) keeps the unit's ranges, its
 * line table and the addresses (.debug_addr); the DIEs are in a split
 * unit, with the same DWO id, of a .dwo file or of a .dwp package that
 * gathers the .dwo files of a program (dwp.c reads its index).
 *
 * Where each is looked for (profev_sym.h says it for users): a package
 * first, as llvm-symbolizer (which tries only MODULE.dwp); then the .dwo
 * named by DW_AT_dwo_name as llvm-symbolizer finds it (under
 * DW_AT_comp_dir unless absolute); then, as gdb does, under each debug dir
 * and beside the files. A split unit is read as a unit of its own file
 * (one more struct profev_symbolizer, dwo set), whose address and GNU
 * range sections are the skeleton file's. A .dwp unit gets such a file
 * too, its sections narrowed to the unit's contributions, so that its
 * offsets read as in a .dwo.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sym/sym_internal.h"

struct split {
	char *module;                    /* the module, for MODULE.dwp */
	char *dwp_path;                  /* given: the only package tried */
	char **dirs;
	unsigned ndirs;
	int dwp_tried, dwp_refused;      /* refused: a damaged package was found */
	struct profev_symbolizer *dwp;   /* the package, NULL if none */
	struct dwp_index index;
	/* .dwo files opened, and .dwp units read (freed before the package) */
	struct profev_symbolizer **files;
	size_t nfiles, capfiles;
};

static char *dup_or_null(const char *s, int *nomem)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	*nomem |= !d;
	return d;
}

int split_init(struct profev_symbolizer *s, const struct profev_symbolizer_files *f)
{
	struct split *sp = s->split = calloc(1, sizeof(*sp));
	if (!sp)
		return -1;
	int nomem = 0;
	sp->module = dup_or_null(f->symbols_path ? f->symbols_path : f->path, &nomem);
	sp->dwp_path = dup_or_null(f->dwp_path, &nomem);
	if (f->ndebug_dirs) {
		sp->dirs = calloc(f->ndebug_dirs, sizeof(*sp->dirs));
		nomem |= !sp->dirs;
		for (unsigned i = 0; sp->dirs && i < f->ndebug_dirs; i++)
			if (f->debug_dirs[i] && (sp->dirs[sp->ndirs] = dup_or_null(f->debug_dirs[i], &nomem)))
				sp->ndirs++;
	}
	return nomem ? -1 : 0;
}

void split_release(struct profev_symbolizer *s)
{
	struct split *sp = s->split;
	if (!sp)
		return;
	for (size_t i = 0; i < sp->nfiles; i++)
		sym_close(sp->files[i]);
	free(sp->files);
	sym_close(sp->dwp);
	for (unsigned i = 0; i < sp->ndirs; i++)
		free(sp->dirs[i]);
	free(sp->dirs);
	free(sp->module);
	free(sp->dwp_path);
	free(sp);
	s->split = NULL;
}

static int keep(struct split *sp, struct profev_symbolizer *t)
{
	if (grow((void **)&sp->files, &sp->capfiles, sp->nfiles + 1, sizeof(*sp->files))) {
		sym_close(t);
		return -1;
	}
	sp->files[sp->nfiles++] = t;
	return 0;
}

/* A file holding split units, of the module s: shares s's demangler and
 * warnings. */
static struct profev_symbolizer *new_part(struct profev_symbolizer *s, const char *path)
{
	struct profev_symbolizer *t = sym_alloc(NULL);
	if (!t)
		return NULL;
	t->dwo = 1;
	t->owner = s;
	t->demangler = s->demangler;
	if (!(t->path = arena_strdup(&t->arena, path))) {
		sym_close(t);
		return NULL;
	}
	return t;
}

/* Open path as a .dwo or .dwp file into *out. SPLIT_ABSENT when there is no
 * such file; SPLIT_REFUSED (warned) when it is not one that can be read. */
static int open_part(struct profev_symbolizer *s, const char *path, int units,
		     struct profev_symbolizer **out)
{
	struct stat st;
	*out = NULL;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return SPLIT_ABSENT;
	struct profev_symbolizer *t = new_part(s, path);
	if (!t)
		return SPLIT_NOMEM;
	int rc = sym_open_elf(t, path, &t->fd, &t->elf);
	if (rc == 0)
		rc = sections_load(t, path);
	if (rc == 0)
		rc = sym_fail(t, PROFEV_E_CORRUPT, "'%s': no split DWARF (.debug_info.dwo) in it", path);
	if (rc < 0) {
		if (rc == PROFEV_E_NOMEM) {
			sym_close(t);
			return SPLIT_NOMEM;
		}
		sym_warn(s, "%s", t->err.message);
		sym_close(t);
		return SPLIT_REFUSED;
	}
	/* addresses, and the ranges of GNU split units, are the skeleton's */
	t->dw.addr = s->dw.addr;
	if (!t->dw.ranges.n)
		t->dw.ranges = s->dw.ranges;
	if (units && info_load_units(t)) {
		sym_close(t);
		return SPLIT_NOMEM;
	}
	*out = t;
	return SPLIT_FOUND;
}

/* A unit of the package: a file whose sections are its contributions. */
static int dwp_unit(struct profev_symbolizer *s, struct cu *cu, struct profev_symbolizer **out)
{
	struct split *sp = s->split;
	struct profev_symbolizer *p = sp->dwp;
	struct dwp_unit u;
	const char *why;
	*out = NULL;
	int k = dwp_find(&sp->index, cu->dwo_id, &u, &why);
	if (k == 0)
		return SPLIT_ABSENT;
	if (k < 0) {
		sym_warn(s, "'%s': .debug_cu_index: unit 0x%016llx: %s", p->path,
			 (unsigned long long)cu->dwo_id, why);
		return SPLIT_REFUSED;
	}
	struct profev_symbolizer *t = new_part(s, p->path);
	if (!t)
		return SPLIT_NOMEM;
	static const struct { unsigned sect; size_t off; const char *name; } cols[] = {
		{ DWP_INFO, offsetof(struct dwsects, info), ".debug_info.dwo" },
		{ DWP_ABBREV, offsetof(struct dwsects, abbrev), ".debug_abbrev.dwo" },
		{ DWP_LINE, offsetof(struct dwsects, line), ".debug_line.dwo" },
		{ DWP_STR_OFFSETS, offsetof(struct dwsects, str_offsets), ".debug_str_offsets.dwo" },
		{ DWP_RNGLISTS, offsetof(struct dwsects, rnglists), ".debug_rnglists.dwo" },
	};
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		const struct sect *whole = (const struct sect *)((const char *)&p->dw + cols[i].off);
		struct sect *part = (struct sect *)((char *)&t->dw + cols[i].off);
		unsigned c = cols[i].sect;
		if (!u.has[c])
			continue;
		if (u.off[c] > whole->n || u.size[c] > whole->n - u.off[c]) {
			sym_warn(s, "'%s': .debug_cu_index: unit 0x%016llx: its %s contribution (0x%llx bytes at 0x%llx) lies past the section's 0x%zx bytes",
				 p->path, (unsigned long long)cu->dwo_id, cols[i].name,
				 (unsigned long long)u.size[c], (unsigned long long)u.off[c], whole->n);
			sym_close(t);
			return SPLIT_REFUSED;
		}
		part->p = whole->p + u.off[c];
		part->n = (size_t)u.size[c];
	}
	/* each contribution that starts with a unit or table header must be
	 * exactly that unit or table: an offset or size that is off by any
	 * amount then shows */
	static const struct { unsigned sect; size_t off; const char *name; int v5_only; } hdr[] = {
		{ DWP_INFO, offsetof(struct dwsects, info), ".debug_info.dwo", 0 },
		{ DWP_STR_OFFSETS, offsetof(struct dwsects, str_offsets), ".debug_str_offsets.dwo", 1 },
		{ DWP_RNGLISTS, offsetof(struct dwsects, rnglists), ".debug_rnglists.dwo", 1 },
	};
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++) {
		const struct sect *part = (const struct sect *)((const char *)&t->dw + hdr[i].off);
		if (!u.has[hdr[i].sect] || (hdr[i].v5_only && sp->index.version != 5))
			continue;
		struct cur c = cur_at(part, 0, part->n);
		unsigned offsize;
		if (rd_unit_length(&c, &offsize) || c.end != part->p + part->n) {
			sym_warn(s, "'%s': .debug_cu_index: unit 0x%016llx: its %s contribution at 0x%llx is not one whole unit or table",
				 p->path, (unsigned long long)cu->dwo_id, hdr[i].name,
				 (unsigned long long)u.off[hdr[i].sect]);
			sym_close(t);
			return SPLIT_REFUSED;
		}
	}
	t->dw.str = p->dw.str;
	t->dw.addr = s->dw.addr;
	t->dw.ranges = s->dw.ranges;
	t->info_off = u.off[DWP_INFO];
	if (info_load_units(t)) {
		sym_close(t);
		return SPLIT_NOMEM;
	}
	*out = t;
	return SPLIT_FOUND;
}

/* The unit of t with the skeleton's DWO id, bound to it. */
static int bind(struct profev_symbolizer *s, struct cu *cu, struct profev_symbolizer *t)
{
	for (size_t i = 0; i < t->ncus; i++) {
		struct cu *tcu = &t->cus[i];
		if (!tcu->has_dwo_id || tcu->dwo_id != cu->dwo_id)
			continue;
		if (tcu->u.addrsize != cu->u.addrsize) {
			sym_warn(s, "'%s': unit 0x%016llx: address size %u, the skeleton's is %u", t->path,
				 (unsigned long long)cu->dwo_id, tcu->u.addrsize, cu->u.addrsize);
			return SPLIT_REFUSED;
		}
		tcu->u.addr_base = cu->u.addr_base;
		tcu->u.ranges_base = cu->gnu_ranges_base;
		if (!tcu->u.base)
			tcu->u.base = cu->u.base;
		cu->dwo = t;
		cu->dwo_cu = tcu;
		return SPLIT_FOUND;
	}
	return SPLIT_ABSENT;
}

/* Open the package, once: the first candidate that exists. */
static int find_dwp(struct profev_symbolizer *s)
{
	struct split *sp = s->split;
	sp->dwp_tried = 1;
	char buf[4096];
	const char *base = strrchr(sp->module, '/') ? strrchr(sp->module, '/') + 1 : sp->module;
	for (unsigned k = 0;; k++) {
		if (sp->dwp_path) {
			if (k > 0)
				break;
			snprintf(buf, sizeof(buf), "%s", sp->dwp_path);
		} else if (k == 0) {
			snprintf(buf, sizeof(buf), "%s.dwp", sp->module);
		} else if (k == 1) {
			if (strcmp(s->path, sp->module) == 0)
				continue;
			snprintf(buf, sizeof(buf), "%s.dwp", s->path);
		} else if (k - 2 < sp->ndirs) {
			snprintf(buf, sizeof(buf), "%s/%s.dwp", sp->dirs[k - 2], base);
		} else {
			break;
		}
		struct profev_symbolizer *t;
		int rc = open_part(s, buf, 0, &t);
		if (rc == SPLIT_NOMEM)
			return SPLIT_NOMEM;
		if (rc == SPLIT_ABSENT)
			continue;
		if (rc == SPLIT_FOUND) {
			const char *why = t->dw.cu_index.n ? dwp_index_read(&sp->index, &t->dw.cu_index)
							   : "no .debug_cu_index";
			if (!why) {
				sp->dwp = t;
				return SPLIT_FOUND;
			}
			sym_warn(s, "'%s': .debug_cu_index: %s", buf, why);
			sym_close(t);
		}
		sp->dwp_refused = 1;
		/* a damaged package: the .dwo files may still be there */
	}
	return SPLIT_ABSENT;
}

/* The files a .dwo may be at, in order; cand[k] for k = 0, 1, ... */
static int dwo_candidate(struct profev_symbolizer *s, const struct cu *cu, unsigned k, char *buf,
			 size_t cap)
{
	struct split *sp = s->split;
	const char *name = cu->dwo_name, *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	int abs = name[0] == '/';
	if (k == 0) {
		if (abs || !cu->comp_dir || !*cu->comp_dir)
			snprintf(buf, cap, "%s", name);
		else
			snprintf(buf, cap, "%s/%s", cu->comp_dir, name);
		return 1;
	}
	k--;
	if (k < 2 * sp->ndirs) {
		if (k % 2 == 0 && abs)
			return 0;
		snprintf(buf, cap, "%s/%s", sp->dirs[k / 2], k % 2 ? base : name);
		return 1;
	}
	k -= 2 * sp->ndirs;
	const char *beside = k == 0 ? s->path : k == 1 ? sp->module : NULL;
	if (!beside)
		return -1;
	const char *slash = strrchr(beside, '/');
	if (slash)
		snprintf(buf, cap, "%.*s/%s", (int)(slash - beside), beside, base);
	else
		snprintf(buf, cap, "%s", base);
	return 1;
}

int split_bind(struct profev_symbolizer *s, struct cu *cu)
{
	struct split *sp = s->split;
	if (!sp)
		return SPLIT_ABSENT;
	if (!cu->has_dwo_id) {
		sym_warn(s, "'%s': .debug_info: skeleton unit at offset 0x%llx has no DWO id", s->path,
			 (unsigned long long)cu->unit_off);
		return SPLIT_ABSENT;
	}
	if (!sp->dwp_tried && find_dwp(s) == SPLIT_NOMEM)
		return SPLIT_NOMEM;
	/* a damaged file on the way refuses the unit, unless a good one is
	 * found after it: half the DIEs of a unit would give wrong frames */
	int refused = sp->dwp_refused;
	if (sp->dwp) {
		struct profev_symbolizer *t;
		int rc = dwp_unit(s, cu, &t);
		if (rc == SPLIT_NOMEM)
			return SPLIT_NOMEM;
		if (rc == SPLIT_FOUND) {
			if (keep(sp, t))
				return SPLIT_NOMEM;
			rc = bind(s, cu, t);
			if (rc == SPLIT_ABSENT) {
				sym_warn(s, "'%s': unit 0x%016llx of the index is not in .debug_info.dwo",
					 t->path, (unsigned long long)cu->dwo_id);
				rc = SPLIT_REFUSED;
			}
			if (rc != SPLIT_REFUSED)
				return rc;
		}
		refused |= rc == SPLIT_REFUSED;
	}
	/* a .dwo already open: several skeletons may share one (LTO) */
	for (size_t i = 0; i < sp->nfiles; i++) {
		if (!sp->files[i]->elf)
			continue; /* a unit of the package */
		int rc = bind(s, cu, sp->files[i]);
		if (rc != SPLIT_ABSENT)
			return rc;
	}
	const char *name = cu->dwo_name;
	if (!name || !*name) {
		if (!refused)
			sym_warn(s, "'%s': unit 0x%016llx: no .dwp holds it and the skeleton names no .dwo file",
				 s->path, (unsigned long long)cu->dwo_id);
		return refused ? SPLIT_REFUSED : SPLIT_ABSENT;
	}
	char buf[4096], first[4096];
	int other = 0;
	for (unsigned k = 0;; k++) {
		int c = dwo_candidate(s, cu, k, buf, sizeof(buf));
		if (c < 0)
			break;
		if (c == 0)
			continue;
		if (k == 0)
			snprintf(first, sizeof(first), "%s", buf);
		int seen = 0;
		for (size_t i = 0; i < sp->nfiles; i++)
			if (sp->files[i]->elf && strcmp(sp->files[i]->path, buf) == 0)
				seen = 1, refused |= sp->files[i]->damaged;
		if (seen)
			continue;
		struct profev_symbolizer *t;
		int rc = open_part(s, buf, 1, &t);
		if (rc == SPLIT_NOMEM)
			return SPLIT_NOMEM;
		refused |= rc == SPLIT_REFUSED;
		if (rc != SPLIT_FOUND)
			continue;
		if (keep(sp, t))
			return SPLIT_NOMEM;
		rc = bind(s, cu, t);
		if (rc != SPLIT_ABSENT)
			return rc;
		if (t->damaged) {
			refused = 1;
			continue;
		}
		/* another build's .dwo: kept (another unit may be in it), not used */
		sym_warn(s, "'%s': no unit with the DWO id 0x%016llx of '%s' (another build?)", buf,
			 (unsigned long long)cu->dwo_id, s->path);
		other = 1;
	}
	if (!refused && !other)
		sym_warn(s, "'%s': split DWARF file '%s' not found (no .dwp either)", s->path, first);
	return refused ? SPLIT_REFUSED : SPLIT_ABSENT;
}
