/*
 * symbolize.c - addresses to functions, files and lines: DWARF through
 * libdwarf (the only file that includes it), ELF symbols through libelf.
 *
 * The answers reproduce llvm-symbolizer --inlines --demangle (LLVM 14),
 * which the tests hold as the reference, so several rules here copy its
 * choices rather than "improve" on them:
 *   - the compile unit is found from the CU DIE's ranges;
 *   - the inline chain comes from a map built like DWARFUnit's AddrDieMap:
 *     every subprogram and inlined_subroutine range inserted in DIE
 *     preorder, a later (inner) range splitting the one it falls into;
 *   - the line row is the last one at or below the address in the first
 *     sequence (by end address) that ends above it, found with the same
 *     upper_bound so even odd tables give the same row;
 *   - file paths are joined comp_dir / include dir / name like
 *     DWARFDebugLine::Prologue::getFileNameByIndex;
 *   - the outermost frame is renamed from the symbol table when a symbol
 *     covers the address (".cold" and ".constprop" parts keep their suffix).
 * Each compile unit is loaded once, on its first lookup, into sorted
 * arrays; a lookup is then a few binary searches.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <libdwarf.h>
#include "profev_sym.h"

#ifdef PROFEV_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

/* ---------------------------------------------------------------- */
/* Small helpers                                                     */
/* ---------------------------------------------------------------- */

/* Bump allocator for strings that live as long as the symbolizer. */
struct arena {
	char *cur;
	size_t left;
	void **blocks;
	size_t nblocks, capblocks;
};

static char *arena_alloc(struct arena *a, size_t n)
{
	if (n > a->left) {
		size_t sz = n > 65536 ? n : 65536;
		if (a->nblocks == a->capblocks) {
			size_t cap = a->capblocks ? a->capblocks * 2 : 16;
			void **b = realloc(a->blocks, cap * sizeof(*b));
			if (!b)
				return NULL;
			a->blocks = b;
			a->capblocks = cap;
		}
		char *blk = malloc(sz);
		if (!blk)
			return NULL;
		a->blocks[a->nblocks++] = blk;
		a->cur = blk;
		a->left = sz;
	}
	char *p = a->cur;
	a->cur += n;
	a->left -= n;
	return p;
}

static char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

static void arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->nblocks; i++)
		free(a->blocks[i]);
	free(a->blocks);
	memset(a, 0, sizeof(*a));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Demangling                                                        */
/* ---------------------------------------------------------------- */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/*
 * libiberty and libstdc++ share one Itanium demangler (cp-demangle.c) whose
 * spelling differs from LLVM's in a few places; rewrite those so the names
 * match llvm-symbolizer's:
 *   " [clone .cold] [clone .1]"  ->  " (.cold.1)"   (LLVM: one group)
 *   "{lambda(int)#1}"            ->  "'lambda'(int)", #2 -> "'lambda0'(...)"
 *   "{unnamed type#1}"           ->  "'unnamed'",     #2 -> "'unnamed0'"
 *   "operator< <T>"              ->  "operator<<T>" (also for operator<<)
 * Known remaining difference: LLVM 14 prints a return type before local
 * classes of function templates ("void f<int>()::L::L()").
 */
static char *llvm_style(char *s)
{
	size_t n = strlen(s);
	char *out = malloc(n + 16);
	if (!out) {
		free(s);
		return NULL;
	}
	size_t o = 0;
	const char *p = s;
	int in_clone = 0;
	while (*p) {
		if (strncmp(p, " [clone ", 8) == 0 && strchr(p + 8, ']')) {
			const char *end = strchr(p + 8, ']');
			if (!in_clone) {
				memcpy(out + o, " (", 2);
				o += 2;
				in_clone = 1;
			}
			memcpy(out + o, p + 8, (size_t)(end - p - 8));
			o += (size_t)(end - p - 8);
			p = end + 1;
			continue;
		}
		if (in_clone) {
			out[o++] = ')';
			in_clone = 0;
		}
		int lambda = strncmp(p, "{lambda(", 8) == 0;
		int unnamed = strncmp(p, "{unnamed type#", 14) == 0;
		if (lambda || unnamed) {
			/* find the matching "#N}" of this brace */
			int depth = 0;
			const char *q = p, *hash = NULL;
			for (; *q; q++) {
				if (*q == '{')
					depth++;
				else if (*q == '}' && --depth == 0)
					break;
				else if (*q == '#' && depth == 1)
					hash = q;
			}
			if (*q == '}' && hash) {
				long k = strtol(hash + 1, NULL, 10);
				const char *word = lambda ? "'lambda" : "'unnamed";
				o += (size_t)sprintf(out + o, "%s", word);
				if (k > 1)
					o += (size_t)sprintf(out + o, "%ld", k - 2);
				out[o++] = '\'';
				if (lambda) {
					/* the parameter list, "(int)" */
					memcpy(out + o, p + 7, (size_t)(hash - p - 7));
					o += (size_t)(hash - p - 7);
				}
				p = q + 1;
				continue;
			}
		}
		if (strncmp(p, "operator<", 9) == 0) {
			size_t k = p[9] == '<' ? 10 : 9;
			if (p[k] == ' ' && p[k + 1] == '<') {
				memcpy(out + o, p, k);
				o += k;
				p += k + 1;
				continue;
			}
		}
		out[o++] = *p++;
	}
	if (in_clone)
		out[o++] = ')';
	out[o] = '\0';
	free(s);
	return out;
}

static char *demangle_with(cxa_demangle_fn cxa, const char *name)
{
	char *d = NULL;
	if (strncmp(name, "_Z", 2) == 0) {
#ifdef PROFEV_HAVE_LIBIBERTY
		(void)cxa;
		d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
#else
		int status = 0;
		if (cxa)
			d = cxa(name, NULL, NULL, &status);
		if (status != 0) {
			free(d);
			d = NULL;
		}
#endif
	}
	if (d)
		return llvm_style(d);
	return strdup(name);
}

/* Without libiberty linked in, borrow libstdc++'s __cxa_demangle at run
 * time so that libprofev needs no C++ runtime to link. */
static void *open_demangler(cxa_demangle_fn *fn)
{
	*fn = NULL;
#ifdef PROFEV_HAVE_LIBIBERTY
	return NULL;
#else
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		*(void **)fn = dlsym(h, "__cxa_demangle");
	return h;
#endif
}

char *profev_demangle(const char *name)
{
	cxa_demangle_fn fn;
	void *h = open_demangler(&fn);
	char *d = demangle_with(fn, name);
	if (h)
		dlclose(h);
	return d;
}

