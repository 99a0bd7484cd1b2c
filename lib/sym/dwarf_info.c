/*
 * sym/dwarf_info.c - the .debug_info walk: unit headers and root DIEs
 * (where each unit's code is), each unit's subprograms and inlined
 * subroutines with their ranges (the inline chains), and subroutine names
 * through abstract_origin and specification.
 *
 * As LLVM 14: the compile unit is found from the CU DIE's ranges; the
 * inline chain comes from a map built like DWARFUnit's AddrDieMap, every
 * subprogram and inlined_subroutine range inserted in DIE preorder, a later
 * (inner) range splitting the one it falls into.
 */
#include "sym/dwarf_form.h"

/* ---------------------------------------------------------------- */
/* Address map (LLVM's AddrDieMap)                                   */
/* ---------------------------------------------------------------- */

/*
 * The map under construction is a splay tree: DIEs come in preorder, so
 * each insertion lands next to the previous one, and a splay tree makes
 * such nearby accesses cheap (a treap here cost half the run time).
 * Nodes live in one array (s->tn) and link by index, -1 for none.
 */

/* The subtree at top splayed at key: the node holding key, else the last
 * one met looking for it, becomes its root. @return that root. */
static int32_t tree_splay(struct tnode *nodes, int32_t top, uint64_t key)
{
	if (top < 0)
		return top;
	int32_t lroot = -1, rroot = -1;
	int32_t *lhook = &lroot, *rhook = &rroot;
	for (;;) {
		if (key < nodes[top].key) {
			int32_t c = nodes[top].l;
			if (c < 0)
				break;
			if (key < nodes[c].key) {
				nodes[top].l = nodes[c].r;
				nodes[c].r = top;
				top = c;
				if (nodes[top].l < 0)
					break;
			}
			*rhook = top;
			rhook = &nodes[top].l;
			top = nodes[top].l;
		} else if (key > nodes[top].key) {
			int32_t c = nodes[top].r;
			if (c < 0)
				break;
			if (key > nodes[c].key) {
				nodes[top].r = nodes[c].l;
				nodes[c].l = top;
				top = c;
				if (nodes[top].r < 0)
					break;
			}
			*lhook = top;
			lhook = &nodes[top].r;
			top = nodes[top].r;
		} else {
			break;
		}
	}
	*lhook = nodes[top].l;
	*rhook = nodes[top].r;
	nodes[top].l = lroot;
	nodes[top].r = rroot;
	return top;
}

/* map[key] = (hi, sub) in a subtree just splayed at key, whose root is top
 * (-1: empty), with room for a node already made. @return the new root:
 * top updated when it holds key, else a new node with top below it. */
static int32_t tree_set_at_root(struct profev_symbolizer *s, int32_t top, uint64_t key,
				uint64_t hi, int32_t sub)
{
	struct tnode *nodes = s->tn;
	if (top >= 0 && nodes[top].key == key) {
		nodes[top].hi = hi;
		nodes[top].sub = sub;
		return top;
	}
	int32_t n = (int32_t)s->ntn++;
	nodes[n] = (struct tnode){ key, hi, sub, -1, -1 };
	if (top >= 0) {
		if (key < nodes[top].key) {
			nodes[n].l = nodes[top].l;
			nodes[n].r = top;
			nodes[top].l = -1;
		} else {
			nodes[n].r = nodes[top].r;
			nodes[n].l = top;
			nodes[top].r = -1;
		}
	}
	return n;
}

/* In the subtree at *slot, map[key] = (hi, sub), with room for the node
 * already made. */
static void tree_set_in(struct profev_symbolizer *s, int32_t *slot, uint64_t key, uint64_t hi,
			int32_t sub)
{
	*slot = tree_set_at_root(s, tree_splay(s->tn, *slot, key), key, hi, sub);
}

