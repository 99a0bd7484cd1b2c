/*
 * sym/dwarf_line.c - .debug_line: a unit's line program header (the
 * directory and file tables of DWARF 2-4 and of DWARF 5), its sequences,
 * and the row and file name an address gets.
 *
 * As LLVM 14: the row is the last one at or below the address in the first
 * sequence (by end address) that ends above it; file paths are joined
 * comp_dir / include dir / name like Prologue::getFileNameByIndex. The
 * rows are not kept (a large program has millions): the program is run
 * once for its sequences and a checkpoint every LINE_CHECKPOINT rows, and
 * a lookup runs it again from the checkpoint below its address.
 */
#include "sym/dwarf_form.h"

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

/* rd_uleb on a bare pointer; *cut set (and p at end) for a value cut short. */
static inline uint64_t uleb(const uint8_t **pp, const uint8_t *end, int *cut)
{
	const uint8_t *p = *pp;
	if (p < end && *p < 0x80) {
		*pp = p + 1;
		return *p;
	}
	struct cur c = { p, end, 0 };
	uint64_t v = rd_uleb(&c);
	*pp = c.bad ? end : c.p;
	*cut |= c.bad;
	return v;
}

static inline int64_t sleb(const uint8_t **pp, const uint8_t *end, int *cut)
{
	const uint8_t *p = *pp;
	if (p < end && *p < 0x80) {
		*pp = p + 1;
		return (int64_t)(*p & 0x40 ? (uint64_t)*p | ~(uint64_t)0x7f : *p);
	}
	struct cur c = { p, end, 0 };
	int64_t v = rd_sleb(&c);
	*pp = c.bad ? end : c.p;
	*cut |= c.bad;
	return v;
}

/*
 * Run h's opcodes from *pp until one appends a row. @return 1 with the row
 * in *st, 2 when that row ends its sequence (the caller then resets *st),
 * 0 at the end of the program (*cut set if an operand was cut short), -1
 * at an extended opcode longer than what is left. On a bare pointer: a
 * special opcode, most of every program, takes two table lookups.
 */
static inline __attribute__((always_inline)) int next_row(const struct lnprog *h,
							   const uint8_t **pp, struct lnstate *st,
							   int *cut)
{
	const uint8_t *p = *pp, *end = h->end;
	const unsigned opbase = h->opcode_base;
	while (p < end) {
		unsigned op = *p++;
		if (op >= opbase) {
			st->addr += h->addr_adv[op];
			st->line += (uint64_t)(int64_t)h->line_adv[op];
			*pp = p;
			return 1;
		}
		switch (op) {
		case DW_LNS_set_column: st->col = uleb(&p, end, cut); break;
		case DW_LNS_copy: *pp = p; return 1;
		case DW_LNS_advance_line: st->line += (uint64_t)sleb(&p, end, cut); break;
		case DW_LNS_advance_pc: st->addr += uleb(&p, end, cut) * h->min_inst; break;
		case DW_LNS_set_file: st->file = uleb(&p, end, cut); break;
		case DW_LNS_const_add_pc: st->addr += h->const_add; break;
		case DW_LNS_fixed_advance_pc:
			if (end - p < 2) {
				p = end;
				*cut = 1;
				break;
			}
			st->addr += (uint64_t)p[0] | (uint64_t)p[1] << 8;
			p += 2;
			break;
		case 0: {
			int bad = 0;
			uint64_t elen = uleb(&p, end, &bad);
			if (bad || elen == 0 || elen > (uint64_t)(end - p)) {
				*pp = end;
				return -1;
			}
			const uint8_t *next = p + elen;
			unsigned sub = *p++;
			if (sub == DW_LNE_set_address) {
				struct cur a = { p, next, 0 };
				st->addr = rd_u(&a, (unsigned)(elen - 1) <= 8 ? (unsigned)(elen - 1) : 8);
			}
			p = next;
			if (sub == DW_LNE_end_sequence) {
				*pp = p;
				return 2;
			}
			break;
		}
		default:
			for (unsigned k = h->std_len[op]; k > 0; k--)
				uleb(&p, end, cut);
			break;
		}
	}
	*pp = p;
	return 0;
}

static inline struct row row_of(const struct lnstate *st)
{
	return (struct row){ st->addr, (uint32_t)st->line, (uint16_t)st->file, (uint16_t)st->col };
}

