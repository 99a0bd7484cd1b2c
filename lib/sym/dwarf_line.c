/*
 * sym/dwarf_line.c - .debug_line: a unit's line program header (the
 * directory and file tables of DWARF 2-4 and of DWARF 5), its rows and
 * sequences, and the row and file name an address gets.
 *
 * As LLVM 14: the row is the last one at or below the address in the first
 * sequence (by end address) that ends above it, found with the same
 * upper_bound so even odd tables give the same row; file paths are joined
 * comp_dir / include dir / name like Prologue::getFileNameByIndex.
 */
#include "sym/sym_internal.h"

static int cmp_seq(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	/* stable, as LLVM's stable_sort */
	return x->first < y->first ? -1 : x->first > y->first;
}

static int add_dir(struct lines *l, size_t *cap, const char *path)
{
	if (grow((void **)&l->dirs, cap, (size_t)l->ndirs + 1, sizeof(*l->dirs)))
		return -1;
	l->dirs[l->ndirs++] = path;
	return 0;
}

static int add_file(struct lines *l, size_t *cap, const char *name, uint64_t dir)
{
	size_t capd = (size_t)l->nfiles;   /* fdirs grows with fnames */
	if (grow((void **)&l->fnames, cap, (size_t)l->nfiles + 1, sizeof(*l->fnames)) ||
	    grow((void **)&l->fdirs, &capd, (size_t)l->nfiles + 1, sizeof(*l->fdirs)))
		return -1;
	l->fnames[l->nfiles] = name;
	l->fdirs[l->nfiles++] = dir;
	return 0;
}

/*
 * A DWARF 5 directory or file table: its entry format, then the entries,
 * each added as a file (files != 0) or a directory.
 */
static int read_v5_table(struct cur *c, const struct dwsects *d, const struct unitctx *u,
			 struct lines *l, size_t *cap, int files)
{
	uint64_t fmt[16][2];
	unsigned nfmt = (unsigned)rd_u(c, 1);
	if (nfmt > 16)
		return 1;
	for (unsigned k = 0; k < nfmt; k++) {
		fmt[k][0] = rd_uleb(c);
		fmt[k][1] = rd_uleb(c);
	}
	if (c->bad)
		return 1;
	uint64_t n = rd_uleb(c);
	for (uint64_t i = 0; i < n && !c->bad; i++) {
		const char *path = NULL;
		uint64_t dir = 0;
		for (unsigned k = 0; k < nfmt; k++) {
			struct val v;
			form_read(c, (unsigned)fmt[k][1], 0, u, &v);
			if (fmt[k][0] == DW_LNCT_path)
				path = form_str(d, u, &v);
			else if (fmt[k][0] == DW_LNCT_directory_index)
				dir = v.u;
		}
		if (files ? add_file(l, cap, path, dir) : add_dir(l, cap, path))
			return -1;
	}
	return 0;
}

/* The directory and file tables of DWARF 2-4: strings up to an empty one. */
static int read_v4_tables(struct cur *c, struct lines *l, size_t *capd, size_t *capf)
{
	const char *s;
	while ((s = rd_cstr(c)) && *s)
		if (add_dir(l, capd, s))
			return -1;
	while ((s = rd_cstr(c)) && *s) {
		uint64_t dir = rd_uleb(c);
		rd_uleb(c); /* modification time */
		rd_uleb(c); /* length */
		if (add_file(l, capf, s, dir))
			return -1;
	}
	return 0;
}

struct lnhdr {
	unsigned min_inst, line_range, opcode_base;
	int line_base;
	uint8_t std_len[256];
};

/* The line number program from c to its end into rows and sequences.
 * 0, -1 out of memory, 1 damaged with *why (rows are then meaningless). */