/* map[key] = (hi, sub); -1 when out of memory. */
static int tree_set(struct profev_symbolizer *s, int32_t *root, uint64_t key, uint64_t hi,
		    int32_t sub)
{
	if (grow((void **)&s->tn, &s->captn, s->ntn + 1, sizeof(*s->tn)))
		return -1;
	tree_set_in(s, root, key, hi, sub);
	return 0;
}

/* Greatest key <= key, -1 if none. */
static int32_t tree_floor(struct profev_symbolizer *s, int32_t *root, uint64_t key)
{
	int32_t top = tree_splay(s->tn, *root, key);
	*root = top;
	if (top < 0 || s->tn[top].key <= key)
		return top;
	/* the root is the successor: the floor is the left subtree's maximum */
	int32_t l = tree_splay(s->tn, s->tn[top].l, key);
	s->tn[top].l = l;
	return l;
}

/* map_insert() of a range whose ends are inverted (hi < lo), step by step
 * as LLVM's updateAddressDieMap (map_insert() says why it can do less). */
static int map_insert_inverted(struct profev_symbolizer *s, int32_t *root, uint64_t lo,
			       uint64_t hi, int32_t sub)
{
	int32_t b = tree_floor(s, root, lo);
	if (b >= 0 && lo < s->tn[b].hi) {
		uint64_t bhi = s->tn[b].hi;
		int32_t bsub = s->tn[b].sub;
		if (hi < bhi && tree_set(s, root, hi, bhi, bsub))
			return -1;
		/* splaying moves links, never a node's slot: b is still b */
		if (lo > s->tn[b].key)
			s->tn[b].hi = lo;
	}
	return tree_set(s, root, lo, hi, sub);
}

/*
 * LLVM's updateAddressDieMap for one range [lo, hi): b, the entry with the
 * greatest key <= lo, is split around the range if the range begins in it
 * (map[hi] = b's end and DIE, b cut at lo), then map[lo] = (hi, DIE). One
 * splay at lo serves all of it: b is the root or the greatest node of its
 * left subtree, map[lo] becomes the root, and hi > lo goes into the root's
 * right subtree. The map's content is that of the steps in LLVM's order,
 * since they set different keys (b's key <= lo < hi).
 */
static int map_insert(struct profev_symbolizer *s, int32_t *root, uint64_t lo, uint64_t hi,
		      int32_t sub)
{
	if (lo == hi)
		return 0;
	if (hi < lo)
		return map_insert_inverted(s, root, lo, hi, sub);
	/* room for both nodes: none moves while links into s->tn are held */
	if (grow((void **)&s->tn, &s->captn, s->ntn + 2, sizeof(*s->tn)))
		return -1;
	struct tnode *nodes = s->tn;
	int32_t top = tree_splay(nodes, *root, lo), b = -1;
	if (top >= 0) {
		if (nodes[top].key <= lo)
			b = top;
		else
			for (b = nodes[top].l; b >= 0 && nodes[b].r >= 0; b = nodes[b].r)
				;
	}
	int splits_b = 0;
	uint64_t bhi = 0;
	int32_t bsub = 0;
	if (b >= 0 && lo < nodes[b].hi) {
		bhi = nodes[b].hi;
		bsub = nodes[b].sub;
		splits_b = hi < bhi;
		if (lo > nodes[b].key)
			nodes[b].hi = lo;
	}
	int32_t n = tree_set_at_root(s, top, lo, hi, sub);
	*root = n;
	if (splits_b)
		tree_set_in(s, &nodes[n].r, hi, bhi, bsub);
	return 0;
}

static int map_flatten(struct profev_symbolizer *s, struct cu *cu, int32_t root)
{
	if (root < 0)
		return 0;
	/* the DIE walk is over: its stack serves here */
	if (grow((void **)&s->stack, &s->capstack, s->ntn + 1, sizeof(*s->stack)) ||
	    !(cu->map = arena_reserve_tail(&s->arena, 0, s->ntn * sizeof(*cu->map))))
		return -1;
	int32_t *stack = s->stack;
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
	arena_commit_tail(&s->arena, cu->nmap * sizeof(*cu->map));
	return 0;
}