/*
 * The line number program into sequences and a checkpoint every
 * LINE_CHECKPOINT rows of each (from its first row, never its end row):
 * the rows themselves are not kept. 0, -1 out of memory, 1 damaged with
 * *why (the sequences are then meaningless).
 *
 * This pass reads every opcode of every unit, so it is next_row() fused
 * with what is done per row, the registers in locals: a special opcode
 * (most rows) costs two table lookups and three tests. The checks are
 * those of every row: addresses that never decrease within a sequence
 * (the lookups, from checkpoints, and LLVM's binary search rely on it)
 * and a file index in the file table (kept as a flag set where the file
 * changes).
 */
static int run_program(struct lines *l, struct arena *arena, const struct lnprog *h,
		       const char **why)
{
	const uint8_t *p = h->p, *const end = h->end;
	const unsigned opbase = h->opcode_base;
	/* a checkpoint comes about every 30 bytes of GCC's programs */
	size_t cap = (size_t)(end - p) / 16 + 16, capseq = l->nseqs;
	if (!(l->cks = arena_reserve_tail(arena, 0, cap * sizeof(*l->cks))))
		return -1;
	uint64_t addr = 0, file = 1, line = 1, col = 0;
	uint64_t lo = 0, prev = 0;
	const uint64_t fbase = (uint64_t)l->file_base, nfiles = (uint64_t)l->nfiles;
	int file_bad = 1 - fbase >= nfiles;
	uint32_t first = 0, countdown = 1;
	int in_seq = 0, cut = 0;
	/* GCC's programs are mostly set_column, negate_stmt and a special
	 * opcode for each row: those two tested first, negate_stmt when the
	 * header gives it no operands (as the standard does) */
	const int negate_bare = opbase > DW_LNS_negate_stmt && h->std_len[DW_LNS_negate_stmt] == 0;
	while (p < end) {
		unsigned op = *p++;
		if (op >= opbase) {
			addr += h->addr_adv[op];
			line += (uint64_t)(int64_t)h->line_adv[op];
			goto row;
		}
		if (op == DW_LNS_set_column && p < end && *p < 0x80) {
			col = *p++;
			continue;
		}
		if (op == DW_LNS_negate_stmt && negate_bare)
			continue;
		switch (op) {
		case DW_LNS_copy: goto row;
		case DW_LNS_set_column: col = uleb(&p, end, &cut); continue;
		case DW_LNS_advance_line: line += (uint64_t)sleb(&p, end, &cut); continue;
		case DW_LNS_advance_pc: addr += uleb(&p, end, &cut) * h->min_inst; continue;
		case DW_LNS_set_file:
			file = uleb(&p, end, &cut);
			file_bad = file - fbase >= nfiles;
			continue;
		case DW_LNS_const_add_pc: addr += h->const_add; continue;
		case DW_LNS_fixed_advance_pc:
			if (end - p < 2) {
				p = end;
				cut = 1;
				continue;
			}
			addr += (uint64_t)p[0] | (uint64_t)p[1] << 8;
			p += 2;
			continue;
		case 0: {
			int bad = 0;
			uint64_t elen = uleb(&p, end, &bad);
			if (bad || elen == 0 || elen > (uint64_t)(end - p)) {
				*why = "an extended opcode runs past the end of the table";
				return 1;
			}
			const uint8_t *next = p + elen;
			unsigned sub = *p++;
			if (sub == DW_LNE_set_address) {
				struct cur a = { p, next, 0 };
				addr = rd_u(&a, (unsigned)(elen - 1) <= 8 ? (unsigned)(elen - 1) : 8);
			}
			p = next;
			if (sub != DW_LNE_end_sequence)
				continue;
			/* the end row */
			if (addr < prev || file_bad)
				goto bad_row;
			if (in_seq && lo < addr) {
				if (grow((void **)&l->seqs, &capseq, l->nseqs + 1, sizeof(*l->seqs)))
					return -1;
				l->seqs[l->nseqs++] = (struct seq){ lo, addr, first, (uint32_t)l->ncks };
			}
			in_seq = 0;
			countdown = 1;
			addr = 0, file = 1, line = 1, col = 0;
			file_bad = 1 - fbase >= nfiles;
			prev = 0;
			continue;
		}
		default:
			for (unsigned k = h->std_len[op]; k > 0; k--)
				uleb(&p, end, &cut);
			continue;
		}
	row:
		if (addr < prev || file_bad)
			goto bad_row;
		prev = addr;
		if (--countdown)
			continue;
		/* a checkpoint; a sequence's first row always is one */
		countdown = LINE_CHECKPOINT;
		if (!in_seq) {
			in_seq = 1;
			lo = addr;
			first = (uint32_t)l->ncks;
		}
		if (l->ncks == cap) {
			struct ckpt *c = arena_reserve_tail(arena, cap * sizeof(*c), 2 * cap * sizeof(*c));
			if (!c)
				return -1;
			l->cks = c;
			cap *= 2;
		}
		l->cks[l->ncks++] = (struct ckpt){ addr, (uint32_t)line, (uint16_t)file, (uint16_t)col,
						   (uint32_t)(p - h->p) };
	}
	if (cut) {
		*why = "an opcode runs past the end of the table";
		return 1;
	}
	if (in_seq) {
		*why = "the last sequence has no end";
		return 1;
	}
	if (l->nseqs > 1)
		qsort(l->seqs, l->nseqs, sizeof(*l->seqs), cmp_seq);
	arena_commit_tail(arena, l->ncks * sizeof(*l->cks));
	return 0;
bad_row:
	*why = addr < prev ? "addresses decrease within a sequence" :
			     "a row's file index is not in the file table";
	return 1;
}

