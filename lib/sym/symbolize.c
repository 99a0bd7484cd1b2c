/*
 * symbolize.c - addresses to functions, files and lines: DWARF 2-5 decoded
 * in this file (with libdwarf's dwarf.h constants; see "Sequential DWARF
 * scanning" for why not libdwarf itself), ELF symbols through libelf.
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
#include <stddef.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
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

/* ---------------------------------------------------------------- */
/* Sequential DWARF scanning                                         */
/* ---------------------------------------------------------------- */

/*
 * DWARF is decoded here straight from the section bytes. libdwarf
 * (20210528, Debian 12) was tried first: it allocates per DIE, attribute
 * and line row, which made pfsym three times slower than llvm-symbolizer,
 * and it double-frees on a damaged .debug_rnglists (t_symbolize's damage
 * test), so a bad debug file would crash pfsym. The decoder below reads
 * DWARF 2 to 5 (unit headers, abbreviations, every form, range lists, line
 * programs), bounds-checks every read and gives up on a unit it cannot
 * read. Its constants come from libdwarf's dwarf.h.
 */

struct cur {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t rd_u(struct cur *c, unsigned n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t rd_uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return v;
}

static int64_t rd_sleb(struct cur *c)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;
	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= (int64_t)(~(uint64_t)0 << shift);
			return v;
		}
	}
	c->bad = 1;
	return v;
}

static const char *rd_cstr(struct cur *c)
{
	const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!z) {
		c->bad = 1;
		c->p = c->end;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p = z + 1;
	return s;
}

static void skip(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
	} else {
		c->p += n;
	}
}

struct sect {
	const uint8_t *p;
	size_t n;
};

/* What a unit header and its root DIE say, for reading its DIEs. */
struct unitctx {
	unsigned version, offsize, addrsize;
	uint64_t addr_base, rnglists_base, str_offsets_base, base;
};

struct abbrev {
	uint16_t tag;
	uint8_t children;
	uint32_t first, n;      /* specs[first .. first + n) */
	int32_t fixed;          /* bytes of all attributes if fixed, else -1 */
};

struct spec {
	uint16_t attr, form;
	int64_t implicit;
};

struct abbrevs {
	struct abbrev *v;       /* by code */
	size_t n, cap;
	struct spec *specs;
	size_t nspecs, capspecs;
};

/* Size of a form's value when it does not depend on the data, else -1. */
static int form_size(unsigned form, const struct unitctx *u)
{
	switch (form) {
	case DW_FORM_addr: return (int)u->addrsize;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1: return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: return 8;
	case DW_FORM_data16: return 16;
	case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt: case DW_FORM_strp_sup:
		return (int)u->offsize;
	case DW_FORM_ref_addr: return u->version <= 2 ? (int)u->addrsize : (int)u->offsize;
	default: return -1;
	}
}

static int parse_abbrevs(struct sect *sec, uint64_t off, const struct unitctx *u, struct abbrevs *a)
{
	a->n = 0;
	a->nspecs = 0;
	if (off >= sec->n)
		return -1;
	struct cur c = { sec->p + off, sec->p + sec->n, 0 };
	for (;;) {
		uint64_t code = rd_uleb(&c);
		if (code == 0 || c.bad)
			break;
		if (code > 1000000)
			return -1;
		if (grow((void **)&a->v, &a->cap, code + 1, sizeof(*a->v)))
			return -1;
		for (size_t i = a->n; i <= code; i++)
			memset(&a->v[i], 0, sizeof(a->v[i]));
		if (a->n <= code)
			a->n = code + 1;
		struct abbrev *ab = &a->v[code];
		ab->tag = (uint16_t)rd_uleb(&c);
		ab->children = (uint8_t)rd_u(&c, 1);
		ab->first = (uint32_t)a->nspecs;
		ab->fixed = 0;
		for (;;) {
			uint64_t at = rd_uleb(&c), form = rd_uleb(&c);
			int64_t imp = 0;
			if (form == DW_FORM_implicit_const)
				imp = rd_sleb(&c);
			if ((at == 0 && form == 0) || c.bad)
				break;
			if (grow((void **)&a->specs, &a->capspecs, a->nspecs + 1, sizeof(*a->specs)))
				return -1;
			a->specs[a->nspecs++] = (struct spec){ (uint16_t)at, (uint16_t)form, imp };
			int sz = form_size((unsigned)form, u);
			if (sz < 0 || ab->fixed < 0)
				ab->fixed = -1;
			else
				ab->fixed += sz;
		}
		ab->n = (uint32_t)(a->nspecs - ab->first);
	}
	return 0;
}

/* One attribute value: numbers and offsets in u, strings in s. */
struct val {
	unsigned form;
	uint64_t u;
	const char *s;
};

static void read_val(struct cur *c, unsigned form, int64_t implicit, const struct unitctx *u,
		     struct val *v)
{
	v->form = form;
	v->s = NULL;
	switch (form) {
	case DW_FORM_addr: v->u = rd_u(c, u->addrsize); break;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1: v->u = rd_u(c, 1); break;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		v->u = rd_u(c, 2); break;
	case DW_FORM_strx3: case DW_FORM_addrx3: v->u = rd_u(c, 3); break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
		v->u = rd_u(c, 4); break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: v->u = rd_u(c, 8); break;
	case DW_FORM_data16: skip(c, 16); v->u = 0; break;
	case DW_FORM_sdata: v->u = (uint64_t)rd_sleb(c); break;
	case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index: case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
		v->u = rd_uleb(c); break;
	case DW_FORM_flag_present: v->u = 1; break;
	case DW_FORM_implicit_const: v->u = (uint64_t)implicit; break;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt: case DW_FORM_strp_sup:
		v->u = rd_u(c, u->offsize); break;
	case DW_FORM_ref_addr: v->u = rd_u(c, u->version <= 2 ? u->addrsize : u->offsize); break;
	case DW_FORM_string: v->s = rd_cstr(c); v->u = 0; break;
	case DW_FORM_block1: skip(c, rd_u(c, 1)); v->u = 0; break;
	case DW_FORM_block2: skip(c, rd_u(c, 2)); v->u = 0; break;
	case DW_FORM_block4: skip(c, rd_u(c, 4)); v->u = 0; break;
	case DW_FORM_block: case DW_FORM_exprloc: skip(c, rd_uleb(c)); v->u = 0; break;
	case DW_FORM_indirect: {
		unsigned f = (unsigned)rd_uleb(c);
		if (f == DW_FORM_indirect) {
			c->bad = 1;
			return;
		}
		read_val(c, f, implicit, u, v);
		break;
	}
	default:
		c->bad = 1; /* unknown form: the rest of the unit cannot be read */
		break;
	}
}