static int run_program(struct lines *l, struct cur *c, const struct lnhdr *h, const char **why)
{
	/* every row takes at least one opcode byte: reserve that bound once
	 * (pages never written are never faulted in) and trim at the end,
	 * rather than copying the rows over and over while they grow */
	size_t caprows = (size_t)(c->end - c->p) + 1, capseq = 0;
	l->rows = malloc(caprows * sizeof(*l->rows));
	if (!l->rows)
		return -1;
	uint64_t addr = 0, file = 1, line = 1, col = 0;
	uint32_t first = 0;
	int in_seq = 0;
	while (c->p < c->end && !c->bad) {
		unsigned op = (unsigned)rd_u(c, 1);
		int emit = 0, end = 0;
		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			addr += (uint64_t)(adj / h->line_range) * h->min_inst;
			line += (uint64_t)(int64_t)(h->line_base + (int)(adj % h->line_range));
			emit = 1;
		} else if (op == 0) {
			uint64_t elen = rd_uleb(c);
			if (elen == 0 || elen > (uint64_t)(c->end - c->p)) {
				*why = "an extended opcode runs past the end of the table";
				return 1;
			}
			const uint8_t *next = c->p + elen;
			unsigned sub = (unsigned)rd_u(c, 1);
			if (sub == DW_LNE_end_sequence)
				emit = end = 1;
			else if (sub == DW_LNE_set_address)
				addr = rd_u(c, (unsigned)(elen - 1) <= 8 ? (unsigned)(elen - 1) : 8);
			c->p = next;
		} else {
			switch (op) {
			case DW_LNS_copy: emit = 1; break;
			case DW_LNS_advance_pc: addr += rd_uleb(c) * h->min_inst; break;
			case DW_LNS_advance_line: line += (uint64_t)rd_sleb(c); break;
			case DW_LNS_set_file: file = rd_uleb(c); break;
			case DW_LNS_set_column: col = rd_uleb(c); break;
			case DW_LNS_const_add_pc:
				addr += (uint64_t)((255 - h->opcode_base) / h->line_range) * h->min_inst;
				break;
			case DW_LNS_fixed_advance_pc: addr += rd_u(c, 2); break;
			default:
				for (unsigned k = 0; k < h->std_len[op]; k++)
					rd_uleb(c);
				break;
			}
		}
		if (!emit)
			continue;
		if (grow((void **)&l->rows, &caprows, l->nrows + 1, sizeof(*l->rows)))
			return -1;
		/* DWARF requires addresses that never decrease within a
		 * sequence: the lookups' binary search relies on it */
		if (in_seq && addr < l->rows[l->nrows - 1].addr) {
			*why = "addresses decrease within a sequence";
			return 1;
		}
		if (file < (uint64_t)l->file_base || file >= (uint64_t)(l->nfiles + l->file_base)) {
			*why = "a row's file index is not in the file table";
			return 1;
		}
		uint32_t idx = (uint32_t)l->nrows++;
		l->rows[idx] = (struct row){ addr, (uint32_t)line, (uint16_t)file, (uint16_t)col };
		if (!in_seq) {
			in_seq = 1;
			first = idx;
		}
		if (end) {
			in_seq = 0;
			uint64_t lo = l->rows[first].addr;
			if (lo < addr) {
				if (grow((void **)&l->seqs, &capseq, l->nseqs + 1, sizeof(*l->seqs)))
					return -1;
				l->seqs[l->nseqs++] = (struct seq){ lo, addr, first, idx + 1 };
			}
			addr = 0;
			file = 1;
			line = 1;
			col = 0;
		}
	}
	if (c->bad) {
		*why = "an opcode runs past the end of the table";
		return 1;
	}
	if (in_seq) {
		*why = "the last sequence has no end";
		return 1;
	}
	if (l->nseqs > 1)
		qsort(l->seqs, l->nseqs, sizeof(*l->seqs), cmp_seq);
	struct row *fit = realloc(l->rows, (l->nrows ? l->nrows : 1) * sizeof(*l->rows));
	if (fit)
		l->rows = fit;
	return 0;
}