int info_map_build(struct profev_symbolizer *s, struct cu *cu, const struct range *r,
		   const int32_t *sub, size_t n)
{
	int32_t root = -1;
	s->ntn = 0;
	for (size_t i = 0; i < n; i++)
		if (map_insert(s, &root, r[i].lo, r[i].hi, sub[i]))
			return -1;
	return map_flatten(s, cu, root);
}

int32_t info_find_sub(const struct cu *cu, uint64_t addr)
{
	size_t k = UPPER_BOUND(cu->nmap, addr, cu->map[i].lo);
	if (k == 0 || addr >= cu->map[k - 1].hi)
		return -1;
	return cu->map[k - 1].sub;
}

/* ---------------------------------------------------------------- */
/* Units                                                             */
/* ---------------------------------------------------------------- */

static int cmp_curange(const void *a, const void *b)
{
	const struct curange *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

/* The unit header at off: *u, *abbr, the DWO id of a split or skeleton
 * unit (*has_id), and the offsets of its root DIE and end. @return 0 for a
 * unit to read (compile, partial, skeleton; split compile in a .dwo), 1
 * for one to pass over (*why set if it is damaged rather than of another
 * kind), -1 when no further unit can be read. */
static int unit_header(const struct sect *info, uint64_t off, int dwo, struct unitctx *u,
		       uint64_t *abbr, struct cur *c, uint64_t *id, int *has_id, const char **why)
{
	*c = cur_at(info, off, info->n);
	memset(u, 0, sizeof(*u));
	*has_id = 0;
	*why = NULL;
	if (rd_unit_length(c, &u->offsize)) {
		*why = "its length runs past the end of the section";
		return -1;
	}
	if (c->end - c->p < 7) {
		/* no header fits (zeros, garbage): the next unit's offset,
		 * from this length, means nothing either */
		*why = "its length is too short for a unit header";
		return -1;
	}
	u->version = (unsigned)rd_u(c, 2);
	unsigned type = DW_UT_compile;
	if (u->version >= 5) {
		type = (unsigned)rd_u(c, 1);
		u->addrsize = (unsigned)rd_u(c, 1);
		*abbr = rd_u(c, u->offsize);
		if (type == DW_UT_skeleton || type == DW_UT_split_compile) {
			*id = rd_u(c, 8);
			*has_id = 1;
		} else if (type == DW_UT_type || type == DW_UT_split_type) {
			skip(c, 8 + u->offsize);
		}
	} else {
		*abbr = rd_u(c, u->offsize);
		u->addrsize = (unsigned)rd_u(c, 1);
	}
	if (c->bad)
		*why = "header cut";
	else if (u->version < 2 || u->version > 5)
		*why = "unknown DWARF version";
	else if (u->addrsize != 4 && u->addrsize != 8)
		*why = "address size neither 4 nor 8";
	if (*why)
		return 1;
	if (type == DW_UT_compile || type == DW_UT_partial || type == DW_UT_skeleton ||
	    (dwo && type == DW_UT_split_compile))
		return 0;
	if (type < DW_UT_compile || type > DW_UT_split_type)
		*why = "unknown unit type";
	return 1;
}

static int add_curanges(struct profev_symbolizer *s, const struct ranges *r)
{
	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].lo >= r->v[i].hi)
			continue;
		if (grow((void **)&s->curanges, &s->capcuranges, s->ncuranges + 1,
			 sizeof(*s->curanges)))
			return -1;
		s->curanges[s->ncuranges++] = (struct curange){ r->v[i].lo, r->v[i].hi,
								(uint32_t)s->ncus };
	}
	return 0;
}

/* How damaged DWARF is named in warnings. */
static const char *info_name(const struct profev_symbolizer *s)
{
	return s->dwo ? ".debug_info.dwo" : ".debug_info";
}

/*
 * So many damaged units in a row end the walk of a unit list: a run of
 * garbage (a section of zeros, of random bytes) would otherwise be read as
 * unit after unit, each warned about.
 */