/* ---------------------------------------------------------------- */
/* Data                                                              */
/* ---------------------------------------------------------------- */

struct row {
	uint64_t addr;
	uint32_t file, line;
	uint32_t col;
};

struct seq {
	uint64_t lo, hi;
	uint32_t first, last; /* rows [first, last), the end row is last - 1 */
};

struct sub {
	Dwarf_Off off;
	int32_t parent;       /* nearest enclosing subroutine, -1 at top */
	uint32_t call_file, call_line, call_col;
	uint8_t subprogram;   /* else inlined_subroutine */
	uint8_t named;        /* name below computed */
	const char *name;     /* demangled, NULL if none */
};

/* One entry of the flattened address map: [lo, hi) -> sub. */
struct dmap {
	uint64_t lo, hi;
	int32_t sub;
};

/* Treap node of the map under construction. */
struct tnode {
	uint64_t key, hi;
	int32_t sub;
	uint32_t prio;
	int32_t l, r;
};

struct cu {
	Dwarf_Off die_off;
	const char *comp_dir;
	int loaded;           /* 0 not yet, 1 loaded, -1 failed */
	int has_lines;
	int gnu_as;           /* producer is GCC: line program from GNU as */
	Dwarf_Unsigned line_version;
	const char **files;   /* resolved paths by index - file_base, NULL = not yet */
	uint8_t *file_done;
	Dwarf_Signed file_base, nfiles;
	const char **fnames;  /* raw file entry name and directory */
	Dwarf_Unsigned *fdirs;
	const char **dirs;
	Dwarf_Signed ndirs;
	struct row *rows;
	size_t nrows;
	struct seq *seqs;
	size_t nseqs;
	struct sub *subs;
	size_t nsubs, capsubs;
	struct dmap *map;
	size_t nmap;
};

struct curange {
	uint64_t lo, hi;
	uint32_t cu;
};

struct elfsym {
	uint64_t addr, size;
	const char *name;
	uint32_t local_idx;   /* symbol index if STB_LOCAL, else 0 */
	const char *demangled;
};

struct filesym {
	uint32_t idx;
	const char *name;
};

struct profev_symbolizer {
	struct profev_error err;
	struct arena arena;
	void *demangler_handle;
	cxa_demangle_fn demangler;
	/* ELF */
	int fd, sfd;
	Elf *elf, *selfp;   /* the debug file; the symbols file if another */
	struct elfsym *syms;
	size_t nsyms;
	struct filesym *filesyms;
	size_t nfilesyms;
	/* DWARF */
	Dwarf_Debug dbg;
	struct cu *cus;
	size_t ncus, capcus;
	struct curange *curanges;
	size_t ncuranges, capcuranges;
	/* map construction scratch */
	struct tnode *tn;
	size_t ntn, captn;
	uint32_t seed;
	/* lookup result */
	struct profev_symframe *out;
	size_t capout;
	int32_t *chain;
	size_t capchain;
};

static int fail(struct profev_symbolizer *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct profev_symbolizer *s, int code, const char *fmt, ...)
{
	va_list ap;
	s->err.code = code;
	s->err.has_offset = 0;
	s->err.offset = 0;
	va_start(ap, fmt);
	vsnprintf(s->err.message, sizeof(s->err.message), fmt, ap);
	va_end(ap);
	return code;
}

static void dwfree(struct profev_symbolizer *s, Dwarf_Error e)
{
	if (e)
		dwarf_dealloc_error(s->dbg, e);
}

static const char *demangle_cached(struct profev_symbolizer *s, const char *name)
{
	char *d = demangle_with(s->demangler, name);
	if (!d)
		return NULL;
	const char *r = arena_strdup(&s->arena, d);
	free(d);
	return r;
}

/* ---------------------------------------------------------------- */
/* ELF symbol table                                                  */
/* ---------------------------------------------------------------- */

static int cmp_sym(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return 0;
}

/* qsort is not stable; LLVM's stable_sort keeps symbol table order among
 * equal (addr, size), and the last of an address wins, so sort on the
 * index as a final key. */
struct symsort {
	struct elfsym sym;
	size_t order;
};

static int cmp_symsort(const void *a, const void *b)
{
	const struct symsort *x = a, *y = b;
	int c = cmp_sym(&x->sym, &y->sym);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int load_symtab(struct profev_symbolizer *s, Elf *elf)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
	}
	/* LLVM uses .dynsym only when there is no .symtab. */
	scn = symtab ? symtab : dynsym;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_entsize == 0)
		return 0;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize;
	struct symsort *tmp = calloc(n ? n : 1, sizeof(*tmp));
	s->filesyms = calloc(n ? n : 1, sizeof(*s->filesyms));
	if (!tmp || !s->filesyms) {
		free(tmp);
		return fail(s, PROFEV_E_NOMEM, "out of memory");
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name)
			name = "";
		unsigned type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE) {
			if (type == STT_FILE)
				s->filesyms[s->nfilesyms++] = (struct filesym){ (uint32_t)i, name };
			continue;
		}
		if (type != STT_NOTYPE && type != STT_FUNC && type != STT_OBJECT &&
		    type != STT_GNU_IFUNC)
			continue;
		if (i == 0)
			continue;
		tmp[m].sym.addr = sym.st_value;
		tmp[m].sym.size = sym.st_size;
		tmp[m].sym.name = name;
		tmp[m].sym.local_idx = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? (uint32_t)i : 0;
		tmp[m].order = m;
		m++;
	}
	qsort(tmp, m, sizeof(*tmp), cmp_symsort);
	s->syms = calloc(m ? m : 1, sizeof(*s->syms));
	if (!s->syms) {
		free(tmp);
		return fail(s, PROFEV_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < m; i++) {
		if (i + 1 < m && tmp[i + 1].sym.addr == tmp[i].sym.addr)
			continue;
		s->syms[s->nsyms++] = tmp[i].sym;
	}
	free(tmp);
	return 0;
}

static struct elfsym *find_sym(struct profev_symbolizer *s, uint64_t addr)
{
	/* upper_bound on (addr, size = max), then one back */
	size_t lo = 0, n = s->nsyms;
	while (n > 0) {
		size_t half = n / 2;
		if (addr < s->syms[lo + half].addr) {
			n = half;
		} else {
			lo += half + 1;
			n -= half + 1;
		}
	}
	if (lo == 0)
		return NULL;
	struct elfsym *e = &s->syms[lo - 1];
	if (e->size != 0 && e->addr + e->size <= addr)
		return NULL;
	return e;
}