static int is_addrx(unsigned form)
{
	return form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index ||
	       (form >= DW_FORM_addrx1 && form <= DW_FORM_addrx4);
}

static int is_strx(unsigned form)
{
	return form == DW_FORM_strx || form == DW_FORM_GNU_str_index ||
	       (form >= DW_FORM_strx1 && form <= DW_FORM_strx4);
}

struct dwsects {
	struct sect info, abbrev, line, line_str, str, rnglists, ranges, addr, str_offsets;
};

static uint64_t val_addr(const struct dwsects *d, const struct unitctx *u, const struct val *v)
{
	if (!is_addrx(v->form))
		return v->u;
	uint64_t off = u->addr_base + v->u * u->addrsize;
	if (off + u->addrsize > d->addr.n)
		return 0;
	struct cur c = { d->addr.p + off, d->addr.p + d->addr.n, 0 };
	return rd_u(&c, u->addrsize);
}

static const char *val_str(const struct dwsects *d, const struct unitctx *u, const struct val *v)
{
	uint64_t off = v->u;
	const struct sect *sec = &d->str;
	switch (v->form) {
	case DW_FORM_string:
		return v->s;
	case DW_FORM_line_strp:
		sec = &d->line_str;
		break;
	case DW_FORM_strp:
		break;
	default:
		if (!is_strx(v->form))
			return NULL;
		uint64_t at = u->str_offsets_base + v->u * u->offsize;
		if (at + u->offsize > d->str_offsets.n)
			return NULL;
		struct cur c = { d->str_offsets.p + at, d->str_offsets.p + d->str_offsets.n, 0 };
		off = rd_u(&c, u->offsize);
	}
	if (off >= sec->n || !memchr(sec->p + off, 0, sec->n - off))
		return NULL;
	return (const char *)sec->p + off;
}