#define DAMAGED_RUN_MAX 8

/* The unit headers and root DIEs: where each unit's code is. */
int info_load_units(struct profev_symbolizer *s)
{
	const struct dwsects *d = &s->dw;
	struct ranges r = { 0 };
	uint64_t off = 0;
	unsigned run = 0;     /* damaged units in a row */
	int bad = 0;          /* this one is */
	ranges_budget(&s->dw, &s->rl);
	for (; off + 11 <= d->info.n; run = bad ? run + 1 : 0) {
		bad = 0;
		if (run >= DAMAGED_RUN_MAX) {
			sym_warn(s, "'%s': %s: %u damaged units in a row before offset 0x%llx: the other %llu bytes of the section are not read",
				 s->path, info_name(s), run, (unsigned long long)(off + s->info_off),
				 (unsigned long long)(d->info.n - off));
			break;
		}
		struct unitctx u;
		uint64_t abbr = 0, dwo_id = 0;
		int has_id;
		const char *why;
		struct cur c;
		int h = unit_header(&d->info, off, s->dwo, &u, &abbr, &c, &dwo_id, &has_id, &why);
		bad = why != NULL;
		if (why)
			sym_warn(s, "'%s': %s: unit at offset 0x%llx: %s", s->path, info_name(s),
				 (unsigned long long)(off + s->info_off), why);
		if (h < 0)
			break;
		uint64_t unit_off = off;
		off = (uint64_t)(c.end - d->info.p);
		if (h > 0)
			continue;
		if (abbrevs_use(&s->ab, &d->abbrev, abbr, &u)) {
			bad = 1;
			sym_warn(s, "'%s': %s: unit at offset 0x%llx: abbreviation table at offset 0x%llx cannot be read",
				 s->path, info_name(s), (unsigned long long)(unit_off + s->info_off),
				 (unsigned long long)abbr);
			continue;
		}
		uint64_t die_off = (uint64_t)(c.p - d->info.p);
		const struct abbrev *a;
		struct die die;
		int k = die_begin(&c, &s->ab, &a);
		if (k == 1)
			die_attrs(&c, &s->ab, a, &u, unit_off, &die);
		if (k != 1 || c.bad) {
			bad = 1;
			sym_warn(s, "'%s': %s: unit at offset 0x%llx: %s", s->path, info_name(s),
				 (unsigned long long)(unit_off + s->info_off),
				 k != 1 ? "root DIE's abbreviation code not in its table" :
					  "root DIE cut or of an unknown form");
			continue;
		}
		u.addr_base = die.addr_base;
		u.rnglists_base = die.rnglists_base;
		u.str_offsets_base = die.str_offsets_base;
		if (s->dwo) {
			/* a split unit's tables: its string offsets after the
			 * DWARF 5 header of its contribution, its range lists
			 * after theirs (the section, or its slice of a .dwp) */
			u.str_offsets_base = u.version >= 5 ? 2 * (uint64_t)u.offsize : 0;
			u.rnglists_base = u.offsize == 8 ? 20 : 12;
		}
		if (grow((void **)&s->cus, &s->capcus, s->ncus + 1, sizeof(*s->cus)))
			goto nomem;
		struct cu *cu = &s->cus[s->ncus];
		memset(cu, 0, sizeof(*cu));
		if (die.has & DIE_HAS_LOW)
			u.base = form_addr(d, &u, &die.low);
		cu->u = u;
		cu->die_off = die_off;
		cu->unit_off = unit_off;
		cu->abbrev_off = abbr;
		cu->first_child = (uint64_t)(c.p - d->info.p);
		cu->unit_end = off;
		cu->root_children = a->children;
		cu->has_stmt = (die.has & DIE_HAS_STMT) != 0;
		cu->stmt_off = die.stmt_list;
		cu->comp_dir = die.has & DIE_HAS_COMP_DIR ? form_str(d, &u, &die.comp_dir) : NULL;
		/* DWARF 5 skeletons give the DWO id in the header, GNU ones in
		 * DW_AT_GNU_dwo_id; both name their .dwo file */
		cu->has_dwo_id = has_id || (die.has & DIE_HAS_DWO_ID);
		cu->dwo_id = has_id ? dwo_id : die.dwo_id;
		if (!s->dwo && (die.has & DIE_HAS_DWO_NAME || (has_id && u.version >= 5))) {
			cu->skeleton = 1;
			cu->dwo_name = die.has & DIE_HAS_DWO_NAME ? form_str(d, &u, &die.dwo_name) : NULL;
			cu->gnu_ranges_base = die.ranges_base;
		}
		int rr = die_ranges(d, &u, &die, &r);
		if (rr > 0) {
			bad = 1;
			sym_warn(s, "'%s': %s: unit at offset 0x%llx: its range list cannot be read: %s",
				 s->path, info_name(s), (unsigned long long)(unit_off + s->info_off),
				 r.why ? r.why : "damaged");
			continue;
		}
		if (rr < 0 || add_curanges(s, &r))
			goto nomem;
		s->ncus++;
	}
	free(r.v);
	if (s->ncuranges > 1)
		qsort(s->curanges, s->ncuranges, sizeof(*s->curanges), cmp_curange);
	return 0;
nomem:
	free(r.v);
	return sym_fail(s, PROFEV_E_NOMEM, "out of memory");
}