/* ---------------------------------------------------------------- */
/* DWARF: attributes and ranges                                      */
/* ---------------------------------------------------------------- */

struct range {
	uint64_t lo, hi;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

static int push_range(struct ranges *r, uint64_t lo, uint64_t hi)
{
	if (grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
		return -1;
	r->v[r->n++] = (struct range){ lo, hi };
	return 0;
}

static int attr_udata(struct profev_symbolizer *s, Dwarf_Attribute a, Dwarf_Unsigned *v)
{
	Dwarf_Error e = NULL;
	int rc = dwarf_formudata(a, v, &e);
	if (rc == DW_DLV_ERROR) {
		dwfree(s, e);
		Dwarf_Signed sv;
		e = NULL;
		rc = dwarf_formsdata(a, &sv, &e);
		dwfree(s, e);
		if (rc == DW_DLV_OK)
			*v = (Dwarf_Unsigned)sv;
	}
	return rc == DW_DLV_OK ? 0 : -1;
}

static int attr_offset(struct profev_symbolizer *s, Dwarf_Attribute a, Dwarf_Unsigned *v)
{
	Dwarf_Half form = 0;
	Dwarf_Error e = NULL;
	if (dwarf_whatform(a, &form, &e) != DW_DLV_OK) {
		dwfree(s, e);
		return -1;
	}
	if (form == DW_FORM_sec_offset) {
		Dwarf_Off off;
		if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK) {
			dwfree(s, e);
			return -1;
		}
		*v = off;
		return 0;
	}
	return attr_udata(s, a, v);
}

/* DW_AT_ranges of die into r; base is the unit's base address (DWARF 4). */
static int read_ranges(struct profev_symbolizer *s, Dwarf_Die die, Dwarf_Attribute a,
		       Dwarf_Half version, uint64_t base, struct ranges *r)
{
	Dwarf_Error e = NULL;
	Dwarf_Half form = 0;
	if (dwarf_whatform(a, &form, &e) != DW_DLV_OK) {
		dwfree(s, e);
		return 0;
	}
	Dwarf_Unsigned val = 0;
	if (form == DW_FORM_rnglistx) {
		if (attr_udata(s, a, &val))
			return 0;
	} else if (attr_offset(s, a, &val)) {
		return 0;
	}
	if (version >= 5) {
		Dwarf_Rnglists_Head head = NULL;
		Dwarf_Unsigned count = 0, global = 0;
		if (dwarf_rnglists_get_rle_head(a, form, val, &head, &count, &global, &e) != DW_DLV_OK) {
			dwfree(s, e);
			return 0;
		}
		int rc = 0;
		for (Dwarf_Unsigned i = 0; i < count; i++) {
			unsigned len = 0, code = 0;
			Dwarf_Unsigned raw1, raw2, c1 = 0, c2 = 0;
			Dwarf_Bool unavail = 0;
			if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2,
							      &unavail, &c1, &c2, &e) != DW_DLV_OK) {
				dwfree(s, e);
				e = NULL;
				break;
			}
			if (unavail || code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
			    code == DW_RLE_base_addressx)
				continue;
			if (push_range(r, c1, c2)) {
				rc = -1;
				break;
			}
		}
		dwarf_dealloc_rnglists_head(head);
		return rc;
	}
	Dwarf_Ranges *rl = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Unsigned bytes = 0;
	Dwarf_Off real = 0;
	if (dwarf_get_ranges_b(s->dbg, val, die, &real, &rl, &n, &bytes, &e) != DW_DLV_OK) {
		dwfree(s, e);
		return 0;
	}
	int rc = 0;
	for (Dwarf_Signed i = 0; i < n; i++) {
		if (rl[i].dwr_type == DW_RANGES_END)
			break;
		if (rl[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
			base = rl[i].dwr_addr2;
			continue;
		}
		if (push_range(r, base + rl[i].dwr_addr1, base + rl[i].dwr_addr2)) {
			rc = -1;
			break;
		}
	}
	dwarf_ranges_dealloc(s->dbg, rl, n);
	return rc;
}

/* What a subroutine or unit DIE says about where it is. */
struct dieinfo {
	int has_low, has_high, high_is_offset;
	uint64_t low, high;
	Dwarf_Attribute ranges;
	Dwarf_Unsigned call_file, call_line, call_col;
	const char *comp_dir;
	int has_stmt;
};

static void read_dieinfo(struct profev_symbolizer *s, Dwarf_Attribute *list, Dwarf_Signed n,
			 struct dieinfo *d)
{
	memset(d, 0, sizeof(*d));
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Half at = 0;
		Dwarf_Error e = NULL;
		if (dwarf_whatattr(list[i], &at, &e) != DW_DLV_OK) {
			dwfree(s, e);
			continue;
		}
		Dwarf_Unsigned u;
		switch (at) {
		case DW_AT_low_pc: {
			Dwarf_Addr addr;
			if (dwarf_formaddr(list[i], &addr, &e) == DW_DLV_OK) {
				d->has_low = 1;
				d->low = addr;
			} else {
				dwfree(s, e);
			}
			break;
		}
		case DW_AT_high_pc: {
			Dwarf_Half form = 0;
			if (dwarf_whatform(list[i], &form, &e) != DW_DLV_OK) {
				dwfree(s, e);
				break;
			}
			if (form == DW_FORM_addr || form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index ||
			    (form >= DW_FORM_addrx1 && form <= DW_FORM_addrx4)) {
				Dwarf_Addr addr;
				if (dwarf_formaddr(list[i], &addr, &e) == DW_DLV_OK) {
					d->has_high = 1;
					d->high = addr;
				} else {
					dwfree(s, e);
				}
			} else if (attr_udata(s, list[i], &u) == 0) {
				d->has_high = 1;
				d->high_is_offset = 1;
				d->high = u;
			}
			break;
		}
		case DW_AT_ranges:
			d->ranges = list[i];
			break;
		case DW_AT_call_file:
			if (attr_udata(s, list[i], &u) == 0)
				d->call_file = u;
			break;
		case DW_AT_call_line:
			if (attr_udata(s, list[i], &u) == 0)
				d->call_line = u;
			break;
		case DW_AT_call_column:
			if (attr_udata(s, list[i], &u) == 0)
				d->call_col = u;
			break;
		case DW_AT_comp_dir: {
			char *str;
			if (dwarf_formstring(list[i], &str, &e) == DW_DLV_OK)
				d->comp_dir = str;
			else
				dwfree(s, e);
			break;
		}
		case DW_AT_stmt_list:
			d->has_stmt = 1;
			break;
		default:
			break;
		}
	}
}

