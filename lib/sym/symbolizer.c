/*
 * sym/symbolizer.c - addresses to functions, files and lines: opening an
 * ELF file and its DWARF sections, loading each compile unit on its first
 * lookup into sorted arrays, and assembling a lookup's frames.
 *
 * The answers reproduce llvm-symbolizer --inlines --demangle (LLVM 14),
 * which the tests hold as the reference; the pieces name the rules they
 * copy (see sym_internal.h). Here: the innermost frame takes the line row
 * of the address, each outer frame the call site of the one inside it, and
 * the outermost frame is renamed from the symbol table when a symbol
 * covers the address (".cold" and ".constprop" parts keep their suffix).
 */
#include <stdio.h>
#include "sym/sym_internal.h"

/* ---------------------------------------------------------------- */
/* Lookups                                                           */
/* ---------------------------------------------------------------- */

/* A damaged line table or DIE tree leaves the whole unit unresolved
 * (loaded -1: the symbol table alone answers), never half read. */
static int load_cu(struct profev_symbolizer *s, struct cu *cu)
{
	cu->loaded = -1;
	const char *why = NULL;
	int rc = cu->has_stmt ? lines_load(&cu->lines, &s->arena, &s->dw, &cu->u, cu->stmt_off, &why) : 0;
	if (rc > 0)
		sym_warn(s, "'%s': %s: line table at offset 0x%llx (unit at offset 0x%llx): %s",
			 s->path, s->dwo ? ".debug_line.dwo" : ".debug_line",
			 (unsigned long long)cu->stmt_off, (unsigned long long)cu->unit_off, why);
	if (rc == 0 && cu->skeleton) {
		rc = split_bind(s, cu);
		if (rc == SPLIT_ABSENT) {
			/* lines only, as llvm-symbolizer without the .dwo */
			cu->loaded = 1;
			return 0;
		}
		if (rc == SPLIT_REFUSED)
			rc = 1;
	}
	if (rc == 0)
		rc = info_load_dies(s, cu);
	if (rc < 0)
		return sym_fail(s, PROFEV_E_NOMEM, "out of memory");
	if (rc > 0) {
		lines_release(&cu->lines);
		return 0;
	}
	cu->loaded = 1;
	return 0;
}

static struct profev_symframe *add_frame(struct profev_symbolizer *s, size_t *n)
{
	if (grow((void **)&s->out, &s->capout, *n + 1, sizeof(*s->out)))
		return NULL;
	struct profev_symframe *f = &s->out[(*n)++];
	memset(f, 0, sizeof(*f));
	return f;
}

/* f's file, line and column from the line row of addr, if any. */
static void set_row(struct profev_symbolizer *s, struct cu *cu, uint64_t addr,
		    struct profev_symframe *f)
{
	const struct row *row = lines_find_row(&cu->lines, addr);
	const char *file = row ? lines_file_name(&cu->lines, &s->arena, cu->comp_dir, row->file) : NULL;
	if (file) {
		f->file = file;
		f->line = row->line;
		f->column = row->col;
	}
}

/* The frames DWARF gives for addr in cu into s->out; their number. */
static int dwarf_frames(struct profev_symbolizer *s, struct cu *cu, uint64_t addr, size_t *n)
{
	size_t nchain = 0;
	for (int32_t i = info_find_sub(cu, addr); i >= 0; i = cu->subs[i].parent) {
		if (grow((void **)&s->chain, &s->capchain, nchain + 1, sizeof(*s->chain)))
			return -1;
		s->chain[nchain++] = i;
		if (cu->subs[i].subprogram)
			break;
	}
	if (nchain == 0) {
		/* no subroutine: a frame with the line alone, if it has a file */
		struct profev_symframe row = { 0 };
		set_row(s, cu, addr, &row);
		if (row.file) {
			struct profev_symframe *f = add_frame(s, n);
			if (!f)
				return -1;
			*f = row;
		}
		return 0;
	}
	for (size_t i = 0; i < nchain; i++) {
		struct sub *sb = &cu->subs[s->chain[i]];
		const char *name = info_sub_name(s, cu, sb);
		struct profev_symframe *f = add_frame(s, n);
		if (!f)
			return -1;
		f->function = name;
		if (i == 0) {
			set_row(s, cu, addr, f);
		} else {
			struct sub *callee = &cu->subs[s->chain[i - 1]];
			f->file = lines_file_name(&cu->lines, &s->arena, cu->comp_dir, callee->call_file);
			f->line = callee->call_line;
			f->column = callee->call_col;
		}
	}
	return 0;
}