/* A table that cannot be read leaves the unit without lines (return 1). */
int lines_load(struct lines *l, const struct dwsects *d, const struct unitctx *cu_u, uint64_t off,
	       const char **why)
{
	*why = NULL;
	if (off >= d->line.n) {
		*why = "offset past the end of the section";
		return 1;
	}
	struct cur c = cur_at(&d->line, off, d->line.n);
	struct unitctx u = *cu_u;
	if (rd_unit_length(&c, &u.offsize)) {
		*why = "its length runs past the end of the section";
		return 1;
	}
	const uint8_t *table_end = c.end;
	u.version = (unsigned)rd_u(&c, 2);
	if (u.version < 2 || u.version > 5) {
		*why = "unknown version";
		return 1;
	}
	if (u.version >= 5) {
		u.addrsize = (unsigned)rd_u(&c, 1);
		rd_u(&c, 1); /* segment selector size */
	}
	uint64_t hlen = rd_u(&c, u.offsize);
	if (c.bad || hlen > (uint64_t)(c.end - c.p)) {
		*why = "its header length runs past the end of the table";
		return 1;
	}
	const uint8_t *prog = c.p + hlen;
	struct lnhdr h;
	h.min_inst = (unsigned)rd_u(&c, 1);
	if (u.version >= 4)
		rd_u(&c, 1); /* maximum operations per instruction: VLIW only */
	rd_u(&c, 1);         /* default_is_stmt */
	h.line_base = (int8_t)rd_u(&c, 1);
	h.line_range = (unsigned)rd_u(&c, 1);
	h.opcode_base = (unsigned)rd_u(&c, 1);
	memset(h.std_len, 0, sizeof(h.std_len));
	for (unsigned k = 1; k < h.opcode_base; k++)
		h.std_len[k] = (uint8_t)rd_u(&c, 1);
	if (c.bad || h.line_range == 0 || h.opcode_base == 0) {
		*why = c.bad ? "header cut" : "line_range or opcode_base 0";
		return 1;
	}

	size_t capf = 0, capd = 0;
	int rc;
	l->version = u.version;
	/* the tables end where the header says the program starts */
	c.end = prog;
	if (u.version >= 5) {
		rc = read_v5_table(&c, d, &u, l, &capd, 0);
		if (rc == 0)
			rc = read_v5_table(&c, d, &u, l, &capf, 1);
		l->file_base = 0;
	} else {
		rc = read_v4_tables(&c, l, &capd, &capf);
		l->file_base = 1;
	}
	if (rc == 0 && c.bad)
		rc = 1;
	if (rc) {
		*why = "its directory or file table runs past the header";
		return rc;
	}
	size_t nf = l->nfiles ? (size_t)l->nfiles : 1;
	l->files = calloc(nf, sizeof(*l->files));
	l->file_done = calloc(nf, 1);
	if (!l->files || !l->file_done)
		return -1;
	l->has_lines = 1;
	c.p = prog;
	c.end = table_end;
	return run_program(l, &c, &h, why);
}

const struct row *lines_find_row(const struct lines *l, uint64_t addr)
{
	size_t s = UPPER_BOUND(l->nseqs, addr, l->seqs[i].hi);
	if (s == l->nseqs)
		return NULL;
	const struct seq *sq = &l->seqs[s];
	if (!(sq->lo <= addr && addr < sq->hi))
		return NULL;
	size_t first = sq->first + 1;
	first += UPPER_BOUND(sq->last - 1 - first, addr, l->rows[first + i].addr);
	return &l->rows[first - 1];
}

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

const char *lines_file_name(struct lines *l, struct arena *arena, const char *comp_dir,
			    uint64_t index)
{
	if (!l->has_lines)
		return NULL;
	int v5 = l->version >= 5;
	if (v5 ? index >= (uint64_t)l->nfiles : (index == 0 || index > (uint64_t)l->nfiles))
		return NULL;
	int64_t i = (int64_t)index - l->file_base;
	if (i < 0 || i >= l->nfiles)
		return NULL;
	if (l->file_done[i])
		return l->files[i];
	l->file_done[i] = 1;
	const char *name = l->fnames[i];
	if (!name)
		return NULL;
	if (is_abs(name)) {
		l->files[i] = name;
		return name;
	}
	const char *dir = NULL;
	uint64_t di = l->fdirs[i];
	if (v5) {
		if (di < (uint64_t)l->ndirs)
			dir = l->dirs[di];
	} else if (di > 0 && di <= (uint64_t)l->ndirs) {
		dir = l->dirs[di - 1];
	}
	char buf[4096];
	buf[0] = '\0';
	/* LLVM 14 prepends comp_dir to any relative directory, DWARF 5's
	 * entry 0 (itself the comp dir) included: "./csu/./csu/x.c" */
	if (comp_dir && *comp_dir && !is_abs(dir))
		path_append(buf, sizeof(buf), comp_dir);
	path_append(buf, sizeof(buf), dir);
	path_append(buf, sizeof(buf), name);
	l->files[i] = arena_strdup(arena, buf);
	return l->files[i];
}

void lines_release(struct lines *l)
{
	free(l->files);
	free(l->file_done);
	free(l->fnames);
	free(l->fdirs);
	free(l->dirs);
	free(l->rows);
	free(l->seqs);
	memset(l, 0, sizeof(*l));
}