static void free_attrs(struct profev_symbolizer *s, Dwarf_Attribute *list, Dwarf_Signed n)
{
	for (Dwarf_Signed i = 0; i < n; i++)
		dwarf_dealloc_attribute(list[i]);
	dwarf_dealloc(s->dbg, list, DW_DLA_LIST);
}

/* Ranges of a DIE as DWARFDie::getAddressRanges: low/high first, then
 * DW_AT_ranges. */
static int die_ranges(struct profev_symbolizer *s, Dwarf_Die die, const struct dieinfo *d,
		      Dwarf_Half version, uint64_t base, struct ranges *r)
{
	r->n = 0;
	if (d->has_low && d->has_high) {
		uint64_t hi = d->high_is_offset ? d->low + d->high : d->high;
		return push_range(r, d->low, hi);
	}
	if (d->ranges)
		return read_ranges(s, die, d->ranges, version, base, r);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Address map (LLVM's AddrDieMap)                                   */
/* ---------------------------------------------------------------- */

static int32_t tnew(struct profev_symbolizer *s, uint64_t key, uint64_t hi, int32_t sub)
{
	if (grow((void **)&s->tn, &s->captn, s->ntn + 1, sizeof(*s->tn)))
		return -1;
	s->seed = s->seed * 1103515245u + 12345u;
	s->tn[s->ntn] = (struct tnode){ key, hi, sub, s->seed >> 1, -1, -1 };
	return (int32_t)s->ntn++;
}

/* map[key] = (hi, sub); returns the new root or -2 when out of memory. */
static int32_t tset(struct profev_symbolizer *s, int32_t t, uint64_t key, uint64_t hi, int32_t sub)
{
	if (t < 0)
		return tnew(s, key, hi, sub) < 0 ? -2 : (int32_t)s->ntn - 1;
	if (s->tn[t].key == key) {
		s->tn[t].hi = hi;
		s->tn[t].sub = sub;
		return t;
	}
	if (key < s->tn[t].key) {
		int32_t c = tset(s, s->tn[t].l, key, hi, sub);
		if (c == -2)
			return -2;
		s->tn[t].l = c;
		if (s->tn[c].prio > s->tn[t].prio) {
			s->tn[t].l = s->tn[c].r;
			s->tn[c].r = t;
			return c;
		}
	} else {
		int32_t c = tset(s, s->tn[t].r, key, hi, sub);
		if (c == -2)
			return -2;
		s->tn[t].r = c;
		if (s->tn[c].prio > s->tn[t].prio) {
			s->tn[t].r = s->tn[c].l;
			s->tn[c].l = t;
			return c;
		}
	}
	return t;
}

/* Greatest key <= key, -1 if none. */
static int32_t tfloor(struct profev_symbolizer *s, int32_t t, uint64_t key)
{
	int32_t best = -1;
	while (t >= 0) {
		if (s->tn[t].key <= key) {
			best = t;
			t = s->tn[t].r;
		} else {
			t = s->tn[t].l;
		}
	}
	return best;
}

static int map_insert(struct profev_symbolizer *s, int32_t *root, uint64_t lo, uint64_t hi,
		      int32_t sub)
{
	if (lo == hi)
		return 0;
	int32_t b = tfloor(s, *root, lo);
	if (b >= 0 && lo < s->tn[b].hi) {
		uint64_t bkey = s->tn[b].key, bhi = s->tn[b].hi;
		int32_t bsub = s->tn[b].sub;
		if (hi < bhi) {
			*root = tset(s, *root, hi, bhi, bsub);
			if (*root == -2)
				return -1;
		}
		if (lo > bkey) {
			/* the treap may have rotated; find the node again */
			int32_t again = tfloor(s, *root, bkey);
			s->tn[again].hi = lo;
		}
	}
	*root = tset(s, *root, lo, hi, sub);
	return *root == -2 ? -1 : 0;
}

static int map_flatten(struct profev_symbolizer *s, struct cu *cu, int32_t root)
{
	if (root < 0)
		return 0;
	cu->map = malloc(s->ntn * sizeof(*cu->map));
	int32_t *stack = malloc((s->ntn + 1) * sizeof(*stack));
	if (!cu->map || !stack) {
		free(stack);
		return -1;
	}
	size_t sp = 0;
	int32_t t = root;
	while (t >= 0 || sp) {
		while (t >= 0) {
			stack[sp++] = t;
			t = s->tn[t].l;
		}
		t = stack[--sp];
		cu->map[cu->nmap++] = (struct dmap){ s->tn[t].key, s->tn[t].hi, s->tn[t].sub };
		t = s->tn[t].r;
	}
	free(stack);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Loading a compile unit                                            */
/* ---------------------------------------------------------------- */

static int is_leafy(Dwarf_Half tag)
{
	/* tags whose subtrees cannot hold subroutines with code */
	switch (tag) {
	case DW_TAG_formal_parameter: case DW_TAG_variable: case DW_TAG_base_type:
	case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
	case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_typedef:
	case DW_TAG_member: case DW_TAG_enumeration_type: case DW_TAG_enumerator:
	case DW_TAG_subrange_type: case DW_TAG_array_type: case DW_TAG_label:
	case DW_TAG_call_site: case DW_TAG_GNU_call_site: case DW_TAG_call_site_parameter:
	case DW_TAG_GNU_call_site_parameter: case DW_TAG_unspecified_parameters:
	case DW_TAG_subroutine_type: case DW_TAG_template_type_parameter:
	case DW_TAG_template_value_parameter: case DW_TAG_restrict_type:
		return 1;
	default:
		return 0;
	}
}

struct walk {
	struct cu *cu;
	Dwarf_Half version;
	uint64_t base;
	int32_t root;
	struct ranges r;
};

static int walk_die(struct profev_symbolizer *s, struct walk *w, Dwarf_Die die, int32_t parent,
		    int depth)
{
	Dwarf_Error e = NULL;
	Dwarf_Half tag = 0;
	if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
		dwfree(s, e);
		return 0;
	}
	int32_t me = parent;
	if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
		Dwarf_Attribute *list = NULL;
		Dwarf_Signed n = 0;
		struct dieinfo d;
		memset(&d, 0, sizeof(d));
		int rc = dwarf_attrlist(die, &list, &n, &e);
		if (rc == DW_DLV_ERROR)
			dwfree(s, e);
		if (rc == DW_DLV_OK)
			read_dieinfo(s, list, n, &d);
		struct cu *cu = w->cu;
		if (grow((void **)&cu->subs, &cu->capsubs, cu->nsubs + 1, sizeof(*cu->subs))) {
			if (rc == DW_DLV_OK)
				free_attrs(s, list, n);
			return -1;
		}
		me = (int32_t)cu->nsubs++;
		struct sub *sb = &cu->subs[me];
		memset(sb, 0, sizeof(*sb));
		dwarf_dieoffset(die, &sb->off, &e);
		sb->parent = parent;
		sb->subprogram = tag == DW_TAG_subprogram;
		sb->call_file = (uint32_t)d.call_file;
		sb->call_line = (uint32_t)d.call_line;
		sb->call_col = (uint32_t)d.call_col;
		int bad = die_ranges(s, die, &d, w->version, w->base, &w->r);
		if (rc == DW_DLV_OK)
			free_attrs(s, list, n);
		if (bad)
			return -1;
		for (size_t i = 0; i < w->r.n; i++)
			if (map_insert(s, &w->root, w->r.v[i].lo, w->r.v[i].hi, me))
				return -1;
	} else if (is_leafy(tag)) {
		return 0;
	}
	Dwarf_Half has_children = 0;
	dwarf_die_abbrev_children_flag(die, &has_children);
	if (!has_children || depth > 200)
		return 0;
	Dwarf_Die child = NULL;
	if (dwarf_child(die, &child, &e) != DW_DLV_OK) {
		dwfree(s, e);
		return 0;
	}
	while (child) {
		if (walk_die(s, w, child, me, depth + 1)) {
			dwarf_dealloc_die(child);
			return -1;
		}
		Dwarf_Die next = NULL;
		int rc = dwarf_siblingof_b(s->dbg, child, 1, &next, &e);
		dwarf_dealloc_die(child);
		if (rc == DW_DLV_ERROR)
			dwfree(s, e);
		child = rc == DW_DLV_OK ? next : NULL;
	}
	return 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	/* stable, as LLVM's stable_sort */
	return x->first < y->first ? -1 : x->first > y->first;
}

static int load_lines(struct profev_symbolizer *s, struct cu *cu, Dwarf_Die cudie)
{
	Dwarf_Error e = NULL;
	Dwarf_Unsigned version = 0;
	Dwarf_Small count = 0;
	Dwarf_Line_Context ctx = NULL;
	int rc = dwarf_srclines_b(cudie, &version, &count, &ctx, &e);
	if (rc != DW_DLV_OK) {
		dwfree(s, e);
		return 0;
	}
	Dwarf_Line *lines = NULL;
	Dwarf_Signed n = 0;
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) != DW_DLV_OK) {
		dwfree(s, e);
		dwarf_srclines_dealloc_b(ctx);
		return 0;
	}
	cu->has_lines = 1;
	cu->line_version = version;
	cu->rows = malloc((n ? (size_t)n : 1) * sizeof(*cu->rows));
	if (!cu->rows)
		goto nomem;
	size_t seqcap = 0;
	int in_seq = 0;
	uint32_t first = 0;
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Addr addr = 0;
		Dwarf_Unsigned lineno = 0, file = 0, col = 0;
		Dwarf_Bool end = 0;
		dwarf_lineaddr(lines[i], &addr, &e);
		dwarf_lineno(lines[i], &lineno, &e);
		dwarf_line_srcfileno(lines[i], &file, &e);
		dwarf_lineoff_b(lines[i], &col, &e);
		dwarf_lineendsequence(lines[i], &end, &e);
		/* libdwarf 20210528 starts a DWARF 5 sequence with file register
		 * 0 instead of 1. GNU as never selects file 0 itself (its file 0
		 * may differ from file 1), so from GCC a 0 means that default */
		if (version >= 5 && file == 0 && cu->gnu_as)
			file = 1;
		uint32_t idx = (uint32_t)cu->nrows++;
		cu->rows[idx] = (struct row){ addr, (uint32_t)file, (uint32_t)lineno, (uint32_t)col };
		if (!in_seq) {
			in_seq = 1;
			first = idx;
		}
		if (end) {
			in_seq = 0;
			uint64_t lo = cu->rows[first].addr;
			if (lo < addr) {
				if (grow((void **)&cu->seqs, &seqcap, cu->nseqs + 1, sizeof(*cu->seqs)))
					goto nomem;
				cu->seqs[cu->nseqs++] = (struct seq){ lo, addr, first, idx + 1 };
			}
		}
	}
	qsort(cu->seqs, cu->nseqs, sizeof(*cu->seqs), cmp_seq);

	/* file and directory tables, kept raw; paths are joined on demand */
	Dwarf_Signed base = 0, nfiles = 0, endidx = 0;
	if (dwarf_srclines_files_indexes(ctx, &base, &nfiles, &endidx, &e) != DW_DLV_OK) {
		dwfree(s, e);
		e = NULL;
		nfiles = 0;
	}
	cu->file_base = base;
	cu->nfiles = nfiles;
	Dwarf_Signed ndirs = 0;
	if (dwarf_srclines_include_dir_count(ctx, &ndirs, &e) != DW_DLV_OK) {
		dwfree(s, e);
		e = NULL;
		ndirs = 0;
	}
	cu->ndirs = ndirs;
	size_t nf = nfiles > 0 ? (size_t)nfiles : 1, nd = ndirs > 0 ? (size_t)ndirs : 1;
	cu->files = calloc(nf, sizeof(*cu->files));
	cu->file_done = calloc(nf, 1);
	cu->fnames = calloc(nf, sizeof(*cu->fnames));
	cu->fdirs = calloc(nf, sizeof(*cu->fdirs));
	cu->dirs = calloc(nd, sizeof(*cu->dirs));
	if (!cu->files || !cu->file_done || !cu->fnames || !cu->fdirs || !cu->dirs)
		goto nomem;
	for (Dwarf_Signed i = 0; i < nfiles; i++) {
		const char *name = NULL;
		Dwarf_Unsigned dir = 0, mt, len;
		Dwarf_Form_Data16 *md5;
		if (dwarf_srclines_files_data_b(ctx, base + i, &name, &dir, &mt, &len, &md5, &e) != DW_DLV_OK) {
			dwfree(s, e);
			e = NULL;
			continue;
		}
		cu->fnames[i] = name ? arena_strdup(&s->arena, name) : NULL;
		cu->fdirs[i] = dir;
	}
	/* libdwarf numbers include directories as the table does: from 0 in
	 * DWARF 5 (entry 0 is the comp dir), from 1 before */
	Dwarf_Signed dbase = version >= 5 ? 0 : 1;
	for (Dwarf_Signed i = 0; i < ndirs; i++) {
		const char *name = NULL;
		if (dwarf_srclines_include_dir_data(ctx, i + dbase, &name, &e) != DW_DLV_OK) {
			dwfree(s, e);
			e = NULL;
			continue;
		}
		cu->dirs[i] = name ? arena_strdup(&s->arena, name) : NULL;
	}
	dwarf_srclines_dealloc_b(ctx);
	return 0;