struct cu *info_find_cu(struct profev_symbolizer *s, uint64_t addr)
{
	size_t lo = UPPER_BOUND(s->ncuranges, addr, s->curanges[i].lo);
	/* ranges rarely overlap (code at 0 from discarded sections); take the
	 * nearest one below that contains the address */
	for (size_t k = lo; k > 0 && lo - k < 4; k--)
		if (addr < s->curanges[k - 1].hi)
			return &s->cus[s->curanges[k - 1].cu];
	return NULL;
}

/* The unit holding .debug_info offset off, NULL if none. */
static struct cu *cu_of(struct profev_symbolizer *s, uint64_t off)
{
	size_t k = UPPER_BOUND(s->ncus, off, s->cus[i].unit_off);
	if (k == 0 || off >= s->cus[k - 1].unit_end)
		return NULL;
	return &s->cus[k - 1];
}

/* ---------------------------------------------------------------- */
/* Subroutines                                                       */
/* ---------------------------------------------------------------- */

static struct sub *add_sub(struct profev_symbolizer *s, struct cu *cu, uint64_t off,
			   int32_t parent, const struct abbrev *a, const struct die *die)
{
	if (cu->nsubs == cu->capsubs) {
		struct sub *v = arena_reserve_tail(&s->arena, cu->nsubs * sizeof(*v),
					   2 * cu->capsubs * sizeof(*v));
		if (!v)
			return NULL;
		cu->subs = v;
		cu->capsubs *= 2;
	}
	struct sub *sb = &cu->subs[cu->nsubs++];
	memset(sb, 0, sizeof(*sb));
	sb->off = off;
	sb->parent = parent;
	sb->subprogram = a->tag == DW_TAG_subprogram;
	sb->call_file = (uint32_t)die->call_file;
	sb->call_line = (uint32_t)die->call_line;
	sb->call_col = (uint32_t)die->call_col;
	if (!(die->has & (DIE_HAS_NAME | DIE_HAS_LINKAGE | DIE_HAS_MIPS_LINKAGE)) &&
	    die->nrefs == 1) {
		sb->via_origin = 1;
		sb->origin = die->last_ref;
		sb->origin_sup = (uint8_t)die->last_ref_sup;
	}
	return sb;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The unit's own ranges (its root DIE's, in s), sorted and merged: where
 * its subroutines must lie. -1: out of memory; 1: none to check with. */
