/*
 * sym_internal.h - what the pieces of the symbolizer share (lib/sym only).
 *
 *   dwarf_form.c   abbreviations, attribute forms, DIE attributes, ranges
 *   dwarf_info.c   the .debug_info walk: units, subroutines, inline chains
 *   dwarf_line.c   .debug_line programs: file tables, rows, sequences
 *   elf_sections.c ELF sections holding DWARF, decompressed
 *   elf_symtab.c   ELF symbol tables
 *   split_dwarf.c  split DWARF: skeleton units bound to their .dwo or .dwp unit
 *   dwp.c          .dwp packages' unit indexes (.debug_cu_index)
 *   demangle.c     Itanium names spelled as LLVM spells them
 *   arena.c        the memory the tables and strings live in
 *   messages.c     the error that refuses a file, warnings about damage
 *   sym_file.c     one file's struct profev_symbolizer: made, opened, freed
 *   symbolizer.c   opening a module with its files, lookups
 *
 * Calls run one way, down this list read from the bottom: symbolizer.c
 * uses the rest; split_dwarf.c opens the files of split units, reading
 * them through elf_sections.c and dwarf_info.c; the DWARF readers call
 * only arena.c, messages.c, demangle.c and each other downwards
 * (dwarf_info.c -> dwarf_line.c, dwarf_form.c).
 *
 * DWARF is decoded straight from the section bytes (see dwarf_form.c for
 * why not libdwarf); every read is bounds-checked through struct cur, which
 * turns any overrun into c->bad and reads nothing further. The answers copy
 * llvm-symbolizer's (LLVM 14) rules, named where each rule is applied.
 */
#ifndef PROFEV_SYM_INTERNAL_H
#define PROFEV_SYM_INTERNAL_H

#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include "profev_sym.h"
#include "common/u64_map.h"

/* ---------------------------------------------------------------- */
/* Memory                                                            */
/* ---------------------------------------------------------------- */

/*
 * Bump allocator for what lives as long as the symbolizer: strings, and
 * each unit's tables once loaded (subroutines, address map, line
 * checkpoints). Blocks double from 64 KB up to ARENA_BLOCK_MAX; those of
 * 2 MB and more are mapped 2 MB-aligned with MADV_HUGEPAGE, so the kernel
 * fills the big tables a huge page per fault rather than 4 KB at a time
 * (page faults were a fifth of pfsym's time).
 */
struct arena_block {
	void *p;
	size_t len;
	int mapped;           /* mmap()ed, else malloc()ed */
};
struct arena {
	char *cur;
	size_t left;
	size_t next;          /* size of the next block */
	struct arena_block *blocks;
	size_t nblocks, capblocks;
};

/* arena.c */
char *arena_alloc(struct arena *a, size_t n);
char *arena_strdup(struct arena *a, const char *s);
/*
 * An array built in place at the arena's end (its tail):
 * arena_reserve_tail() reserves n bytes there, 16-aligned, and is called
 * again with more when that fills (the first used bytes then move along
 * if they must); arena_commit_tail() ends it, keeping its first n bytes
 * and giving back the rest. Between the two nothing else may allocate
 * from the arena. @return the array, NULL when out of memory (the used
 * bytes stay where they were).
 */
void *arena_reserve_tail(struct arena *a, size_t used, size_t n);
void arena_commit_tail(struct arena *a, size_t n);
void arena_free(struct arena *a);