nomem:
	dwarf_srclines_dealloc_b(ctx);
	return -1;
}

static int load_cu(struct profev_symbolizer *s, struct cu *cu)
{
	Dwarf_Error e = NULL;
	Dwarf_Die cudie = NULL;
	cu->loaded = -1;
	if (dwarf_offdie_b(s->dbg, cu->die_off, 1, &cudie, &e) != DW_DLV_OK) {
		dwfree(s, e);
		return 0;
	}
	struct walk w;
	memset(&w, 0, sizeof(w));
	w.cu = cu;
	w.root = -1;
	Dwarf_Half off_size = 0;
	dwarf_get_version_of_die(cudie, &w.version, &off_size);
	Dwarf_Addr low = 0;
	if (dwarf_lowpc(cudie, &low, &e) == DW_DLV_OK)
		w.base = low;
	else
		dwfree(s, e);
	Dwarf_Attribute pa = NULL;
	if (dwarf_attr(cudie, DW_AT_producer, &pa, &e) == DW_DLV_OK) {
		char *prod = NULL;
		if (dwarf_formstring(pa, &prod, &e) == DW_DLV_OK)
			cu->gnu_as = strncmp(prod, "GNU ", 4) == 0;
		else
			dwfree(s, e);
		e = NULL;
		dwarf_dealloc_attribute(pa);
	} else {
		dwfree(s, e);
		e = NULL;
	}
	s->ntn = 0;
	int rc = load_lines(s, cu, cudie);
	if (rc == 0)
		rc = walk_die(s, &w, cudie, -1, 0);
	if (rc == 0)
		rc = map_flatten(s, cu, w.root);
	free(w.r.v);
	dwarf_dealloc_die(cudie);
	if (rc)
		return fail(s, PROFEV_E_NOMEM, "out of memory");
	cu->loaded = 1;
	return 0;
}