static int unit_ranges(struct profev_symbolizer *s, const struct cu *cu, struct ranges *r)
{
	r->n = 0;
	if (abbrevs_use(&s->ab, &s->dw.abbrev, cu->abbrev_off, &cu->u))
		return 1;
	struct cur c = cur_at(&s->dw.info, cu->die_off, cu->unit_end);
	const struct abbrev *a;
	struct die die;
	if (die_begin(&c, &s->ab, &a) != 1)
		return 1;
	die_attrs(&c, &s->ab, a, &cu->u, cu->unit_off, &die);
	int rc = die_ranges(&s->dw, &cu->u, &die, r);
	if (rc || r->n == 0)
		return rc < 0 ? -1 : 1;
	qsort(r->v, r->n, sizeof(*r->v), cmp_range);
	size_t k = 0;
	for (size_t i = 1; i < r->n; i++) {
		if (r->v[i].lo <= r->v[k].hi) {
			if (r->v[i].hi > r->v[k].hi)
				r->v[k].hi = r->v[i].hi;
		} else {
			r->v[++k] = r->v[i];
		}
	}
	r->n = k + 1;
	return 0;
}

/* Whether [lo, hi) lies in the unit's ranges u. Ranges of code the linker
 * dropped (at 0, or at a tombstone near the top) are not checked. */
static int in_unit(const struct ranges *u, uint64_t lo, uint64_t hi)
{
	if (lo == 0 || lo >= hi || lo >= (uint64_t)1 << 63)
		return 1;
	if (u->n == 1)
		return lo >= u->v[0].lo && hi <= u->v[0].hi;
	size_t k = UPPER_BOUND(u->n, lo, u->v[i].lo);
	return k > 0 && hi <= u->v[k - 1].hi;
}

/* Every subprogram and inlined_subroutine of the unit into the map; for
 * a skeleton unit, those of the split unit split_bind() bound it to (in
 * file t, unit src). A
 * subroutine outside the unit's ranges (the unit's own DIE says where its
 * code is) shows damage, or a .dwo of another build: the unit is refused. */