/* A table that cannot be read leaves the unit without lines (return 1). */
int lines_load(struct lines *l, struct arena *arena, const struct dwsects *d,
	       const struct unitctx *cu_u, uint64_t off, const char **why)
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
	if (table_end - prog > (ptrdiff_t)UINT32_MAX) {
		*why = "its program is 4 GB or more";
		return 1;
	}
	struct lnprog *h = l->prog = calloc(1, sizeof(*h));
	if (!h)
		return -1;
	h->min_inst = (unsigned)rd_u(&c, 1);
	if (u.version >= 4)
		rd_u(&c, 1); /* maximum operations per instruction: VLIW only */
	rd_u(&c, 1);         /* default_is_stmt */
	int line_base = (int8_t)rd_u(&c, 1);
	unsigned line_range = (unsigned)rd_u(&c, 1);
	h->opcode_base = (unsigned)rd_u(&c, 1);
	for (unsigned k = 1; k < h->opcode_base; k++)
		h->std_len[k] = (uint8_t)rd_u(&c, 1);
	if (c.bad || line_range == 0 || h->opcode_base == 0) {
		*why = c.bad ? "header cut" : "line_range or opcode_base 0";
		return 1;
	}
	for (unsigned op = h->opcode_base; op < 256; op++) {
		unsigned adj = op - h->opcode_base;
		h->addr_adv[op] = (uint16_t)((adj / line_range) * h->min_inst);
		h->line_adv[op] = (int16_t)(line_base + (int)(adj % line_range));
	}
	h->const_add = (uint64_t)((255 - h->opcode_base) / line_range) * h->min_inst;

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
	h->p = prog;
	h->end = table_end;
	return run_program(l, arena, h, why);
}

/*
 * LLVM's LineTable::findRowInSeq: the last row at or below addr of the
 * first sequence (by end address) ending above it, by upper_bound among
 * its rows but the first and the end row. Its rows are in address order
 * (lines_load() refuses others), so that is the last checkpoint at or
 * below addr, then the rows after it up to addr, the program run again
 * from the checkpoint.
 */
const struct row *lines_find_row(struct lines *l, uint64_t addr)
{
	size_t s = UPPER_BOUND(l->nseqs, addr, l->seqs[i].hi);
	if (s == l->nseqs)
		return NULL;
	const struct seq *sq = &l->seqs[s];
	if (!(sq->lo <= addr && addr < sq->hi))
		return NULL;
	/* the first checkpoint is the first row, at lo <= addr */
	size_t k = sq->first;
	k += UPPER_BOUND(sq->last - sq->first, addr, l->cks[sq->first + i].addr) - 1;
	const struct ckpt *ck = &l->cks[k];
	struct lnstate st = { .addr = ck->addr, .file = ck->file, .line = ck->line, .col = ck->col };
	const uint8_t *p = l->prog->p + ck->off;
	int cut = 0;
	l->found = row_of(&st);
	/* the end row, at hi > addr, stops it at the latest */
	while (next_row(l->prog, &p, &st, &cut) > 0 && st.addr <= addr)
		l->found = row_of(&st);
	return &l->found;
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
	free(l->prog);
	free(l->files);
	free(l->file_done);
	free(l->fnames);
	free(l->fdirs);
	free(l->dirs);
	free(l->seqs);
	memset(l, 0, sizeof(*l));
}