static int cmp_curange(const void *a, const void *b)
{
	const struct curange *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static int load_units(struct profev_symbolizer *s)
{
	struct ranges r = { 0 };
	for (;;) {
		Dwarf_Error e = NULL;
		Dwarf_Unsigned hlen = 0, typeoff = 0, next = 0;
		Dwarf_Half ver = 0, asz = 0, lsz = 0, xsz = 0, cutype = 0;
		Dwarf_Off abbr = 0;
		Dwarf_Sig8 sig;
		int rc = dwarf_next_cu_header_d(s->dbg, 1, &hlen, &ver, &abbr, &asz, &lsz, &xsz,
						&sig, &typeoff, &next, &cutype, &e);
		if (rc == DW_DLV_NO_ENTRY)
			break;
		if (rc == DW_DLV_ERROR) {
			fail(s, PROFEV_E_CORRUPT, "bad compile unit header: %s", dwarf_errmsg(e));
			dwfree(s, e);
			free(r.v);
			return s->err.code;
		}
		Dwarf_Die cudie = NULL;
		if (dwarf_siblingof_b(s->dbg, NULL, 1, &cudie, &e) != DW_DLV_OK) {
			dwfree(s, e);
			continue;
		}
		if (grow((void **)&s->cus, &s->capcus, s->ncus + 1, sizeof(*s->cus)))
			goto nomem_die;
		struct cu *cu = &s->cus[s->ncus];
		memset(cu, 0, sizeof(*cu));
		dwarf_dieoffset(cudie, &cu->die_off, &e);
		Dwarf_Attribute *list = NULL;
		Dwarf_Signed n = 0;
		struct dieinfo d;
		memset(&d, 0, sizeof(d));
		rc = dwarf_attrlist(cudie, &list, &n, &e);
		if (rc == DW_DLV_ERROR)
			dwfree(s, e);
		if (rc == DW_DLV_OK)
			read_dieinfo(s, list, n, &d);
		if (d.comp_dir)
			cu->comp_dir = arena_strdup(&s->arena, d.comp_dir);
		int bad = die_ranges(s, cudie, &d, ver, d.has_low ? d.low : 0, &r);
		if (rc == DW_DLV_OK)
			free_attrs(s, list, n);
		if (bad)
			goto nomem_die;
		for (size_t i = 0; i < r.n; i++) {
			if (r.v[i].lo >= r.v[i].hi)
				continue;
			if (grow((void **)&s->curanges, &s->capcuranges, s->ncuranges + 1,
				 sizeof(*s->curanges)))
				goto nomem_die;
			s->curanges[s->ncuranges++] = (struct curange){ r.v[i].lo, r.v[i].hi,
									(uint32_t)s->ncus };
		}
		s->ncus++;
		dwarf_dealloc_die(cudie);
		continue;
nomem_die:
		dwarf_dealloc_die(cudie);
		free(r.v);
		return fail(s, PROFEV_E_NOMEM, "out of memory");
	}
	free(r.v);
	qsort(s->curanges, s->ncuranges, sizeof(*s->curanges), cmp_curange);
	return 0;
}

static struct cu *find_cu(struct profev_symbolizer *s, uint64_t addr)
{
	size_t lo = 0, n = s->ncuranges;
	while (n > 0) {
		size_t half = n / 2;
		if (addr < s->curanges[lo + half].lo) {
			n = half;
		} else {
			lo += half + 1;
			n -= half + 1;
		}
	}
	/* ranges rarely overlap (code at 0 from discarded sections); take the
	 * nearest one below that contains the address */
	for (size_t i = lo; i > 0 && lo - i < 4; i--)
		if (addr < s->curanges[i - 1].hi)
			return &s->cus[s->curanges[i - 1].cu];
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Lookups                                                           */
/* ---------------------------------------------------------------- */

static int is_abs(const char *p)
{
	return p && p[0] == '/';
}

/* sys::path::append of one component. */
static void path_append(char *buf, size_t cap, const char *comp)
{
	if (!comp || !*comp)
		return;
	size_t n = strlen(buf);
	if (n && buf[n - 1] == '/') {
		while (*comp == '/')
			comp++;
	} else if (n && comp[0] != '/') {
		if (n + 1 < cap)
			buf[n++] = '/';
		buf[n] = '\0';
	}
	size_t c = strlen(comp);
	if (n + c >= cap)
		c = cap - n - 1;
	memcpy(buf + n, comp, c);
	buf[n + c] = '\0';
}

/* DWARFDebugLine::Prologue::getFileNameByIndex, AbsoluteFilePath. */
static const char *file_name(struct profev_symbolizer *s, struct cu *cu, uint64_t index)
{
	if (!cu->has_lines)
		return NULL;
	int v5 = cu->line_version >= 5;
	if (v5 ? index >= (uint64_t)cu->nfiles : (index == 0 || index > (uint64_t)cu->nfiles))
		return NULL;
	Dwarf_Signed i = (Dwarf_Signed)index - cu->file_base;
	if (i < 0 || i >= cu->nfiles)
		return NULL;
	if (cu->file_done[i])
		return cu->files[i];
	cu->file_done[i] = 1;
	const char *name = cu->fnames[i];
	if (!name)
		return NULL;
	if (is_abs(name)) {
		cu->files[i] = name;
		return name;
	}
	const char *dir = NULL;
	Dwarf_Unsigned di = cu->fdirs[i];
	if (v5) {
		if (di < (Dwarf_Unsigned)cu->ndirs)
			dir = cu->dirs[di];
	} else if (di > 0 && di <= (Dwarf_Unsigned)cu->ndirs) {
		dir = cu->dirs[di - 1];
	}
	char buf[4096];
	buf[0] = '\0';
	if ((!v5 || di != 0) && cu->comp_dir && *cu->comp_dir && !is_abs(dir))
		path_append(buf, sizeof(buf), cu->comp_dir);
	path_append(buf, sizeof(buf), dir);
	path_append(buf, sizeof(buf), name);
	cu->files[i] = arena_strdup(&s->arena, buf);
	return cu->files[i];
}

/* The line row for addr, NULL if no sequence covers it. */
static const struct row *find_row(struct cu *cu, uint64_t addr)
{
	size_t lo = 0, n = cu->nseqs;
	while (n > 0) {
		size_t half = n / 2;
		if (addr < cu->seqs[lo + half].hi) {
			n = half;
		} else {
			lo += half + 1;
			n -= half + 1;
		}
	}
	if (lo == cu->nseqs)
		return NULL;
	const struct seq *sq = &cu->seqs[lo];
	if (!(sq->lo <= addr && addr < sq->hi))
		return NULL;
	size_t first = sq->first + 1;
	n = sq->last - 1 - first;
	while (n > 0) {
		size_t half = n / 2;
		if (addr < cu->rows[first + half].addr) {
			n = half;
		} else {
			first += half + 1;
			n -= half + 1;
		}
	}
	return &cu->rows[first - 1];
}

static int32_t find_sub(struct cu *cu, uint64_t addr)
{
	size_t lo = 0, n = cu->nmap;
	while (n > 0) {
		size_t half = n / 2;
		if (addr < cu->map[lo + half].lo) {
			n = half;
		} else {
			lo += half + 1;
			n -= half + 1;
		}
	}
	if (lo == 0 || addr >= cu->map[lo - 1].hi)
		return -1;
	return cu->map[lo - 1].sub;
}

/* DWARFDie::findRecursively over abstract_origin and specification. */
static const char *find_name_attr(struct profev_symbolizer *s, Dwarf_Off off,
				  const Dwarf_Half *attrs, int nattrs)
{
	Dwarf_Off work[16], seen[16];
	int nwork = 0, nseen = 0;
	work[nwork++] = off;
	seen[nseen++] = off;
	const char *found = NULL;
	while (nwork && !found) {
		Dwarf_Off cur = work[--nwork];
		Dwarf_Die die = NULL;
		Dwarf_Error e = NULL;
		if (dwarf_offdie_b(s->dbg, cur, 1, &die, &e) != DW_DLV_OK) {
			dwfree(s, e);
			continue;
		}
		for (int i = 0; i < nattrs && !found; i++) {
			Dwarf_Attribute a = NULL;
			if (dwarf_attr(die, attrs[i], &a, &e) == DW_DLV_OK) {
				char *str = NULL;
				if (dwarf_formstring(a, &str, &e) == DW_DLV_OK)
					found = str;
				else
					dwfree(s, e);
				e = NULL;
				dwarf_dealloc_attribute(a);
			} else {
				dwfree(s, e);
				e = NULL;
			}
		}
		static const Dwarf_Half follow[2] = { DW_AT_abstract_origin, DW_AT_specification };
		for (int i = 0; i < 2 && !found; i++) {
			Dwarf_Attribute a = NULL;
			if (dwarf_attr(die, follow[i], &a, &e) != DW_DLV_OK) {
				dwfree(s, e);
				e = NULL;
				continue;
			}
			Dwarf_Off ref = 0;
			if (dwarf_global_formref(a, &ref, &e) == DW_DLV_OK) {
				int dup = 0;
				for (int j = 0; j < nseen; j++)
					dup |= seen[j] == ref;
				if (!dup && nseen < 16 && nwork < 16) {
					seen[nseen++] = ref;
					work[nwork++] = ref;
				}
			} else {
				dwfree(s, e);
				e = NULL;
			}
			dwarf_dealloc_attribute(a);
		}
		dwarf_dealloc_die(die);
	}
	return found;
}

static const char *sub_name(struct profev_symbolizer *s, struct sub *sb)
{
	if (sb->named)
		return sb->name;
	sb->named = 1;
	static const Dwarf_Half linkage[2] = { DW_AT_MIPS_linkage_name, DW_AT_linkage_name };
	static const Dwarf_Half plain[1] = { DW_AT_name };
	const char *raw = find_name_attr(s, sb->off, linkage, 2);
	if (!raw)
		raw = find_name_attr(s, sb->off, plain, 1);
	if (raw)
		sb->name = demangle_cached(s, raw);
	return sb->name;
}

/* The STT_FILE symbol before a local symbol names its source file; LLVM
 * reports it for code without line info. */
static const char *file_symbol(struct profev_symbolizer *s, uint32_t idx)
{
	size_t lo = 0, n = s->nfilesyms;
	while (n > 0) {
		size_t half = n / 2;
		if (idx < s->filesyms[lo + half].idx) {
			n = half;
		} else {
			lo += half + 1;
			n -= half + 1;
		}
	}
	return lo && s->filesyms[lo - 1].name[0] ? s->filesyms[lo - 1].name : NULL;
}

static struct profev_symframe *add_frame(struct profev_symbolizer *s, size_t *n)
{
	if (grow((void **)&s->out, &s->capout, *n + 1, sizeof(*s->out)))
		return NULL;
	struct profev_symframe *f = &s->out[(*n)++];
	memset(f, 0, sizeof(*f));
	return f;
}

int profev_symbolizer_lookup(struct profev_symbolizer *s, uint64_t addr,
			     const struct profev_symframe **frames)
{
	size_t n = 0;
	struct cu *cu = s->dbg ? find_cu(s, addr) : NULL;
	*frames = NULL;
	if (cu && cu->loaded == 0 && load_cu(s, cu))
		return s->err.code;
	if (cu && cu->loaded == 1) {
		size_t nchain = 0;
		for (int32_t i = find_sub(cu, addr); i >= 0; i = cu->subs[i].parent) {
			if (grow((void **)&s->chain, &s->capchain, nchain + 1, sizeof(*s->chain)))
				return fail(s, PROFEV_E_NOMEM, "out of memory");
			s->chain[nchain++] = i;
			if (cu->subs[i].subprogram)
				break;
		}
		const struct row *row;
		if (nchain == 0) {
			row = find_row(cu, addr);
			const char *file = row ? file_name(s, cu, row->file) : NULL;
			if (file) {
				struct profev_symframe *f = add_frame(s, &n);
				if (!f)
					return fail(s, PROFEV_E_NOMEM, "out of memory");
				f->file = file;
				f->line = row->line;
				f->column = row->col;
			}
		}
		for (size_t i = 0; i < nchain; i++) {
			struct sub *sb = &cu->subs[s->chain[i]];
			const char *name = sub_name(s, sb);
			struct profev_symframe *f = add_frame(s, &n);
			if (!f)
				return fail(s, PROFEV_E_NOMEM, "out of memory");
			f->function = name;
			if (i == 0) {
				row = find_row(cu, addr);
				const char *file = row ? file_name(s, cu, row->file) : NULL;
				if (file) {
					f->file = file;
					f->line = row->line;
					f->column = row->col;
				}
			} else {
				struct sub *callee = &cu->subs[s->chain[i - 1]];
				f->file = file_name(s, cu, callee->call_file);
				f->line = callee->call_line;
				f->column = callee->call_col;
			}
		}
	}
	if (n == 0 && !add_frame(s, &n))
		return fail(s, PROFEV_E_NOMEM, "out of memory");
	struct elfsym *sym = find_sym(s, addr);
	if (sym) {
		struct profev_symframe *f = &s->out[n - 1];
		if (!sym->demangled)
			sym->demangled = demangle_cached(s, sym->name);
		f->function = sym->demangled;
		if (!f->file && sym->local_idx)
			f->file = file_symbol(s, sym->local_idx);
	}
	int known = 0;
	for (size_t i = 0; i < n; i++)
		known |= s->out[i].function || s->out[i].file || s->out[i].line;
	if (!known)
		return 0;
	*frames = s->out;
	return (int)n;
}

/* ---------------------------------------------------------------- */
/* Open and close                                                    */
/* ---------------------------------------------------------------- */

static int has_section(Elf *elf, const char *want)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (strcmp(name, want) == 0 ||
			     (name[0] == '.' && name[1] == 'z' && strcmp(name + 2, want + 1) == 0)))
			return 1;
	}
	return 0;
}