int info_load_dies(struct profev_symbolizer *s, struct cu *cu)
{
	struct profev_symbolizer *t = s;
	const struct cu *src = cu;
	if (cu->skeleton) {
		if (!cu->dwo_cu)
			return 0; /* lines only, as llvm-symbolizer without the .dwo */
		t = cu->dwo;
		src = cu->dwo_cu;
	}
	struct ranges ur = { 0 };
	int has_ur = unit_ranges(s, cu, &ur);
	if (has_ur < 0) {
		free(ur.v);
		return -1;
	}
	const struct dwsects *d = &t->dw;
	struct abbrevs *ab = &t->ab;
	if (abbrevs_use(ab, &d->abbrev, src->abbrev_off, &src->u)) {
		free(ur.v);
		sym_warn(t, "'%s': %s: unit at offset 0x%llx: abbreviation table cannot be read",
			 t->path, info_name(t), (unsigned long long)(src->unit_off + t->info_off));
		return 1;
	}
	struct cur c = cur_at(&d->info, src->first_child, src->unit_end);
	int32_t root = -1;
	size_t depth = 0;
	struct ranges r = { 0 };
	s->ntn = 0;
	int rc = 0;
	const char *bad = NULL, *bad_why = NULL;
	uint64_t bad_off = 0;
	if (!src->root_children)
		c.p = c.end;
	/* about one subroutine per two bytes of the unit at most: room at the
	 * arena's end, the rest given back once they are known */
	cu->capsubs = (size_t)(c.end - c.p) / 2 + 1;
	cu->subs = arena_reserve_tail(&s->arena, 0, cu->capsubs * sizeof(*cu->subs));
	if (!cu->subs) {
		free(ur.v);
		return -1;
	}
	while (c.p < c.end && !c.bad) {
		uint64_t off = (uint64_t)(c.p - d->info.p);
		const struct abbrev *a;
		int k = die_begin(&c, ab, &a);
		if (k == 0) {
			if (depth == 0)
				break;
			depth--;
			continue;
		}
		if (k < 0) {
			bad = "abbreviation code not in its table";
			break;
		}
		int32_t parent = depth ? s->stack[depth - 1] : -1, me = parent;
		if (a->tag == DW_TAG_subprogram || a->tag == DW_TAG_inlined_subroutine) {
			struct die die;
			die_sub_attrs(&c, ab, a, &src->u, src->unit_off, &die);
			if (!add_sub(s, cu, off, parent, a, &die)) {
				rc = -1;
				break;
			}
			me = (int32_t)cu->nsubs - 1;
			rc = die_ranges(d, &src->u, &die, &r);
			if (rc > 0) {
				rc = 0;
				bad = "a range list cannot be read";
				bad_why = r.why;
				break;
			}
			for (size_t i = 0; i < r.n && !rc; i++) {
				if (has_ur == 0 && !in_unit(&ur, r.v[i].lo, r.v[i].hi)) {
					bad = cu->skeleton ? "a subroutine lies outside the skeleton unit's ranges (a .dwo of another build?)"
							   : "a subroutine lies outside the unit's ranges";
					break;
				}
				rc = map_insert(s, &root, r.v[i].lo, r.v[i].hi, me);
			}
			if (rc || bad)
				break;
		} else {
			die_skip(&c, ab, a, &src->u);
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
	free(ur.v);
	if (!bad && c.bad)
		bad = "a DIE runs past the end of the unit, or has an unknown form";
	if (bad && rc == 0) {
		/* a damaged unit gives nothing rather than partial answers */
		bad_off = (uint64_t)(c.p - d->info.p);
		sym_warn(t, "'%s': %s: unit at offset 0x%llx: at offset 0x%llx: %s%s%s", t->path,
			 info_name(t), (unsigned long long)(src->unit_off + t->info_off),
			 (unsigned long long)(bad_off + t->info_off), bad, bad_why ? ": " : "",
			 bad_why ? bad_why : "");
		cu->subs = NULL;
		cu->nsubs = cu->capsubs = 0;
		return 1;
	}
	if (rc) {
		cu->subs = NULL;
		cu->nsubs = cu->capsubs = 0;
		return rc;
	}
	arena_commit_tail(&s->arena, cu->nsubs * sizeof(*cu->subs));
	cu->capsubs = cu->nsubs;
	return map_flatten(s, cu, root);
}

/* ---------------------------------------------------------------- */
/* Names                                                             */
/* ---------------------------------------------------------------- */

/*
 * getSubroutineName(LinkageName) of the DIE at off: DWARFDie::
 * findRecursively of the linkage names (MIPS' first) on the DIE, else on
 * the DIEs its abstract_origin and specification lead to (specification
 * first), else the same for DW_AT_name. Both searches take the same path,
 * so one walk serves them: it stops at the first linkage name and keeps
 * the first plain name on the way.
 */
static const char *die_name_raw(struct profev_symbolizer *s, struct profev_symbolizer *home,
				uint64_t off, int sup)
{
	/* a DIE is its offset, with bit 63 set for the supplementary file */
	const uint64_t SUP = (uint64_t)1 << 63;
	uint64_t work[16], seen[16];
	int nwork = 0, nseen = 0;
	const char *name = NULL;
	work[nwork++] = seen[nseen++] = off | (sup ? SUP : 0);
	while (nwork) {
		uint64_t at = work[--nwork];
		/* t: the file holding the DIE */
		struct profev_symbolizer *t = at & SUP ? s->sup : home;
		at &= ~SUP;
		struct cu *cu = t ? cu_of(t, at) : NULL;
		if (!cu || abbrevs_use(&t->ab, &t->dw.abbrev, cu->abbrev_off, &cu->u))
			continue;
		struct cur c = cur_at(&t->dw.info, at, cu->unit_end);
		const struct abbrev *a;
		struct die die;
		if (die_begin(&c, &t->ab, &a) != 1)
			continue;
		die_attrs(&c, &t->ab, a, &cu->u, cu->unit_off, &die);
		const char *link = NULL;
		if (die.has & DIE_HAS_MIPS_LINKAGE)
			link = form_str(&t->dw, &cu->u, &die.mips_linkage);
		if (!link && (die.has & DIE_HAS_LINKAGE))
			link = form_str(&t->dw, &cu->u, &die.linkage);
		if (link)
			return link;
		if (!name && (die.has & DIE_HAS_NAME))
			name = form_str(&t->dw, &cu->u, &die.name);
		for (int r = 0; r < 2; r++) {
			if (!(die.has & (r ? DIE_HAS_SPEC : DIE_HAS_ORIGIN)))
				continue;
			/* the supplementary file refers only to itself */
			uint64_t ref = die.ref[r] | (t != home || (die.ref_sup >> r & 1) ? SUP : 0);
			int dup = 0;
			for (int j = 0; j < nseen; j++)
				dup |= seen[j] == ref;
			if (!dup && nseen < 16 && nwork < 16) {
				seen[nseen++] = ref;
				work[nwork++] = ref;
			}
		}
	}
	return name;
}

static const char *die_name(struct profev_symbolizer *s, struct profev_symbolizer *home,
			    uint64_t off, int sup)
{
	const char *raw = die_name_raw(s, home, off, sup);
	return raw ? sym_demangled(s, raw) : NULL;
}

/*
 * Most subroutine DIEs carry no name of their own, only a reference to the
 * abstract instance every inlined copy shares; their names are cached by
 * that reference, so each function's name is looked up once.
 */
const char *info_sub_name(struct profev_symbolizer *s, struct cu *cu, struct sub *sb)
{
	/* a split unit's DIEs, and the cache of their names, are its file's */
	struct profev_symbolizer *home = cu->dwo ? cu->dwo : s;
	if (sb->named)
		return sb->name;
	sb->named = 1;
	if (!sb->via_origin) {
		sb->name = die_name(s, home, sb->off, 0);
		return sb->name;
	}
	/* the cache key: the origin's offset, bit 63 for the supplementary file */
	uint64_t key = sb->origin | (uint64_t)sb->origin_sup << 63;
	if ((home->nnames + 1) * 2 > home->capnames) {
		size_t cap = home->capnames ? home->capnames * 2 : 4096;
		struct namecache *v = calloc(cap, sizeof(*v));
		if (!v) {
			sb->name = die_name(s, home, sb->origin, sb->origin_sup);
			return sb->name;
		}
		for (size_t i = 0; i < home->capnames; i++) {
			if (!home->names[i].used)
				continue;
			size_t h = (home->names[i].off * 0x9e3779b97f4a7c15ull) >> 20 & (cap - 1);
			while (v[h].used)
				h = (h + 1) & (cap - 1);
			v[h] = home->names[i];
		}
		free(home->names);
		home->names = v;
		home->capnames = cap;
	}
	size_t h = (key * 0x9e3779b97f4a7c15ull) >> 20 & (home->capnames - 1);
	while (home->names[h].used && home->names[h].off != key)
		h = (h + 1) & (home->capnames - 1);
	if (!home->names[h].used) {
		home->names[h].used = 1;
		home->names[h].off = key;
		home->names[h].name = die_name(s, home, sb->origin, sb->origin_sup);
		home->nnames++;
	}
	sb->name = home->names[h].name;
	return sb->name;
}

void info_release(struct profev_symbolizer *s)
{
	for (size_t i = 0; i < s->ncus; i++)
		lines_release(&s->cus[i].lines);
	free(s->cus);
	free(s->curanges);
	free(s->tn);
	free(s->stack);
	free(s->names);
	abbrevs_release(&s->ab);
	s->cus = NULL;
	s->curanges = NULL;
	s->tn = NULL;
	s->stack = NULL;
	s->names = NULL;
	s->ncus = s->ncuranges = s->ntn = s->nnames = 0;
}
