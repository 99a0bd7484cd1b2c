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
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sym/sym_internal.h"

#define ARENA_BLOCK_MIN ((size_t)64 << 10)
#define ARENA_BLOCK_MAX ((size_t)32 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/* A block of at least n bytes, made current. -1: no memory. */
static int arena_block(struct arena *a, size_t n)
{
	size_t sz = a->next < ARENA_BLOCK_MIN ? ARENA_BLOCK_MIN : a->next;
	if (sz < n)
		sz = n;
	if (a->nblocks == a->capblocks &&
	    grow((void **)&a->blocks, &a->capblocks, a->nblocks + 1, sizeof(*a->blocks)))
		return -1;
	struct arena_block b = { NULL, sz, 0 };
	if (sz >= HUGE_PAGE) {
		sz = (sz + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		char *m = mmap(NULL, sz + HUGE_PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			/* the 2 MB-aligned part, the rest given back */
			size_t head = (HUGE_PAGE - (uintptr_t)m % HUGE_PAGE) % HUGE_PAGE;
			if (head)
				munmap(m, head);
			munmap(m + head + sz, HUGE_PAGE - head);
			b = (struct arena_block){ m + head, sz, 1 };
#ifdef MADV_HUGEPAGE
			madvise(b.p, sz, MADV_HUGEPAGE);
#endif
		}
	}
	if (!b.p && !(b.p = malloc(b.len)))
		return -1;
	a->blocks[a->nblocks++] = b;
	a->cur = b.p;
	a->left = b.len;
	if (a->next < ARENA_BLOCK_MAX)
		a->next = a->next ? a->next * 2 : ARENA_BLOCK_MIN * 2;
	return 0;
}

char *arena_alloc(struct arena *a, size_t n)
{
	if (n > a->left && arena_block(a, n))
		return NULL;
	char *p = a->cur;
	a->cur += n;
	a->left -= n;
	return p;
}

void *arena_room(struct arena *a, size_t used, size_t n)
{
	size_t pad = (16 - (uintptr_t)a->cur % 16) % 16;
	if (used == 0 && pad <= a->left) {
		a->cur += pad;
		a->left -= pad;
	}
	if (n <= a->left)
		return a->cur;
	char *old = a->cur;
	if (arena_block(a, n))
		return NULL;
	if (used)
		memcpy(a->cur, old, used);
	return a->cur;
}

void arena_take(struct arena *a, size_t n)
{
	a->cur += n;
	a->left -= n;
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

void arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->nblocks; i++) {
		if (a->blocks[i].mapped)
			munmap(a->blocks[i].p, a->blocks[i].len);
		else
			free(a->blocks[i].p);
	}
	free(a->blocks);
	memset(a, 0, sizeof(*a));
}

int sym_fail(struct profev_symbolizer *s, int code, const char *fmt, ...)
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

void sym_warn(struct profev_symbolizer *s, const char *fmt, ...)
{
	char msg[sizeof(s->err.message)];
	s->damaged = 1;
	while (s->owner)
		s = s->owner;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (unsigned i = 0; i < s->nwarnings; i++)
		if (strcmp(s->warnings[i], msg) == 0)
			return;
	char **w = realloc(s->warnings, (s->nwarnings + 1) * sizeof(*w));
	if (!w)
		return;
	s->warnings = w;
	if ((w[s->nwarnings] = strdup(msg)))
		s->nwarnings++;
}

const char *sym_demangled(struct profev_symbolizer *s, const char *name)
{
	char *d = demangle_with(s->demangler, name);
	if (!d)
		return NULL;
	const char *r = arena_strdup(&s->arena, d);
	free(d);
	return r;
}

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

struct profev_symbolizer *sym_alloc(struct profev_error *err)
{
	struct profev_symbolizer *s = calloc(1, sizeof(*s));
	if (!s && err) {
		memset(err, 0, sizeof(*err));
		err->code = PROFEV_E_NOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
	}
	if (s) {
		s->fd = -1;
		s->sfd = -1;
	}
	return s;
}

/* Open path as ELF into *fd, *elf. @return 0, or <0 with s->err set. */
int sym_open_elf(struct profev_symbolizer *s, const char *path, int *fd, Elf **elf)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return sym_fail(s, PROFEV_E_IO, "unable to open '%s': %s", path, strerror(errno));
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF)
		return sym_fail(s, PROFEV_E_UNSUPPORTED, "'%s': not an ELF file", path);
	return 0;
}

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
	profev_symbolizer_free(s->sup);
	split_release(s);
	info_release(s);
	for (unsigned i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->out);
	free(s->chain);
	symtab_release(&s->symtab);
	for (size_t i = 0; i < s->nbufs; i++)
		free(s->bufs[i]);
	free(s->bufs);
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