int profev_symbolizer_lookup(struct profev_symbolizer *s, uint64_t addr,
			     const struct profev_symframe **frames)
{
	size_t n = 0;
	struct cu *cu = s->ncus ? info_find_cu(s, addr) : NULL;
	*frames = NULL;
	if (cu && cu->loaded == 0 && load_cu(s, cu))
		return s->err.code;
	if (cu && cu->loaded == 1 && dwarf_frames(s, cu, addr, &n))
		return sym_fail(s, PROFEV_E_NOMEM, "out of memory");
	if (n == 0 && !add_frame(s, &n))
		return sym_fail(s, PROFEV_E_NOMEM, "out of memory");
	struct elfsym *sym = symtab_find(&s->symtab, addr);
	if (sym) {
		struct profev_symframe *f = &s->out[n - 1];
		if (!sym->demangled)
			sym->demangled = sym_demangled(s, sym->name);
		f->function = sym->demangled;
		if (!f->file && sym->local_idx)
			f->file = symtab_file_symbol(&s->symtab, sym->local_idx);
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

/* The supplementary file: its DWARF alone (units, abbreviations, strings),
 * for the DIEs and strings the main file refers to. */
static int open_sup(struct profev_symbolizer *s, const char *path)
{
	struct profev_symbolizer *t = s->sup = sym_alloc(&s->err);
	if (!t)
		return PROFEV_E_NOMEM;
	int rc = sym_open_elf(t, path, &t->fd, &t->elf);
	t->path = path;
	if (rc == 0)
		rc = sections_load(t, path);
	if (rc == 0)
		rc = sym_fail(t, PROFEV_E_CORRUPT, "'%s': no DWARF in the supplementary file", path);
	if (rc > 0)
		rc = info_load_units(t);
	if (rc < 0) {
		s->err = t->err;
		return rc;
	}
	s->dw.sup_str = t->dw.str;
	return 0;
}

struct profev_symbolizer *profev_symbolizer_open(const struct profev_symbolizer_files *f,
						 struct profev_error *err)
{
	struct profev_symbolizer *s = sym_alloc(err);
	if (!s)
		return NULL;
	s->demangler_handle = demangler_open(&s->demangler);
	elf_version(EV_CURRENT);
	const char *path = f->path, *symbols_path = f->symbols_path;
	if (!(s->path = arena_strdup(&s->arena, path))) {
		sym_fail(s, PROFEV_E_NOMEM, "out of memory");
		goto out;
	}
	if (sym_open_elf(s, path, &s->fd, &s->elf))
		goto out;
	if (symbols_path && strcmp(symbols_path, path) != 0 &&
	    sym_open_elf(s, symbols_path, &s->sfd, &s->selfp))
		goto out;
	Elf *tables[2] = { s->elf, s->selfp };
	if (symtab_load(&s->symtab, tables, 2, &s->err))
		goto out;
	int rc = sections_load(s, path);
	if (rc > 0 && f->sup_path && open_sup(s, f->sup_path))
		goto out;
	if (split_init(s, f)) {
		sym_fail(s, PROFEV_E_NOMEM, "out of memory");
		goto out;
	}
	if (rc < 0 || (rc > 0 && info_load_units(s)))
		goto out;
	return s;
out:
	if (err)
		*err = s->err;
	profev_symbolizer_free(s);
	return NULL;
}

struct profev_symbolizer *profev_symbolizer_new(const char *path, const char *symbols_path,
						struct profev_error *err)
{
	struct profev_symbolizer_files f = { path, symbols_path, NULL, NULL, NULL, 0 };
	return profev_symbolizer_open(&f, err);
}

int profev_symbolizer_has_dwarf(const struct profev_symbolizer *s)
{
	return s->ncus > 0;
}

unsigned profev_symbolizer_warnings(const struct profev_symbolizer *s,
				    const char *const **warnings)
{
	*warnings = (const char *const *)s->warnings;
	return s->nwarnings;
}

const struct profev_error *profev_symbolizer_error(const struct profev_symbolizer *s)
{
	return &s->err;
}

void profev_symbolizer_free(struct profev_symbolizer *s)
{
	if (!s)
		return;
	sym_close(s->sup);
	split_release(s);
	sym_close(s);
}