/* The n bytes of a build-id as 2n lowercase hex digits and a NUL in out. */
void build_id_hex(char *out, const uint8_t *id, unsigned n);
/* debuginfo.c: a warning added to di's. @return 0, PROFEV_E_NOMEM */
int debuginfo_warn(struct profev_debuginfo *di, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* *p holds *cap elements of elem bytes; make room for need. -1: no memory. */
static inline int grow(void **p, size_t *cap, size_t need, size_t elem)
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

/*
 * The index of the first element of v[0..n) whose KEY is above key
 * (std::upper_bound), where KEY(i) gives element i's key: every sorted
 * table of the symbolizer is searched this way, as LLVM searches its own.
 */
#define UPPER_BOUND(n_, key_, KEY)                                  \
	({                                                          \
		size_t ub_lo = 0, ub_n = (n_);                      \
		while (ub_n > 0) {                                  \
			size_t ub_half = ub_n / 2, i = ub_lo + ub_half; \
			if ((key_) < (KEY)) {                       \
				ub_n = ub_half;                     \
			} else {                                    \
				ub_lo = i + 1;                      \
				ub_n -= ub_half + 1;                \
			}                                           \
		}                                                   \
		ub_lo;                                              \
	})

/* ---------------------------------------------------------------- */
/* Reading bytes                                                     */
/* ---------------------------------------------------------------- */

struct cur {
	const uint8_t *p, *end;
	int bad;
};

struct sect {
	const uint8_t *p;
	size_t n;
};

static inline struct cur cur_at(const struct sect *s, uint64_t off, uint64_t end)
{
	struct cur c = { s->p + off, s->p + end, 0 };
	return c;
}

/* The n-byte (n <= 8) little-endian value at p, unchecked. */
static inline uint64_t le_at(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 1)
		return p[0];
	if (n == 2) {
		uint16_t x;
		memcpy(&x, p, 2);
		return x;
	}
	if (n == 4) {
		uint32_t x;
		memcpy(&x, p, 4);
		return x;
	}
	if (n == 8) {
		memcpy(&v, p, 8);
		return v;
	}
#endif
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline uint64_t rd_u(struct cur *c, unsigned n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	uint64_t v = le_at(c->p, n);
	c->p += n;
	return v;
}

static inline uint64_t rd_uleb(struct cur *c)
{
	if (c->p < c->end && *c->p < 0x80)
		return *c->p++;
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

static inline int64_t rd_sleb(struct cur *c)
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

static inline const char *rd_cstr(struct cur *c)
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

static inline void skip(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
	} else {
		c->p += n;
	}
}

/*
 * A unit's initial length (32- or 64-bit DWARF): sets *offsize and narrows
 * c->end to the unit. @return 0, -1 if the length does not fit.
 */
static inline int rd_unit_length(struct cur *c, unsigned *offsize)
{
	*offsize = 4;
	uint64_t len = rd_u(c, 4);
	if (len == 0xffffffffu) {
		len = rd_u(c, 8);
		*offsize = 8;
	}
	if (c->bad || len > (uint64_t)(c->end - c->p))
		return -1;
	c->end = c->p + len;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Abbreviations and forms (dwarf_form.c, whose calls dwarf_form.h  */
/* declares)                                                         */
/* ---------------------------------------------------------------- */

/*
 * What reading range lists may cost a file (dwarf_form.c). Each list is
 * read about once (a unit's own twice: at its header and when its DIEs
 * load), so a file reads about twice its .debug_rnglists and .debug_ranges
 * in all; offsets that point many DIEs at one long list, or a list of
 * garbage with no end, would read without end. A file may read
 * RANGES_BUDGET_RATIO times those sections, above RANGES_BUDGET_FLOOR;
 * past that every list is refused as damaged. One list holds at most
 * RANGES_MAX entries.
 */
#define RANGES_BUDGET_RATIO 4
#define RANGES_BUDGET_FLOOR ((uint64_t)1 << 20)
#define RANGES_MAX ((size_t)1 << 20)
struct rlbudget {
	uint64_t total;   /* bytes of range lists the file may read */
	uint64_t left;    /* of them, not read yet */
};

struct dwsects {
	struct sect info, abbrev, line, line_str, str, rnglists, ranges, addr, str_offsets;
	struct sect sup_str;   /* the dwz supplementary file's .debug_str */
	struct sect cu_index;  /* a .dwp's .debug_cu_index */
	struct rlbudget *rl;   /* the file's, NULL: no limit (ranges_budget()) */
};

/* What a unit header and its root DIE say, for reading its DIEs. */
struct unitctx {
	unsigned version, offsize, addrsize;
	uint64_t addr_base, rnglists_base, str_offsets_base, base;
	uint64_t ranges_base;   /* GNU split DWARF 4: DW_AT_ranges offsets' base */
};

struct abbrev {
	uint16_t tag;
	uint8_t children;
	uint32_t first, n;      /* specs[first .. first + n) */
	int32_t fixed;          /* bytes of all attributes if fixed, else -1 */
	uint32_t sfirst, sn;    /* steps[sfirst .. sfirst + sn) */
	uint8_t at_fixed;       /* fixed size, and every value a step reads
	                           is a number at its step's at */
	int32_t plan;           /* at_fixed subroutines with each value once:
	                           index of their struct subplan, else -1 */
};

struct spec {
	uint16_t attr, form;
	int64_t implicit;
};

/*
 * The attributes of an abbreviation compiled for die_sub_attrs() and
 * die_skip(): runs of fixed-size attributes not needed merged into one
 * skip of n bytes (STEP_SKIP), others of a size given by the data
 * (STEP_FORM) read and dropped, and those a subroutine DIE needs (only in
 * subprogram and inlined_subroutine abbreviations) read into struct die.
 */
enum {
	STEP_SKIP, STEP_FORM, STEP_LOW, STEP_HIGH, STEP_RANGES, STEP_CALL_FILE, STEP_CALL_LINE,
	STEP_CALL_COL, STEP_NAME, STEP_REF,
};

struct step {
	uint8_t op;
	uint16_t which;          /* STEP_NAME: its DIE_HAS_ bit; STEP_REF: 1 for
	                           DW_AT_specification, 0 abstract_origin */
	uint16_t form;
	int8_t size;            /* how the value reads: 1, 2, 3, 4 or 8 bytes
	                           little-endian, -1 an unsigned LEB128, -2
	                           none (it is implicit), 0 another way
	                           (form_read()) */
	uint32_t n;             /* STEP_SKIP: bytes */
	uint32_t at;            /* in an abbreviation of fixed size, where the
	                           value is from the DIE's first attribute */
	int64_t implicit;       /* the value when implicit */
};

/*
 * Where die_sub_attrs() finds each value of a subroutine DIE whose
 * abbreviation is at_fixed and names each of them at most once (most
 * subroutines): read at its offset from the DIE's first attribute, with
 * no loop over the steps.
 */
enum { PLAN_LOW, PLAN_HIGH, PLAN_RANGES, PLAN_CALL_FILE, PLAN_CALL_LINE, PLAN_CALL_COL,
       PLAN_REF, PLAN_N };
struct subplan {
	unsigned has;           /* the DIE_HAS_ bits every such DIE sets */
	uint32_t at[PLAN_N];
	int8_t size[PLAN_N];    /* 1, 2, 3, 4 or 8 bytes; -2 implicit; 0 absent */
	uint16_t form[PLAN_N];
	int64_t implicit[PLAN_N];
};

/* One abbreviation table, the one at .debug_abbrev offset off - 1. */
struct abbrevs {
	struct abbrev *v;       /* by code */
	size_t n, cap;
	struct spec *specs;
	size_t nspecs, capspecs;
	struct step *steps;
	size_t nsteps, capsteps;
	struct subplan *plans;
	size_t nplans, capplans;
	uint64_t off;           /* offset + 1 of the table held, 0 = none */
	unsigned shape;         /* version, offset and address size it is for */
};

/* One attribute value: numbers and offsets in u, strings in s. */
struct val {
	unsigned form;
	uint64_t u;
	const char *s;
};

/* The attributes of a DIE that the symbolizer uses, valid when their
 * DIE_HAS_ bit is set (a name's first occurrence, the others' last). */
struct die {
	unsigned has;
	struct val low, high, ranges, comp_dir, name, linkage, mips_linkage;
	uint64_t call_file, call_line, call_col, stmt_list;
	uint64_t addr_base, rnglists_base, str_offsets_base, ranges_base;
	struct val dwo_name;  /* DW_AT_dwo_name, DW_AT_GNU_dwo_name */
	uint64_t dwo_id;      /* DW_AT_GNU_dwo_id */
	/* abstract_origin [0] and specification [1] as .debug_info offsets,
	 * DIE_HAS_ORIGIN / DIE_HAS_SPEC when given by a reference form */
	uint64_t ref[2];
	unsigned ref_sup;    /* bit r: ref[r] is in the supplementary file */
	uint64_t last_ref;   /* the last of them, whatever its form */
	int last_ref_sup;
	unsigned nrefs;      /* how many; 99 when one is in a type unit */
};

enum {
	DIE_HAS_LOW = 1, DIE_HAS_HIGH = 2, DIE_HAS_RANGES = 4, DIE_HAS_COMP_DIR = 8,
	DIE_HAS_STMT = 16, DIE_HAS_NAME = 32, DIE_HAS_LINKAGE = 64, DIE_HAS_MIPS_LINKAGE = 128,
	DIE_HAS_ORIGIN = 256, DIE_HAS_SPEC = 512, DIE_HAS_DWO_NAME = 1024, DIE_HAS_DWO_ID = 2048,
};

struct range {
	uint64_t lo, hi;
};

struct ranges {
	struct range *v;
	size_t n, cap;
	const char *why;   /* how a list that could not be read is damaged */
};

/* ---------------------------------------------------------------- */
/* Units, lines, subroutines                                         */
/* ---------------------------------------------------------------- */

/* As LLVM's DWARFDebugLine::Row, whose file and column are 16 bits. */
struct row {
	uint64_t addr;
	uint32_t line;
	uint16_t file, col;
};

struct seq {
	uint64_t lo, hi;
	uint32_t first, last; /* its checkpoints [first, last) */
};

/* The line state machine's registers that rows keep. */
struct lnstate {
	uint64_t addr, file, line, col;
};

/* Every LINE_CHECKPOINT-th row of a sequence, from its first: the
 * registers after it and where the program goes on. */
#define LINE_CHECKPOINT 16
struct ckpt {
	uint64_t addr;
	/* the registers as a row gives them: wider bits never reach a row,
	 * since set_file and set_column set them and advance_line adds */
	uint32_t line;
	uint16_t file, col;
	uint32_t off;         /* of the next opcode, from the program's start
	                         (lines_load() refuses programs of 4 GB) */
};

/* A unit's line program, kept to run again from a checkpoint. */
struct lnprog {
	const uint8_t *p, *end;
	unsigned opcode_base;
	uint64_t min_inst, const_add;
	uint8_t std_len[256];
	/* what each special opcode adds to the address and the line */
	uint16_t addr_adv[256];
	int16_t line_adv[256];
};

struct sub {
	uint64_t off;         /* .debug_info offset of the DIE */
	int32_t parent;       /* nearest enclosing subroutine, -1 at top */
	uint32_t call_file, call_line, call_col;
	uint8_t subprogram;   /* else inlined_subroutine */
	uint8_t named;        /* name below computed */
	uint8_t via_origin;   /* named only through one abstract_origin or
	                         specification: origin, shared by many */
	uint8_t origin_sup;   /* origin is in the supplementary file */
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

/* A unit's line table (dwarf_line.c). */
struct lines {
	int has_lines;
	unsigned version;
	const char **files;   /* resolved paths by index - file_base, NULL = not yet */
	uint8_t *file_done;
	int64_t file_base, nfiles;
	const char **fnames;  /* raw file entry name and directory */
	uint64_t *fdirs;
	const char **dirs;
	int64_t ndirs;
	/* the rows are not kept, only checkpoints (see lines_find_row()) */
	struct lnprog *prog;
	struct ckpt *cks;
	size_t ncks;
	struct seq *seqs;
	size_t nseqs;
	struct row found;     /* lines_find_row()'s answer */
};

struct cu {
	struct unitctx u;
	uint64_t unit_off;    /* unit header, base of CU-relative references */
	uint64_t die_off;     /* root DIE, in .debug_info */
	uint64_t abbrev_off, first_child, unit_end, stmt_off;
	int root_children, has_stmt;
	const char *comp_dir;
	int loaded;           /* 0 not yet, 1 loaded, -1 failed */
	/* split DWARF: a skeleton unit's DIEs are in unit dwo_cu of the .dwo
	 * file (or .dwp unit) dwo, bound on loading; NULL if not found */
	uint8_t skeleton, has_dwo_id;
	const char *dwo_name;
	uint64_t dwo_id, gnu_ranges_base;
	struct profev_symbolizer *dwo;
	struct cu *dwo_cu;
	struct lines lines;
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

/* One ELF symbol table, sorted as LLVM's SymbolizableObjectFile sorts it. */
struct symtab {
	struct elfsym *syms;
	size_t nsyms;
	struct filesym *filesyms;
	size_t nfilesyms;
};

struct namecache {
	uint64_t off;
	const char *name;
	int used;
};

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

struct profev_symbolizer {
	struct profev_error err;
	struct arena arena;
	void *demangler_handle;
	cxa_demangle_fn demangler;
	/* ELF */
	int fd, sfd;
	Elf *elf, *selfp;   /* the debug file; the symbols file if another */
	struct symtab symtab;
	/* DWARF */
	struct dwsects dw;
	struct profev_symbolizer *sup;  /* dwz supplementary file, NULL if none */
	struct split *split;  /* split DWARF state (split_dwarf.c), NULL if none */
	int dwo;              /* this is a .dwo file or a unit of a .dwp */
	struct profev_symbolizer *owner; /* then: the module's, which keeps the
	                                    warnings and the demangler */
	int damaged;          /* a unit of it was refused (warned) */
	struct rlbudget rl;   /* what its range lists may cost (dw.rl) */
	const char *path;     /* the file, for messages */
	uint64_t info_off;    /* a .dwp unit's: where its .debug_info.dwo slice starts */
	char **warnings;      /* damage found, see profev_symbolizer_warnings():
	                         WARN_MAX texts, then more[] if any */
	unsigned nwarnings;
	struct u64_map warned;  /* hashes of the texts warned, at most
	                           WARN_SEEN_MAX (then all counted as new) */
	unsigned long long nmore;  /* texts past WARN_MAX, not kept */
	char more[320];       /* "and N more": the last warning */
	void **bufs;          /* decompressed sections */
	size_t nbufs, capbufs;
	struct abbrevs ab;
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

/* messages.c */
/* s->err set from code and the message. @return code */
int sym_fail(struct profev_symbolizer *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A warning for profev_symbolizer_warnings(), kept by the module's
 * symbolizer (s->owner's), once per text (found again by its hash; out of
 * memory: dropped), at most WARN_MAX of them and then one that counts the
 * rest; s is marked damaged. */
#define WARN_MAX 16
#define WARN_SEEN_MAX 65536
void sym_warn(struct profev_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sym_warnings_release(struct profev_symbolizer *s);

/* sym_file.c */
/* An empty symbolizer, no file open. NULL when out of memory (*err set
 * when err is not NULL). */
struct profev_symbolizer *sym_alloc(struct profev_error *err);
/* Open path as ELF into *fd, *elf. @return 0, or <0 with s->err set. */
int sym_open_elf(struct profev_symbolizer *s, const char *path, int *fd, Elf **elf);
/* Free s and what it holds but its split DWARF state and supplementary
 * file (profev_symbolizer_free() frees those first). NULL is allowed. */
void sym_close(struct profev_symbolizer *s);

/* demangle.c */
void *demangler_open(cxa_demangle_fn *fn);
char *demangle_with(cxa_demangle_fn cxa, const char *name);
/* name demangled with s's demangler, kept in s's arena; NULL: no memory */
const char *sym_demangled(struct profev_symbolizer *s, const char *name);

/* elf_sections.c: s->dw from s->elf (named path in errors), decompressed.
 * @return 1 with DWARF, 0 without, <0 with s->err set (a section that
 * cannot be read or decompressed: the file is refused). */
int sections_load(struct profev_symbolizer *s, const char *path);

/* elf_symtab.c */
/* The first .symtab of elfs[0..n) (NULLs skipped), else the first .dynsym. */
int symtab_load(struct symtab *t, Elf *const *elfs, unsigned n, struct profev_error *err);
struct elfsym *symtab_find(struct symtab *t, uint64_t addr);
const char *symtab_file_symbol(const struct symtab *t, uint32_t idx);
void symtab_release(struct symtab *t);

/* dwarf_line.c: the unit's line program at off of .debug_line, its
 * checkpoints in arena. 0, -1 when out of memory, 1 when damaged (*why
 * says how; the unit has no lines). */
int lines_load(struct lines *l, struct arena *arena, const struct dwsects *d,
	       const struct unitctx *u, uint64_t off, const char **why);
const struct row *lines_find_row(struct lines *l, uint64_t addr);
/* DWARFDebugLine::Prologue::getFileNameByIndex, AbsoluteFilePath */
const char *lines_file_name(struct lines *l, struct arena *arena, const char *comp_dir,
			    uint64_t index);
void lines_release(struct lines *l);

/* split_dwarf.c */
struct profev_symbolizer_files;
/* Keep what the split units will be looked for with. -1: out of memory */
int split_init(struct profev_symbolizer *s, const struct profev_symbolizer_files *f);
/* Bind a skeleton unit to its split unit (cu->dwo, cu->dwo_cu) from the
 * .dwp or a .dwo file, before info_load_dies() reads its DIEs. @return
 * SPLIT_FOUND bound, SPLIT_ABSENT not found (the unit keeps its lines),
 * SPLIT_REFUSED found but refused (warned: the unit is left unresolved),
 * SPLIT_NOMEM out of memory. */
enum { SPLIT_FOUND = 0, SPLIT_ABSENT = 1, SPLIT_REFUSED = 2, SPLIT_NOMEM = -1 };
int split_bind(struct profev_symbolizer *s, struct cu *cu);
void split_release(struct profev_symbolizer *s);

/* dwp.c: a .dwp package's .debug_cu_index (DWARF 5, or GNU version 2) */
struct dwp_index {
	unsigned version, ncols;
	uint32_t nunits, nslots;
	const uint8_t *ids, *rows, *cols, *offs, *sizes;
};
/* One unit's contributions, by DW_SECT_ number of DWARF 5 (GNU version 2
 * numbers are mapped to these). */
enum { DWP_INFO = 1, DWP_ABBREV = 3, DWP_LINE = 4, DWP_LOCLISTS = 5, DWP_STR_OFFSETS = 6,
       DWP_MACRO = 7, DWP_RNGLISTS = 8, DWP_NSECT = 9 };
struct dwp_unit {
	uint64_t off[DWP_NSECT], size[DWP_NSECT];
	uint8_t has[DWP_NSECT];
};
/* NULL, or what is wrong with the index. */
const char *dwp_index_read(struct dwp_index *x, const struct sect *sec);
/* @return 1 with *u filled, 0 if the package has no unit with that id,
 * -1 with *why when its entry is damaged. */
int dwp_find(const struct dwp_index *x, uint64_t id, struct dwp_unit *u, const char **why);

/* dwarf_info.c */
/* @return 0, <0 with s->err set; damaged units are warned about, skipped */
int info_load_units(struct profev_symbolizer *s);
struct cu *info_find_cu(struct profev_symbolizer *s, uint64_t addr);
/* 0, -1 out of memory, 1 damaged (warned: the unit is left unresolved) */
int info_load_dies(struct profev_symbolizer *s, struct cu *cu);
int32_t info_find_sub(const struct cu *cu, uint64_t addr);
/* cu->map from ranges r[0..n) of subroutines sub[0..n), inserted in that
 * order as info_load_dies() inserts a unit's (for the tests). -1: no memory */
int info_map_build(struct profev_symbolizer *s, struct cu *cu, const struct range *r,
		   const int32_t *sub, size_t n);
const char *info_sub_name(struct profev_symbolizer *s, struct cu *cu, struct sub *sb);
void info_release(struct profev_symbolizer *s);

#endif