struct profev_symbolizer *profev_symbolizer_new(const char *path, const char *symbols_path,
						struct profev_error *err)
{
	struct profev_symbolizer *s = calloc(1, sizeof(*s));
	if (!s) {
		if (err) {
			memset(err, 0, sizeof(*err));
			err->code = PROFEV_E_NOMEM;
			snprintf(err->message, sizeof(err->message), "out of memory");
		}
		return NULL;
	}
	s->fd = -1;
	s->sfd = -1;
	s->seed = 2463534242u;
	s->demangler_handle = open_demangler(&s->demangler);
	elf_version(EV_CURRENT);
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		fail(s, PROFEV_E_IO, "unable to open '%s': %s", path, strerror(errno));
		goto out;
	}
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF) {
		fail(s, PROFEV_E_UNSUPPORTED, "'%s': not an ELF file", path);
		goto out;
	}
	if (symbols_path && strcmp(symbols_path, path) != 0) {
		s->sfd = open(symbols_path, O_RDONLY | O_CLOEXEC);
		if (s->sfd < 0) {
			fail(s, PROFEV_E_IO, "unable to open '%s': %s", symbols_path, strerror(errno));
			goto out;
		}
		s->selfp = elf_begin(s->sfd, ELF_C_READ_MMAP, NULL);
		if (!s->selfp || elf_kind(s->selfp) != ELF_K_ELF) {
			fail(s, PROFEV_E_UNSUPPORTED, "'%s': not an ELF file", symbols_path);
			goto out;
		}
	}
	if (load_symtab(s, s->selfp ? s->selfp : s->elf))
		goto out;
	if (has_section(s->elf, ".debug_info")) {
		Dwarf_Error e = NULL;
		int rc = dwarf_init_b(s->fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &s->dbg, &e);
		if (rc == DW_DLV_ERROR) {
			fail(s, PROFEV_E_CORRUPT, "'%s': unreadable DWARF: %s", path, dwarf_errmsg(e));
			dwarf_dealloc_error(NULL, e);
			s->dbg = NULL;
			goto out;
		}
		if (rc == DW_DLV_OK && load_units(s))
			goto out;
	}
	return s;
out:
	if (err)
		*err = s->err;
	profev_symbolizer_free(s);
	return NULL;
}

int profev_symbolizer_has_dwarf(const struct profev_symbolizer *s)
{
	return s->dbg != NULL && s->ncus > 0;
}

const struct profev_error *profev_symbolizer_error(const struct profev_symbolizer *s)
{
	return &s->err;
}

void profev_symbolizer_free(struct profev_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ncus; i++) {
		struct cu *cu = &s->cus[i];
		free(cu->files);
		free(cu->file_done);
		free(cu->fnames);
		free(cu->fdirs);
		free(cu->dirs);
		free(cu->rows);
		free(cu->seqs);
		free(cu->subs);
		free(cu->map);
	}
	free(s->cus);
	free(s->curanges);
	free(s->tn);
	free(s->out);
	free(s->chain);
	free(s->syms);
	free(s->filesyms);
	if (s->dbg)
		dwarf_finish(s->dbg, NULL);
	if (s->selfp)
		elf_end(s->selfp);
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	if (s->demangler_handle)
		dlclose(s->demangler_handle);
	arena_free(&s->arena);
	free(s);
}