/* DW_AT_ranges: DWARF 5 range lists or DWARF 2-4 .debug_ranges. */
static int read_ranges(const struct dwsects *d, const struct unitctx *u, const struct val *v,
		       struct ranges *r)
{
	uint64_t base = u->base;
	if (u->version >= 5) {
		uint64_t off = v->u;
		if (v->form == DW_FORM_rnglistx) {
			uint64_t at = u->rnglists_base + v->u * u->offsize;
			if (at + u->offsize > d->rnglists.n)
				return 0;
			struct cur c = { d->rnglists.p + at, d->rnglists.p + d->rnglists.n, 0 };
			off = u->rnglists_base + rd_u(&c, u->offsize);
		}
		if (off >= d->rnglists.n)
			return 0;
		struct cur c = { d->rnglists.p + off, d->rnglists.p + d->rnglists.n, 0 };
		while (!c.bad) {
			unsigned kind = (unsigned)rd_u(&c, 1);
			uint64_t a, b;
			struct val x = { DW_FORM_addrx, 0, NULL };
			switch (kind) {
			case DW_RLE_end_of_list:
				return 0;
			case DW_RLE_base_addressx:
				x.u = rd_uleb(&c);
				base = val_addr(d, u, &x);
				break;
			case DW_RLE_startx_endx:
				x.u = rd_uleb(&c);
				a = val_addr(d, u, &x);
				x.u = rd_uleb(&c);
				b = val_addr(d, u, &x);
				if (push_range(r, a, b))
					return -1;
				break;
			case DW_RLE_startx_length:
				x.u = rd_uleb(&c);
				a = val_addr(d, u, &x);
				b = a + rd_uleb(&c);
				if (push_range(r, a, b))
					return -1;
				break;
			case DW_RLE_offset_pair:
				a = rd_uleb(&c);
				b = rd_uleb(&c);
				if (push_range(r, base + a, base + b))
					return -1;
				break;
			case DW_RLE_base_address:
				base = rd_u(&c, u->addrsize);
				break;
			case DW_RLE_start_end:
				a = rd_u(&c, u->addrsize);
				b = rd_u(&c, u->addrsize);
				if (push_range(r, a, b))
					return -1;
				break;
			case DW_RLE_start_length:
				a = rd_u(&c, u->addrsize);
				b = a + rd_uleb(&c);
				if (push_range(r, a, b))
					return -1;
				break;
			default:
				return 0;
			}
		}
		return 0;
	}
	if (v->u >= d->ranges.n)
		return 0;
	struct cur c = { d->ranges.p + v->u, d->ranges.p + d->ranges.n, 0 };
	uint64_t maxaddr = u->addrsize == 4 ? 0xffffffffull : ~0ull;
	while (!c.bad) {
		uint64_t a = rd_u(&c, u->addrsize), b = rd_u(&c, u->addrsize);
		if (c.bad || (a == 0 && b == 0))
			break;
		if (a == maxaddr) {
			base = b;
			continue;
		}
		if (push_range(r, base + a, base + b))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Data                                                              */
/* ---------------------------------------------------------------- */

/* As LLVM's DWARFDebugLine::Row, whose file and column are 16 bits. */
struct row {
	uint64_t addr;
	uint32_t line;
	uint16_t file, col;
};

struct seq {
	uint64_t lo, hi;
	uint32_t first, last; /* rows [first, last), the end row is last - 1 */
};

struct sub {
	uint64_t off;         /* .debug_info offset of the DIE */
	int32_t parent;       /* nearest enclosing subroutine, -1 at top */
	uint32_t call_file, call_line, call_col;
	uint8_t subprogram;   /* else inlined_subroutine */
	uint8_t named;        /* name below computed */
	uint8_t via_origin;   /* named only through one abstract_origin or
	                         specification: origin, shared by many */
	uint64_t origin;      /* .debug_info offset of that DIE */
	const char *name;     /* demangled, NULL if none */
};

/* One entry of the flattened address map: [lo, hi) -> sub. */
struct dmap {
	uint64_t lo, hi;
	int32_t sub;
};

/* Splay tree node of the map under construction. */
struct tnode {
	uint64_t key, hi;
	int32_t sub;
	int32_t l, r;
};

struct cu {
	struct unitctx u;
	uint64_t unit_off;    /* unit header, base of CU-relative references */
	uint64_t die_off;     /* root DIE, in .debug_info */
	uint64_t abbrev_off, first_child, unit_end, stmt_off;
	int root_children, has_stmt;
	const char *comp_dir;
	int loaded;           /* 0 not yet, 1 loaded, -1 failed */
	int has_lines;
	unsigned line_version;
	const char **files;   /* resolved paths by index - file_base, NULL = not yet */
	uint8_t *file_done;
	int64_t file_base, nfiles;
	const char **fnames;  /* raw file entry name and directory */
	uint64_t *fdirs;
	const char **dirs;
	int64_t ndirs;
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

struct namecache {
	uint64_t off;
	const char *name;
	int used;
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
	struct dwsects dw;
	struct abbrevs ab;
	uint64_t ab_off;      /* abbrev offset + 1 that ab holds, 0 = none */
	int32_t *stack;
	size_t capstack;
	struct namecache *names;   /* by abstract origin, see sub_name() */
	size_t nnames, capnames;
	struct cu *cus;
	size_t ncus, capcus;
	struct curange *curanges;
	size_t ncuranges, capcuranges;
	/* map construction scratch */
	struct tnode *tn;
	size_t ntn, captn;
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

/* ---------------------------------------------------------------- */
/* Address map (LLVM's AddrDieMap)                                   */
/* ---------------------------------------------------------------- */

/*
 * The map under construction is a splay tree: DIEs come in preorder, so
 * each insertion lands next to the previous one, and a splay tree makes
 * such nearby accesses cheap (a treap here cost half the run time).
 */
static int32_t splay(struct tnode *T, int32_t t, uint64_t key)
{
	if (t < 0)
		return t;
	int32_t lroot = -1, rroot = -1;
	int32_t *lhook = &lroot, *rhook = &rroot;
	for (;;) {
		if (key < T[t].key) {
			int32_t c = T[t].l;
			if (c < 0)
				break;
			if (key < T[c].key) {
				T[t].l = T[c].r;
				T[c].r = t;
				t = c;
				if (T[t].l < 0)
					break;
			}
			*rhook = t;
			rhook = &T[t].l;
			t = T[t].l;
		} else if (key > T[t].key) {
			int32_t c = T[t].r;
			if (c < 0)
				break;
			if (key > T[c].key) {
				T[t].r = T[c].l;
				T[c].l = t;
				t = c;
				if (T[t].r < 0)
					break;
			}
			*lhook = t;
			lhook = &T[t].r;
			t = T[t].r;
		} else {
			break;
		}
	}
	*lhook = T[t].l;
	*rhook = T[t].r;
	T[t].l = lroot;
	T[t].r = rroot;
	return t;
}

/* map[key] = (hi, sub); -1 when out of memory. */
static int tset(struct profev_symbolizer *s, int32_t *root, uint64_t key, uint64_t hi, int32_t sub)
{
	int32_t t = splay(s->tn, *root, key);
	if (t >= 0 && s->tn[t].key == key) {
		s->tn[t].hi = hi;
		s->tn[t].sub = sub;
		*root = t;
		return 0;
	}
	if (grow((void **)&s->tn, &s->captn, s->ntn + 1, sizeof(*s->tn)))
		return -1;
	int32_t n = (int32_t)s->ntn++;
	struct tnode *T = s->tn;
	T[n] = (struct tnode){ key, hi, sub, -1, -1 };
	if (t >= 0) {
		if (key < T[t].key) {
			T[n].l = T[t].l;
			T[n].r = t;
			T[t].l = -1;
		} else {
			T[n].r = T[t].r;
			T[n].l = t;
			T[t].r = -1;
		}
	}
	*root = n;
	return 0;
}

/* Greatest key <= key, -1 if none. */
static int32_t tfloor(struct profev_symbolizer *s, int32_t *root, uint64_t key)
{
	int32_t t = splay(s->tn, *root, key);
	*root = t;
	if (t < 0 || s->tn[t].key <= key)
		return t;
	/* the root is the successor: the floor is the left subtree's maximum */
	int32_t l = splay(s->tn, s->tn[t].l, key);
	s->tn[t].l = l;
	return l;
}

static int map_insert(struct profev_symbolizer *s, int32_t *root, uint64_t lo, uint64_t hi,
		      int32_t sub)
{
	if (lo == hi)
		return 0;
	int32_t b = tfloor(s, root, lo);
	if (b >= 0 && lo < s->tn[b].hi) {
		uint64_t bhi = s->tn[b].hi;
		int32_t bsub = s->tn[b].sub;
		if (hi < bhi && tset(s, root, hi, bhi, bsub))
			return -1;
		/* splaying moves links, never a node's slot: b is still b */
		if (lo > s->tn[b].key)
			s->tn[b].hi = lo;
	}
	return tset(s, root, lo, hi, sub);
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

static int cmp_seq(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	/* stable, as LLVM's stable_sort */
	return x->first < y->first ? -1 : x->first > y->first;
}

/* One entry of a DWARF 5 directory or file table. */
static void read_entry(struct cur *c, const uint64_t (*fmt)[2], unsigned nfmt,
		       const struct dwsects *d, const struct unitctx *u, const char **path,
		       uint64_t *dir)
{
	*path = NULL;
	*dir = 0;
	for (unsigned k = 0; k < nfmt; k++) {
		struct val v;
		read_val(c, (unsigned)fmt[k][1], 0, u, &v);
		if (fmt[k][0] == DW_LNCT_path)
			*path = val_str(d, u, &v);
		else if (fmt[k][0] == DW_LNCT_directory_index)
			*dir = v.u;
	}
}

static int read_formats(struct cur *c, uint64_t (*fmt)[2], unsigned *n)
{
	*n = (unsigned)rd_u(c, 1);
	if (*n > 16)
		return -1;
	for (unsigned k = 0; k < *n; k++) {
		fmt[k][0] = rd_uleb(c);
		fmt[k][1] = rd_uleb(c);
	}
	return c->bad ? -1 : 0;
}

/* The unit's line program: header tables and every row. */
static int load_lines(struct profev_symbolizer *s, struct cu *cu)
{
	const struct dwsects *d = &s->dw;
	if (!cu->has_stmt || cu->stmt_off >= d->line.n)
		return 0;
	struct cur c = { d->line.p + cu->stmt_off, d->line.p + d->line.n, 0 };
	struct unitctx u = cu->u;
	u.offsize = 4;
	uint64_t len = rd_u(&c, 4);
	if (len == 0xffffffffu) {
		len = rd_u(&c, 8);
		u.offsize = 8;
	}
	if (c.bad || len > (uint64_t)(c.end - c.p))
		return 0;
	c.end = c.p + len;
	u.version = (unsigned)rd_u(&c, 2);
	if (u.version < 2 || u.version > 5)
		return 0;
	if (u.version >= 5) {
		u.addrsize = (unsigned)rd_u(&c, 1);
		rd_u(&c, 1); /* segment selector size */
	}
	uint64_t hlen = rd_u(&c, u.offsize);
	if (c.bad || hlen > (uint64_t)(c.end - c.p))
		return 0;
	const uint8_t *prog = c.p + hlen;
	unsigned min_inst = (unsigned)rd_u(&c, 1);
	if (u.version >= 4)
		rd_u(&c, 1); /* maximum operations per instruction: VLIW only */
	int default_stmt = (int)rd_u(&c, 1);
	(void)default_stmt;
	int line_base = (int8_t)rd_u(&c, 1);
	unsigned line_range = (unsigned)rd_u(&c, 1);
	unsigned opcode_base = (unsigned)rd_u(&c, 1);
	uint8_t std_len[256] = { 0 };
	for (unsigned k = 1; k < opcode_base; k++)
		std_len[k] = (uint8_t)rd_u(&c, 1);
	if (c.bad || line_range == 0)
		return 0;

	size_t capf = 0, capd = 0;
	cu->line_version = u.version;
	if (u.version >= 5) {
		uint64_t fmt[16][2];
		unsigned nfmt;
		if (read_formats(&c, fmt, &nfmt))
			return 0;
		uint64_t nd = rd_uleb(&c);
		for (uint64_t k = 0; k < nd && !c.bad; k++) {
			const char *path;
			uint64_t dir;
			read_entry(&c, (const uint64_t (*)[2])fmt, nfmt, d, &u, &path, &dir);
			if (grow((void **)&cu->dirs, &capd, (size_t)cu->ndirs + 1, sizeof(*cu->dirs)))
				return -1;
			cu->dirs[cu->ndirs++] = path;
		}
		if (read_formats(&c, fmt, &nfmt))
			return 0;
		uint64_t nf = rd_uleb(&c);
		for (uint64_t k = 0; k < nf && !c.bad; k++) {
			const char *path;
			uint64_t dir;
			read_entry(&c, (const uint64_t (*)[2])fmt, nfmt, d, &u, &path, &dir);
			if (grow((void **)&cu->fnames, &capf, (size_t)cu->nfiles + 1, sizeof(*cu->fnames)) ||
			    grow((void **)&cu->fdirs, &capd, 0, sizeof(*cu->fdirs)))
				return -1;
			size_t capfd = (size_t)cu->nfiles;
			if (grow((void **)&cu->fdirs, &capfd, (size_t)cu->nfiles + 1, sizeof(*cu->fdirs)))
				return -1;
			cu->fnames[cu->nfiles] = path;
			cu->fdirs[cu->nfiles++] = dir;
		}
		cu->file_base = 0;
	} else {
		for (;;) {
			const char *dir = rd_cstr(&c);
			if (!dir || !*dir)
				break;
			if (grow((void **)&cu->dirs, &capd, (size_t)cu->ndirs + 1, sizeof(*cu->dirs)))
				return -1;
			cu->dirs[cu->ndirs++] = dir;
		}
		for (;;) {
			const char *name = rd_cstr(&c);
			if (!name || !*name)
				break;
			uint64_t dir = rd_uleb(&c);
			rd_uleb(&c);
			rd_uleb(&c);
			size_t capfd = (size_t)cu->nfiles;
			if (grow((void **)&cu->fnames, &capf, (size_t)cu->nfiles + 1, sizeof(*cu->fnames)) ||
			    grow((void **)&cu->fdirs, &capfd, (size_t)cu->nfiles + 1, sizeof(*cu->fdirs)))
				return -1;
			cu->fnames[cu->nfiles] = name;
			cu->fdirs[cu->nfiles++] = dir;
		}
		cu->file_base = 1;
	}
	size_t nf = cu->nfiles ? (size_t)cu->nfiles : 1;
	cu->files = calloc(nf, sizeof(*cu->files));
	cu->file_done = calloc(nf, 1);
	if (!cu->files || !cu->file_done)
		return -1;
	cu->has_lines = 1;

	/* the line number program */
	c.p = prog;
	/* every row takes at least one opcode byte: reserve that bound once
	 * (pages never written are never faulted in) and trim at the end,
	 * rather than copying the rows over and over while they grow */
	size_t caprows = (size_t)(c.end - prog) + 1, capseq = 0;
	cu->rows = malloc(caprows * sizeof(*cu->rows));
	if (!cu->rows)
		return -1;
	uint64_t addr = 0, file = 1, line = 1, col = 0;
	uint32_t first = 0;
	int in_seq = 0;
	while (c.p < c.end && !c.bad) {
		unsigned op = (unsigned)rd_u(&c, 1);
		int emit = 0, end = 0;
		if (op >= opcode_base) {
			unsigned adj = op - opcode_base;
			addr += (uint64_t)(adj / line_range) * min_inst;
			line += (uint64_t)(int64_t)(line_base + (int)(adj % line_range));
			emit = 1;
		} else if (op == 0) {
			uint64_t elen = rd_uleb(&c);
			if (elen == 0 || elen > (uint64_t)(c.end - c.p))
				break;
			const uint8_t *next = c.p + elen;
			unsigned sub = (unsigned)rd_u(&c, 1);
			if (sub == DW_LNE_end_sequence)
				emit = end = 1;
			else if (sub == DW_LNE_set_address)
				addr = rd_u(&c, (unsigned)(elen - 1) <= 8 ? (unsigned)(elen - 1) : 8);
			c.p = next;
		} else {
			switch (op) {
			case DW_LNS_copy: emit = 1; break;
			case DW_LNS_advance_pc: addr += rd_uleb(&c) * min_inst; break;
			case DW_LNS_advance_line: line += (uint64_t)rd_sleb(&c); break;
			case DW_LNS_set_file: file = rd_uleb(&c); break;
			case DW_LNS_set_column: col = rd_uleb(&c); break;
			case DW_LNS_const_add_pc:
				addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst;
				break;
			case DW_LNS_fixed_advance_pc: addr += rd_u(&c, 2); break;
			default:
				for (unsigned k = 0; k < std_len[op]; k++)
					rd_uleb(&c);
				break;
			}
		}
		if (!emit)
			continue;
		if (grow((void **)&cu->rows, &caprows, cu->nrows + 1, sizeof(*cu->rows)))
			return -1;
		uint32_t idx = (uint32_t)cu->nrows++;
		cu->rows[idx] = (struct row){ addr, (uint32_t)line, (uint16_t)file, (uint16_t)col };
		if (!in_seq) {
			in_seq = 1;
			first = idx;
		}
		if (end) {
			in_seq = 0;
			uint64_t lo = cu->rows[first].addr;
			if (lo < addr) {
				if (grow((void **)&cu->seqs, &capseq, cu->nseqs + 1, sizeof(*cu->seqs)))
					return -1;
				cu->seqs[cu->nseqs++] = (struct seq){ lo, addr, first, idx + 1 };
			}
			addr = 0;
			file = 1;
			line = 1;
			col = 0;
		}
	}
	if (cu->nseqs > 1)
		qsort(cu->seqs, cu->nseqs, sizeof(*cu->seqs), cmp_seq);
	struct row *fit = realloc(cu->rows, (cu->nrows ? cu->nrows : 1) * sizeof(*cu->rows));
	if (fit)
		cu->rows = fit;
	return 0;
}

/* Every subprogram and inlined_subroutine of the unit into the map. */
static int load_dies(struct profev_symbolizer *s, struct cu *cu)
{
	const struct dwsects *d = &s->dw;
	struct abbrevs *ab = &s->ab;
	s->ab_off = 0;
	if (parse_abbrevs(&s->dw.abbrev, cu->abbrev_off, &cu->u, ab))
		return 0;
	s->ab_off = cu->abbrev_off + 1;
	struct cur c = { d->info.p + cu->first_child, d->info.p + cu->unit_end, 0 };
	int32_t root = -1;
	size_t depth = 0;
	struct ranges r = { 0 };
	s->ntn = 0;
	int rc = 0;
	if (!cu->root_children)
		c.p = c.end;
	/* at most one subroutine per byte of the unit; reserved, then trimmed
	 * (see load_lines) */
	cu->capsubs = (size_t)(c.end - c.p) / 2 + 1;
	cu->subs = malloc(cu->capsubs * sizeof(*cu->subs));
	if (!cu->subs)
		return -1;
	while (c.p < c.end && !c.bad) {
		uint64_t off = (uint64_t)(c.p - d->info.p);
		uint64_t code = rd_uleb(&c);
		if (code == 0) {
			if (depth == 0)
				break;
			depth--;
			continue;
		}
		if (code >= ab->n || !ab->v[code].tag)
			break; /* malformed: keep what was read */
		const struct abbrev *a = &ab->v[code];
		int32_t parent = depth ? s->stack[depth - 1] : -1, me = parent;
		if (a->tag == DW_TAG_subprogram || a->tag == DW_TAG_inlined_subroutine) {
			struct val low = { 0 }, high = { 0 }, rng = { 0 };
			int has_low = 0, has_high = 0, has_rng = 0;
			uint64_t cf = 0, cl = 0, cc = 0, ref = 0;
			int nrefs = 0, named = 0;
			for (uint32_t k = 0; k < a->n; k++) {
				const struct spec *sp = &ab->specs[a->first + k];
				struct val v;
				read_val(&c, sp->form, sp->implicit, &cu->u, &v);
				switch (sp->attr) {
				case DW_AT_low_pc: low = v; has_low = 1; break;
				case DW_AT_high_pc: high = v; has_high = 1; break;
				case DW_AT_ranges: rng = v; has_rng = 1; break;
				case DW_AT_call_file: cf = v.u; break;
				case DW_AT_call_line: cl = v.u; break;
				case DW_AT_call_column: cc = v.u; break;
				case DW_AT_name: case DW_AT_linkage_name: case DW_AT_MIPS_linkage_name:
					named = 1;
					break;
				case DW_AT_abstract_origin: case DW_AT_specification:
					nrefs++;
					if (v.form == DW_FORM_ref_addr)
						ref = v.u;
					else if (v.form == DW_FORM_GNU_ref_alt || v.form == DW_FORM_ref_sig8)
						nrefs = 99; /* another file: not followed */
					else
						ref = cu->unit_off + v.u;
					break;
				default: break;
				}
			}
			if (grow((void **)&cu->subs, &cu->capsubs, cu->nsubs + 1, sizeof(*cu->subs))) {
				rc = -1;
				break;
			}
			me = (int32_t)cu->nsubs++;
			struct sub *sb = &cu->subs[me];
			memset(sb, 0, sizeof(*sb));
			sb->off = off;
			sb->parent = parent;
			sb->subprogram = a->tag == DW_TAG_subprogram;
			sb->call_file = (uint32_t)cf;
			sb->call_line = (uint32_t)cl;
			sb->call_col = (uint32_t)cc;
			if (!named && nrefs == 1) {
				sb->via_origin = 1;
				sb->origin = ref;
			}
			/* DWARFDie::getAddressRanges: low/high first, then ranges */
			r.n = 0;
			if (has_low && has_high) {
				uint64_t lo = val_addr(d, &cu->u, &low);
				int is_addr = high.form == DW_FORM_addr || is_addrx(high.form);
				uint64_t hi = is_addr ? val_addr(d, &cu->u, &high) : lo + high.u;
				rc = push_range(&r, lo, hi);
			} else if (has_rng) {
				rc = read_ranges(d, &cu->u, &rng, &r);
			}
			for (size_t k = 0; k < r.n && !rc; k++)
				rc = map_insert(s, &root, r.v[k].lo, r.v[k].hi, me);
			if (rc)
				break;
		} else if (a->fixed >= 0) {
			skip(&c, (uint64_t)a->fixed);
		} else {
			for (uint32_t k = 0; k < a->n; k++) {
				struct val v;
				read_val(&c, ab->specs[a->first + k].form, 0, &cu->u, &v);
			}
		}
		if (a->children) {
			if (grow((void **)&s->stack, &s->capstack, depth + 1, sizeof(*s->stack))) {
				rc = -1;
				break;
			}
			s->stack[depth++] = me;
		}
	}
	free(r.v);
	struct sub *fit = realloc(cu->subs, (cu->nsubs ? cu->nsubs : 1) * sizeof(*cu->subs));
	if (fit) {
		cu->subs = fit;
		cu->capsubs = cu->nsubs ? cu->nsubs : 1;
	}
	if (rc == 0)
		rc = map_flatten(s, cu, root);
	return rc;
}

static int load_cu(struct profev_symbolizer *s, struct cu *cu)
{
	cu->loaded = -1;
	int rc = load_lines(s, cu);
	if (rc == 0)
		rc = load_dies(s, cu);
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

/* The unit headers and root DIEs: where each unit's code is. */
static int load_units(struct profev_symbolizer *s)
{
	const struct dwsects *d = &s->dw;
	struct ranges r = { 0 };
	uint64_t off = 0;
	while (off + 11 <= d->info.n) {
		struct cur c = { d->info.p + off, d->info.p + d->info.n, 0 };
		struct unitctx u;
		memset(&u, 0, sizeof(u));
		u.offsize = 4;
		uint64_t len = rd_u(&c, 4);
		if (len == 0xffffffffu) {
			len = rd_u(&c, 8);
			u.offsize = 8;
		}
		if (c.bad || len > (uint64_t)(c.end - c.p))
			break;
		uint64_t unit_off = off;
		uint64_t next = (uint64_t)(c.p - d->info.p) + len;
		c.end = c.p + len;
		u.version = (unsigned)rd_u(&c, 2);
		unsigned type = DW_UT_compile;
		uint64_t abbr;
		if (u.version >= 5) {
			type = (unsigned)rd_u(&c, 1);
			u.addrsize = (unsigned)rd_u(&c, 1);
			abbr = rd_u(&c, u.offsize);
			if (type == DW_UT_skeleton || type == DW_UT_split_compile)
				skip(&c, 8);
			else if (type == DW_UT_type || type == DW_UT_split_type)
				skip(&c, 8 + u.offsize);
		} else {
			abbr = rd_u(&c, u.offsize);
			u.addrsize = (unsigned)rd_u(&c, 1);
		}
		off = next;
		if (c.bad || u.version < 2 || u.version > 5 || (u.addrsize != 4 && u.addrsize != 8) ||
		    (type != DW_UT_compile && type != DW_UT_partial))
			continue;
		s->ab_off = 0;
		if (parse_abbrevs(&s->dw.abbrev, abbr, &u, &s->ab))
			continue;
		uint64_t die_off = (uint64_t)(c.p - d->info.p);
		uint64_t code = rd_uleb(&c);
		if (code == 0 || code >= s->ab.n || !s->ab.v[code].tag)
			continue;
		const struct abbrev *a = &s->ab.v[code];
		struct val low = { 0 }, high = { 0 }, rng = { 0 }, dir = { 0 };
		int has_low = 0, has_high = 0, has_rng = 0, has_dir = 0, has_stmt = 0;
		uint64_t stmt = 0;
		for (uint32_t k = 0; k < a->n; k++) {
			const struct spec *sp = &s->ab.specs[a->first + k];
			struct val v;
			read_val(&c, sp->form, sp->implicit, &u, &v);
			switch (sp->attr) {
			case DW_AT_low_pc: low = v; has_low = 1; break;
			case DW_AT_high_pc: high = v; has_high = 1; break;
			case DW_AT_ranges: rng = v; has_rng = 1; break;
			case DW_AT_comp_dir: dir = v; has_dir = 1; break;
			case DW_AT_stmt_list: stmt = v.u; has_stmt = 1; break;
			case DW_AT_addr_base: u.addr_base = v.u; break;
			case DW_AT_rnglists_base: u.rnglists_base = v.u; break;
			case DW_AT_str_offsets_base: u.str_offsets_base = v.u; break;
			default: break;
			}
		}
		if (c.bad)
			continue;
		if (grow((void **)&s->cus, &s->capcus, s->ncus + 1, sizeof(*s->cus)))
			goto nomem;
		struct cu *cu = &s->cus[s->ncus];
		memset(cu, 0, sizeof(*cu));
		if (has_low)
			u.base = val_addr(d, &u, &low);
		cu->u = u;
		cu->die_off = die_off;
		cu->unit_off = unit_off;
		cu->abbrev_off = abbr;
		cu->first_child = (uint64_t)(c.p - d->info.p);
		cu->unit_end = next;
		cu->root_children = a->children;
		cu->has_stmt = has_stmt;
		cu->stmt_off = stmt;
		cu->comp_dir = has_dir ? val_str(d, &u, &dir) : NULL;
		r.n = 0;
		if (has_low && has_high) {
			int is_addr = high.form == DW_FORM_addr || is_addrx(high.form);
			uint64_t hi = is_addr ? val_addr(d, &u, &high) : u.base + high.u;
			if (push_range(&r, u.base, hi))
				goto nomem;
		} else if (has_rng && read_ranges(d, &u, &rng, &r)) {
			goto nomem;
		}
		for (size_t i = 0; i < r.n; i++) {
			if (r.v[i].lo >= r.v[i].hi)
				continue;
			if (grow((void **)&s->curanges, &s->capcuranges, s->ncuranges + 1,
				 sizeof(*s->curanges)))
				goto nomem;
			s->curanges[s->ncuranges++] = (struct curange){ r.v[i].lo, r.v[i].hi,
									(uint32_t)s->ncus };
		}
		s->ncus++;
	}
	free(r.v);
	if (s->ncuranges > 1)
		qsort(s->curanges, s->ncuranges, sizeof(*s->curanges), cmp_curange);
	return 0;
nomem:
	free(r.v);
	return fail(s, PROFEV_E_NOMEM, "out of memory");
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
	int64_t i = (int64_t)index - cu->file_base;
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
	uint64_t di = cu->fdirs[i];
	if (v5) {
		if (di < (uint64_t)cu->ndirs)
			dir = cu->dirs[di];
	} else if (di > 0 && di <= (uint64_t)cu->ndirs) {
		dir = cu->dirs[di - 1];
	}
	char buf[4096];
	buf[0] = '\0';
	/* LLVM 14 prepends comp_dir to any relative directory, DWARF 5's
	 * entry 0 (itself the comp dir) included: "./csu/./csu/x.c" */
	if (cu->comp_dir && *cu->comp_dir && !is_abs(dir))
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

/* The unit holding .debug_info offset off, NULL if none. */
static struct cu *cu_of(struct profev_symbolizer *s, uint64_t off)
{
	size_t lo = 0, n = s->ncus;
	while (n > 0) {
		size_t half = n / 2;
		if (off < s->cus[lo + half].unit_off) {
			n = half;
		} else {
			lo += half + 1;
			n -= half + 1;
		}
	}
	if (lo == 0 || off >= s->cus[lo - 1].unit_end)
		return NULL;
	return &s->cus[lo - 1];
}

/*
 * DWARFDie::findRecursively: the first of attrs (in that order of
 * preference) on the DIE, else on the DIEs its abstract_origin and
 * specification lead to, specification first.
 */
static const char *find_name_attr(struct profev_symbolizer *s, uint64_t off,
				  const unsigned *attrs, int nattrs)
{
	uint64_t work[16], seen[16];
	int nwork = 0, nseen = 0;
	work[nwork++] = off;
	seen[nseen++] = off;
	while (nwork) {
		uint64_t at = work[--nwork];
		struct cu *cu = cu_of(s, at);
		if (!cu)
			continue;
		if (s->ab_off != cu->abbrev_off + 1) {
			s->ab_off = 0;
			if (parse_abbrevs(&s->dw.abbrev, cu->abbrev_off, &cu->u, &s->ab))
				continue;
			s->ab_off = cu->abbrev_off + 1;
		}
		struct cur c = { s->dw.info.p + at, s->dw.info.p + cu->unit_end, 0 };
		uint64_t code = rd_uleb(&c);
		if (code == 0 || code >= s->ab.n || !s->ab.v[code].tag)
			continue;
		const struct abbrev *a = &s->ab.v[code];
		const char *found[4] = { NULL, NULL, NULL, NULL };
		uint64_t refs[2] = { 0, 0 };
		int has_ref[2] = { 0, 0 };
		for (uint32_t k = 0; k < a->n && !c.bad; k++) {
			const struct spec *sp = &s->ab.specs[a->first + k];
			struct val v;
			read_val(&c, sp->form, sp->implicit, &cu->u, &v);
			for (int i = 0; i < nattrs && i < 4; i++)
				if (sp->attr == attrs[i] && !found[i])
					found[i] = val_str(&s->dw, &cu->u, &v);
			int r = sp->attr == DW_AT_abstract_origin ? 0 :
				sp->attr == DW_AT_specification ? 1 : -1;
			if (r < 0)
				continue;
			if (v.form == DW_FORM_ref_addr) {
				refs[r] = v.u;
				has_ref[r] = 1;
			} else if (v.form == DW_FORM_ref1 || v.form == DW_FORM_ref2 ||
				   v.form == DW_FORM_ref4 || v.form == DW_FORM_ref8 ||
				   v.form == DW_FORM_ref_udata) {
				refs[r] = cu->unit_off + v.u;
				has_ref[r] = 1;
			}
		}
		for (int i = 0; i < nattrs && i < 4; i++)
			if (found[i])
				return found[i];
		for (int r = 0; r < 2; r++) {
			if (!has_ref[r])
				continue;
			int dup = 0;
			for (int j = 0; j < nseen; j++)
				dup |= seen[j] == refs[r];
			if (!dup && nseen < 16 && nwork < 16) {
				seen[nseen++] = refs[r];
				work[nwork++] = refs[r];
			}
		}
	}
	return NULL;
}

/* getSubroutineName(LinkageName) of the DIE at off, demangled. */
static const char *die_name(struct profev_symbolizer *s, uint64_t off)
{
	static const unsigned linkage[2] = { DW_AT_MIPS_linkage_name, DW_AT_linkage_name };
	static const unsigned plain[1] = { DW_AT_name };
	const char *raw = find_name_attr(s, off, linkage, 2);
	if (!raw)
		raw = find_name_attr(s, off, plain, 1);
	return raw ? demangle_cached(s, raw) : NULL;
}

/*
 * Most subroutine DIEs carry no name of their own, only a reference to the
 * abstract instance every inlined copy shares; their names are cached by
 * that reference, so each function's name is looked up once.
 */
static const char *sub_name(struct profev_symbolizer *s, struct sub *sb)
{
	if (sb->named)
		return sb->name;
	sb->named = 1;
	if (!sb->via_origin) {
		sb->name = die_name(s, sb->off);
		return sb->name;
	}
	if ((s->nnames + 1) * 2 > s->capnames) {
		size_t cap = s->capnames ? s->capnames * 2 : 4096;
		struct namecache *v = calloc(cap, sizeof(*v));
		if (!v) {
			sb->name = die_name(s, sb->origin);
			return sb->name;
		}
		for (size_t i = 0; i < s->capnames; i++) {
			if (!s->names[i].used)
				continue;
			size_t h = (s->names[i].off * 0x9e3779b97f4a7c15ull) >> 20 & (cap - 1);
			while (v[h].used)
				h = (h + 1) & (cap - 1);
			v[h] = s->names[i];
		}
		free(s->names);
		s->names = v;
		s->capnames = cap;
	}
	size_t h = (sb->origin * 0x9e3779b97f4a7c15ull) >> 20 & (s->capnames - 1);
	while (s->names[h].used && s->names[h].off != sb->origin)
		h = (h + 1) & (s->capnames - 1);
	if (!s->names[h].used) {
		s->names[h].used = 1;
		s->names[h].off = sb->origin;
		s->names[h].name = die_name(s, sb->origin);
		s->nnames++;
	}
	sb->name = s->names[h].name;
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
	struct cu *cu = s->ncus ? find_cu(s, addr) : NULL;
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

/* The DWARF sections' bytes, decompressed if need be (SHF_COMPRESSED or
 * GNU .zdebug). @return whether there is a .debug_info. */
static int load_sections(Elf *elf, struct dwsects *d)
{
	static const struct { const char *name; size_t off; } want[] = {
		{ "info", offsetof(struct dwsects, info) },
		{ "abbrev", offsetof(struct dwsects, abbrev) },
		{ "line", offsetof(struct dwsects, line) },
		{ "line_str", offsetof(struct dwsects, line_str) },
		{ "str", offsetof(struct dwsects, str) },
		{ "rnglists", offsetof(struct dwsects, rnglists) },
		{ "ranges", offsetof(struct dwsects, ranges) },
		{ "addr", offsetof(struct dwsects, addr) },
		{ "str_offsets", offsetof(struct dwsects, str_offsets) },
	};
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		int gnu = 0;
		if (!name)
			continue;
		if (strncmp(name, ".debug_", 7) == 0)
			name += 7;
		else if (strncmp(name, ".zdebug_", 8) == 0)
			name += 8, gnu = 1;
		else
			continue;
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			if (strcmp(name, want[i].name) != 0)
				continue;
			if (gnu)
				elf_compress_gnu(scn, 0, 0);
			else if (sh.sh_flags & SHF_COMPRESSED)
				elf_compress(scn, 0, 0);
			Elf_Data *data = elf_getdata(scn, NULL);
			if (data && data->d_buf) {
				struct sect *sec = (struct sect *)((char *)d + want[i].off);
				sec->p = data->d_buf;
				sec->n = data->d_size;
			}
		}
	}
	return d->info.n > 0 && d->abbrev.n > 0;
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
	if (load_sections(s->elf, &s->dw)) {
		if (load_units(s))
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
	return s->ncus > 0;
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
	free(s->stack);
	free(s->names);
	free(s->ab.v);
	free(s->ab.specs);
	free(s->syms);
	free(s->filesyms);
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
