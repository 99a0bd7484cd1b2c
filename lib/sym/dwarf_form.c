/*
 * sym/dwarf_form.c - DWARF 2-5 abbreviation tables, attribute forms, the
 * attributes of one DIE, and range lists, decoded straight from the
 * section bytes (constants from libdwarf's dwarf.h).
 *
 * Why not libdwarf itself: libdwarf (20210528, Debian 12) was tried first.
 * It allocates per DIE, attribute and line row, which made pfsym three
 * times slower than llvm-symbolizer, and it double-frees on a damaged
 * .debug_rnglists (t_symbolize's damage test), so a bad debug file would
 * crash pfsym. The decoder here reads every form, bounds-checks every read
 * and gives up on a unit it cannot read.
 */
#include "sym/dwarf_form.h"

/* Size of a form's value when it does not depend on the data, else -1. */
static int form_size(unsigned form, const struct unitctx *u)
{
	switch (form) {
	case DW_FORM_addr: return (int)u->addrsize;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1: return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4: return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: return 8;
	case DW_FORM_data16: return 16;
	case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt: case DW_FORM_strp_sup:
		return (int)u->offsize;
	case DW_FORM_ref_addr: return u->version <= 2 ? (int)u->addrsize : (int)u->offsize;
	default: return -1;
	}
}

/* What die_sub_attrs() reads attr for (STEP_SKIP: nothing). */
static unsigned step_op(unsigned attr)
{
	switch (attr) {
	case DW_AT_low_pc: return STEP_LOW;
	case DW_AT_high_pc: return STEP_HIGH;
	case DW_AT_ranges: return STEP_RANGES;
	case DW_AT_call_file: return STEP_CALL_FILE;
	case DW_AT_call_line: return STEP_CALL_LINE;
	case DW_AT_call_column: return STEP_CALL_COL;
	case DW_AT_name: case DW_AT_linkage_name: case DW_AT_MIPS_linkage_name: return STEP_NAME;
	case DW_AT_abstract_origin: case DW_AT_specification: return STEP_REF;
	default: return STEP_SKIP;
	}
}

/* ab's steps as a struct subplan, if each value is named once. -1: no memory. */
static int compile_plan(struct abbrevs *a, struct abbrev *ab)
{
	struct subplan pl;
	memset(&pl, 0, sizeof(pl));
	for (uint32_t k = 0; k < ab->sn; k++) {
		const struct step *st = &a->steps[ab->sfirst + k];
		int f;
		switch (st->op) {
		case STEP_LOW: f = PLAN_LOW; pl.has |= DIE_HAS_LOW; break;
		case STEP_HIGH: f = PLAN_HIGH; pl.has |= DIE_HAS_HIGH; break;
		case STEP_RANGES: f = PLAN_RANGES; pl.has |= DIE_HAS_RANGES; break;
		case STEP_CALL_FILE: f = PLAN_CALL_FILE; break;
		case STEP_CALL_LINE: f = PLAN_CALL_LINE; break;
		case STEP_CALL_COL: f = PLAN_CALL_COL; break;
		case STEP_REF: f = PLAN_REF; break;
		case STEP_NAME: pl.has |= st->which; continue;
		default: continue;
		}
		if (pl.size[f])
			return 0; /* named twice: the steps read it */
		pl.at[f] = st->at;
		pl.size[f] = st->size;
		pl.form[f] = st->form;
		pl.implicit[f] = st->implicit;
	}
	if (grow((void **)&a->plans, &a->capplans, a->nplans + 1, sizeof(*a->plans)))
		return -1;
	ab->plan = (int32_t)a->nplans;
	a->plans[a->nplans++] = pl;
	return 0;
}

/* ab's specs as steps (see struct step). -1: no memory. */
static int compile_steps(struct abbrevs *a, struct abbrev *ab, const struct unitctx *u)
{
	int sub = ab->tag == DW_TAG_subprogram || ab->tag == DW_TAG_inlined_subroutine;
	uint32_t at = 0;
	ab->sfirst = (uint32_t)a->nsteps;
	ab->at_fixed = ab->fixed >= 0;
	ab->plan = -1;
	for (uint32_t k = 0; k < ab->n; k++) {
		const struct spec *sp = &a->specs[ab->first + k];
		unsigned op = sub ? step_op(sp->attr) : STEP_SKIP;
		int sz = form_size(sp->form, u);
		uint32_t here = at;
		at += sz > 0 ? (uint32_t)sz : 0;
		struct step *last = a->nsteps > ab->sfirst ? &a->steps[a->nsteps - 1] : NULL;
		if (op == STEP_SKIP && sz >= 0 && last && last->op == STEP_SKIP) {
			last->n += (uint32_t)sz;
			continue;
		}
		if (op == STEP_SKIP && sz < 0)
			op = STEP_FORM;
		if (grow((void **)&a->steps, &a->capsteps, a->nsteps + 1, sizeof(*a->steps)))
			return -1;
		unsigned which = sp->attr == DW_AT_name ? DIE_HAS_NAME :
				 sp->attr == DW_AT_linkage_name ? DIE_HAS_LINKAGE :
				 sp->attr == DW_AT_MIPS_linkage_name ? DIE_HAS_MIPS_LINKAGE :
				 sp->attr == DW_AT_specification;
		/* form_read() reads every fixed-size form of these sizes as a
		 * little-endian number, and these forms as unsigned LEB128 */
		int8_t how = 0;
		if (sz == 1 || sz == 2 || sz == 3 || sz == 4 || sz == 8)
			how = (int8_t)sz;
		else if (sp->form == DW_FORM_udata || sp->form == DW_FORM_ref_udata ||
			 sp->form == DW_FORM_strx || sp->form == DW_FORM_addrx ||
			 sp->form == DW_FORM_GNU_addr_index || sp->form == DW_FORM_GNU_str_index ||
			 sp->form == DW_FORM_loclistx || sp->form == DW_FORM_rnglistx)
			how = -1;
		else if (sp->form == DW_FORM_implicit_const || sp->form == DW_FORM_flag_present)
			how = -2;
		int64_t imp = sp->form == DW_FORM_flag_present ? 1 : sp->implicit;
		if (op >= STEP_LOW && how <= 0 && how != -2)
			ab->at_fixed = 0;
		a->steps[a->nsteps++] = (struct step){ (uint8_t)op, (uint16_t)which, sp->form, how,
						       op == STEP_SKIP ? (uint32_t)sz : 0, here, imp };
	}
	ab->sn = (uint32_t)(a->nsteps - ab->sfirst);
	return sub && ab->at_fixed ? compile_plan(a, ab) : 0;
}

static int parse_abbrevs(struct abbrevs *a, const struct sect *sec, uint64_t off,
			 const struct unitctx *u)
{
	a->n = 0;
	a->nspecs = 0;
	a->nsteps = 0;
	a->nplans = 0;
	if (off >= sec->n)
		return -1;
	struct cur c = cur_at(sec, off, sec->n);
	/* a table that does not end, an entry without a tag or with a
	 * children flag other than 0 or 1 is damaged: refused */
	for (;;) {
		uint64_t code = rd_uleb(&c);
		if (c.bad)
			return -1;
		if (code == 0)
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
		if (c.bad || ab->tag == 0 || ab->children > 1)
			return -1;
		for (;;) {
			uint64_t at = rd_uleb(&c), form = rd_uleb(&c);
			int64_t imp = 0;
			if (form == DW_FORM_implicit_const)
				imp = rd_sleb(&c);
			if (c.bad)
				return -1;
			if (at == 0 && form == 0)
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
		if (compile_steps(a, ab, u))
			return -1;
	}
	return 0;
}

/* Fixed sizes depend on the unit's offset and address sizes and version,
 * so a table is reparsed for a unit of another shape (rare). */
int abbrevs_use(struct abbrevs *a, const struct sect *sec, uint64_t off, const struct unitctx *u)
{
	unsigned shape = u->version << 8 | u->offsize << 4 | u->addrsize;
	if (a->off == off + 1 && a->shape == shape)
		return 0;
	a->off = 0;
	if (parse_abbrevs(a, sec, off, u))
		return -1;
	a->off = off + 1;
	a->shape = shape;
	return 0;
}

void abbrevs_release(struct abbrevs *a)
{
	free(a->v);
	free(a->specs);
	free(a->steps);
	free(a->plans);
	memset(a, 0, sizeof(*a));
}

void form_read(struct cur *c, unsigned form, int64_t implicit, const struct unitctx *u,
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
	case DW_FORM_ref_sup4:
		v->u = rd_u(c, 4); break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		v->u = rd_u(c, 8); break;
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
		form_read(c, f, implicit, u, v);
		break;
	}
	default:
		c->bad = 1; /* unknown form: the rest of the unit cannot be read */
		break;
	}
}

int form_is_addrx(unsigned form)
{
	return form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index ||
	       (form >= DW_FORM_addrx1 && form <= DW_FORM_addrx4);
}

static int is_strx(unsigned form)
{
	return form == DW_FORM_strx || form == DW_FORM_GNU_str_index ||
	       (form >= DW_FORM_strx1 && form <= DW_FORM_strx4);
}

/* Entry i of a table of n-byte entries at base in sec; 0 with *ok = 0
 * when it lies outside. */
static uint64_t table_entry(const struct sect *sec, uint64_t base, uint64_t i, unsigned n, int *ok)
{
	uint64_t off = base + i * n;
	*ok = off + n <= sec->n && off >= base;
	if (!*ok)
		return 0;
	struct cur c = cur_at(sec, off, sec->n);
	return rd_u(&c, n);
}

/* Whether entry i of the unit's address table is in .debug_addr. */
static int addrx_ok(const struct dwsects *d, const struct unitctx *u, uint64_t i)
{
	uint64_t off = u->addr_base + i * u->addrsize;
	return i < ((uint64_t)1 << 56) && off >= u->addr_base && off + u->addrsize <= d->addr.n;
}

uint64_t form_addr(const struct dwsects *d, const struct unitctx *u, const struct val *v)
{
	if (!form_is_addrx(v->form))
		return v->u;
	int ok;
	return table_entry(&d->addr, u->addr_base, v->u, u->addrsize, &ok);
}

const char *form_str(const struct dwsects *d, const struct unitctx *u, const struct val *v)
{
	uint64_t off = v->u;
	const struct sect *sec = &d->str;
	switch (v->form) {
	case DW_FORM_string:
		return v->s;
	case DW_FORM_line_strp:
		sec = &d->line_str;
		break;
	case DW_FORM_GNU_strp_alt: case DW_FORM_strp_sup:
		sec = &d->sup_str;  /* the supplementary file's (dwz) */
		break;
	case DW_FORM_strp:
		break;
	default: {
		if (!is_strx(v->form))
			return NULL;
		int ok;
		off = table_entry(&d->str_offsets, u->str_offsets_base, v->u, u->offsize, &ok);
		if (!ok)
			return NULL;
	}
	}
	if (off >= sec->n || !memchr(sec->p + off, 0, sec->n - off))
		return NULL;
	return (const char *)sec->p + off;
}

void die_skip_steps(struct cur *c, const struct abbrevs *ab, const struct abbrev *a,
		    const struct unitctx *u)
{
	if (a->fixed >= 0) {
		skip(c, (uint64_t)a->fixed);
		return;
	}
	const struct step *st = &ab->steps[a->sfirst], *end = st + a->sn;
	for (; st < end && !c->bad; st++) {
		if (st->op == STEP_SKIP) {
			skip(c, st->n);
		} else {
			struct val v;
			form_read(c, st->form, 0, u, &v);
		}
	}
}

/* A value of a subroutine DIE read by its plan from the DIE at b. */
static inline uint64_t plan_val(const struct subplan *pl, int f, const uint8_t *b)
{
	int size = pl->size[f];
	if (size == -2)
		return (uint64_t)pl->implicit[f];
	return size > 0 && size <= 8 ? le_at(b + pl->at[f], (unsigned)size) : 0;
}

void die_sub_attrs(struct cur *c, const struct abbrevs *ab, const struct abbrev *a,
		   const struct unitctx *u, uint64_t unit_off, struct die *d)
{
	if (a->plan >= 0 && (size_t)(c->end - c->p) >= (size_t)a->fixed) {
		const struct subplan *pl = &ab->plans[a->plan];
		const uint8_t *b = c->p;
		c->p += a->fixed;
		d->has = pl->has;
		d->nrefs = 0;
		d->call_file = pl->size[PLAN_CALL_FILE] ? plan_val(pl, PLAN_CALL_FILE, b) : 0;
		d->call_line = pl->size[PLAN_CALL_LINE] ? plan_val(pl, PLAN_CALL_LINE, b) : 0;
		d->call_col = pl->size[PLAN_CALL_COL] ? plan_val(pl, PLAN_CALL_COL, b) : 0;
		if (pl->size[PLAN_LOW])
			d->low = (struct val){ pl->form[PLAN_LOW], plan_val(pl, PLAN_LOW, b), NULL };
		if (pl->size[PLAN_HIGH])
			d->high = (struct val){ pl->form[PLAN_HIGH], plan_val(pl, PLAN_HIGH, b), NULL };
		if (pl->size[PLAN_RANGES])
			d->ranges = (struct val){ pl->form[PLAN_RANGES], plan_val(pl, PLAN_RANGES, b),
						  NULL };
		if (pl->size[PLAN_REF]) {
			/* as die_attrs() */
			unsigned form = pl->form[PLAN_REF];
			uint64_t v = plan_val(pl, PLAN_REF, b);
			d->nrefs = 1;
			if (form == DW_FORM_ref_sig8) {
				d->nrefs = 99;
				return;
			}
			int sup = form == DW_FORM_GNU_ref_alt || form == DW_FORM_ref_sup4 ||
				  form == DW_FORM_ref_sup8;
			d->last_ref = form == DW_FORM_ref_addr || sup ? v : unit_off + v;
			d->last_ref_sup = sup;
		}
		return;
	}
	d->has = 0;
	d->nrefs = 0;
	d->call_file = d->call_line = d->call_col = 0;
	const struct step *st = &ab->steps[a->sfirst], *end = st + a->sn;
	/* a DIE of fixed size (most inlined_subroutines): its values at
	 * known places, one bounds check */
	const uint8_t *base = NULL;
	if (a->at_fixed && (size_t)(c->end - c->p) >= (size_t)a->fixed) {
		base = c->p;
		c->p += a->fixed;
	}
	for (; st < end && !c->bad; st++) {
		if (st->op == STEP_SKIP) {
			if (!base)
				skip(c, st->n);
			continue;
		}
		struct val v;
		v.form = st->form;
		v.s = NULL;
		if (base) {
			struct cur at = { base + st->at, c->end, 0 };
			v.u = st->size > 0 ? rd_u(&at, (unsigned)st->size) : (uint64_t)st->implicit;
		} else if (st->size > 0) {
			v.u = rd_u(c, (unsigned)st->size);
		} else if (st->size == -1) {
			v.u = rd_uleb(c);
		} else if (st->size == -2) {
			v.u = (uint64_t)st->implicit;
		} else {
			form_read(c, st->form, st->implicit, u, &v);
		}
		switch (st->op) {
		case STEP_LOW: d->low = v; d->has |= DIE_HAS_LOW; break;
		case STEP_HIGH: d->high = v; d->has |= DIE_HAS_HIGH; break;
		case STEP_RANGES: d->ranges = v; d->has |= DIE_HAS_RANGES; break;
		case STEP_CALL_FILE: d->call_file = v.u; break;
		case STEP_CALL_LINE: d->call_line = v.u; break;
		case STEP_CALL_COL: d->call_col = v.u; break;
		case STEP_NAME:
			d->has |= st->which;
			break;
		case STEP_REF: {
			/* as die_attrs() */
			d->nrefs++;
			if (v.form == DW_FORM_ref_sig8) {
				d->nrefs = 99;
				break;
			}
			int sup = v.form == DW_FORM_GNU_ref_alt || v.form == DW_FORM_ref_sup4 ||
				  v.form == DW_FORM_ref_sup8;
			d->last_ref = v.form == DW_FORM_ref_addr || sup ? v.u : unit_off + v.u;
			d->last_ref_sup = sup;
			break;
		}
		default: break;
		}
	}
}

void die_attrs(struct cur *c, const struct abbrevs *ab, const struct abbrev *a,
	       const struct unitctx *u, uint64_t unit_off, struct die *d)
{
	d->has = 0;
	d->nrefs = 0;
	d->ref_sup = 0;
	d->call_file = d->call_line = d->call_col = d->stmt_list = 0;
	d->addr_base = d->rnglists_base = d->str_offsets_base = d->ranges_base = d->dwo_id = 0;
	for (uint32_t k = 0; k < a->n; k++) {
		const struct spec *sp = &ab->specs[a->first + k];
		struct val v;
		if (c->bad)
			break;
		form_read(c, sp->form, sp->implicit, u, &v);
		switch (sp->attr) {
		case DW_AT_low_pc: d->low = v; d->has |= DIE_HAS_LOW; break;
		case DW_AT_high_pc: d->high = v; d->has |= DIE_HAS_HIGH; break;
		case DW_AT_ranges: d->ranges = v; d->has |= DIE_HAS_RANGES; break;
		case DW_AT_call_file: d->call_file = v.u; break;
		case DW_AT_call_line: d->call_line = v.u; break;
		case DW_AT_call_column: d->call_col = v.u; break;
		case DW_AT_comp_dir: d->comp_dir = v; d->has |= DIE_HAS_COMP_DIR; break;
		case DW_AT_stmt_list: d->stmt_list = v.u; d->has |= DIE_HAS_STMT; break;
		case DW_AT_addr_base: d->addr_base = v.u; break;
		case DW_AT_rnglists_base: d->rnglists_base = v.u; break;
		case DW_AT_str_offsets_base: d->str_offsets_base = v.u; break;
		case DW_AT_GNU_addr_base: d->addr_base = v.u; break;
		case DW_AT_GNU_ranges_base: d->ranges_base = v.u; break;
		case DW_AT_dwo_name: case DW_AT_GNU_dwo_name:
			d->dwo_name = v;
			d->has |= DIE_HAS_DWO_NAME;
			break;
		case DW_AT_GNU_dwo_id: d->dwo_id = v.u; d->has |= DIE_HAS_DWO_ID; break;
		case DW_AT_name:
			if (!(d->has & DIE_HAS_NAME))
				d->name = v, d->has |= DIE_HAS_NAME;
			break;
		case DW_AT_linkage_name:
			if (!(d->has & DIE_HAS_LINKAGE))
				d->linkage = v, d->has |= DIE_HAS_LINKAGE;
			break;
		case DW_AT_MIPS_linkage_name:
			if (!(d->has & DIE_HAS_MIPS_LINKAGE))
				d->mips_linkage = v, d->has |= DIE_HAS_MIPS_LINKAGE;
			break;
		case DW_AT_abstract_origin: case DW_AT_specification: {
			int r = sp->attr == DW_AT_specification;
			d->nrefs++;
			if (v.form == DW_FORM_ref_sig8) {
				d->nrefs = 99; /* a type unit: not followed */
				break;
			}
			int sup = v.form == DW_FORM_GNU_ref_alt || v.form == DW_FORM_ref_sup4 ||
				  v.form == DW_FORM_ref_sup8;
			/* offsets in the supplementary file's .debug_info */
			d->last_ref = v.form == DW_FORM_ref_addr || sup ? v.u : unit_off + v.u;
			d->last_ref_sup = sup;
			if (sup || v.form == DW_FORM_ref_addr || v.form == DW_FORM_ref1 ||
			    v.form == DW_FORM_ref2 || v.form == DW_FORM_ref4 ||
			    v.form == DW_FORM_ref8 || v.form == DW_FORM_ref_udata) {
				d->ref[r] = d->last_ref;
				d->has |= r ? DIE_HAS_SPEC : DIE_HAS_ORIGIN;
				d->ref_sup = (d->ref_sup & ~(1u << r)) | (unsigned)sup << r;
			}
			break;
		}
		default: break;
		}
	}
}

static int ranges_push_slow(struct ranges *r, uint64_t lo, uint64_t hi)
{
	if (grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
		return -1;
	r->v[r->n++] = (struct range){ lo, hi };
	return 0;
}

/* [lo, hi) appended to r. -1: no memory */
static inline int ranges_push(struct ranges *r, uint64_t lo, uint64_t hi)
{
	if (r->n == r->cap)
		return ranges_push_slow(r, lo, hi);
	r->v[r->n++] = (struct range){ lo, hi };
	return 0;
}

/* An unsigned LEB128 of one or two bytes at *pp (of e - *pp >= 2), else 0
 * for the caller to read it the long way. */
static inline int uleb12(const uint8_t **pp, uint64_t *v)
{
	const uint8_t *p = *pp;
	if (p[0] < 0x80) {
		*v = p[0];
		*pp = p + 1;
		return 1;
	}
	if (p[1] < 0x80) {
		*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		*pp = p + 2;
		return 1;
	}
	return 0;
}

void ranges_budget(struct dwsects *d, struct rlbudget *b)
{
	uint64_t n = (uint64_t)d->rnglists.n + d->ranges.n;
	b->total = b->left = RANGES_BUDGET_RATIO * n + RANGES_BUDGET_FLOOR;
	d->rl = b;
}

/* How a range list is damaged (r->why); CUT, when it ends at the end of
 * what the budget left, is SPENT. */
static const char *const CUT = "cut short (no end-of-list entry)";
static const char *const TOO_MANY = "more than 1048576 entries (1 << 20)";
static const char *const SPENT =
	"the file's budget for range lists is spent (4 times the size of .debug_rnglists and .debug_ranges, plus 1 MiB): offsets that point many DIEs at one long list?";

/* Where a list at off of sec may read up to: the section's end, or less
 * when the file's budget is nearly spent. */
static uint64_t list_end(const struct dwsects *d, const struct sect *sec, uint64_t off)
{
	uint64_t end = sec->n;
	if (d->rl && d->rl->left < end - off)
		end = off + d->rl->left;
	return end;
}

/* A list read from off to at, of at most end in sec, counted against the
 * budget. @return rc */
static int list_spent(const struct dwsects *d, const struct sect *sec, uint64_t off, uint64_t at,
		      uint64_t end, int rc, struct ranges *r)
{
	if (!d->rl)
		return rc;
	d->rl->left -= at - off;
	if (rc == 1 && r->why == CUT && end < sec->n) {
		d->rl->left = 0;
		r->why = SPENT;
	}
	return rc;
}

/* A DWARF 5 range list (.debug_rnglists) from off to at most end: 1
 * damaged (an unknown entry kind, a list cut short or too long, r->why
 * says which), *at where reading stopped. */
static int rnglist_entries(const struct dwsects *d, const struct unitctx *u, uint64_t off,
			   uint64_t end, struct ranges *r, uint64_t *at)
{
	uint64_t base = u->base;
	/* most lists are offset pairs of short LEB128s from the unit's base:
	 * those read here on a bare pointer, the rest of a list below */
	const uint8_t *p = d->rnglists.p + off, *e = d->rnglists.p + end;
	*at = off;
	while (e - p >= 5) {
		const uint8_t *q = p + 1;
		uint64_t a, b;
		if (*p == DW_RLE_end_of_list) {
			*at = (uint64_t)(p + 1 - d->rnglists.p);
			return 0;
		}
		if (*p != DW_RLE_offset_pair || !uleb12(&q, &a) || !uleb12(&q, &b))
			break;
		if (r->n >= RANGES_MAX) {
			r->why = TOO_MANY;
			*at = (uint64_t)(p - d->rnglists.p);
			return 1;
		}
		if (ranges_push(r, base + a, base + b))
			return -1;
		p = q;
	}
	struct cur c = cur_at(&d->rnglists, (uint64_t)(p - d->rnglists.p), end);
	r->why = CUT;
	while (!c.bad) {
		*at = (uint64_t)(c.p - d->rnglists.p);
		unsigned kind = (unsigned)rd_u(&c, 1);
		if (c.bad)
			break;
		uint64_t a, b;
		struct val x = { DW_FORM_addrx, 0, NULL };
		switch (kind) {
		case DW_RLE_end_of_list:
			*at = (uint64_t)(c.p - d->rnglists.p);
			r->why = NULL;
			return 0;
		case DW_RLE_base_addressx:
			x.u = rd_uleb(&c);
			base = form_addr(d, u, &x);
			continue;
		case DW_RLE_startx_endx:
			x.u = rd_uleb(&c);
			a = form_addr(d, u, &x);
			x.u = rd_uleb(&c);
			b = form_addr(d, u, &x);
			break;
		case DW_RLE_startx_length:
			x.u = rd_uleb(&c);
			a = form_addr(d, u, &x);
			b = a + rd_uleb(&c);
			break;
		case DW_RLE_offset_pair:
			a = base + rd_uleb(&c);
			b = base + rd_uleb(&c);
			break;
		case DW_RLE_base_address:
			base = rd_u(&c, u->addrsize);
			continue;
		case DW_RLE_start_end:
			a = rd_u(&c, u->addrsize);
			b = rd_u(&c, u->addrsize);
			break;
		case DW_RLE_start_length:
			a = rd_u(&c, u->addrsize);
			b = a + rd_uleb(&c);
			break;
		default:
			r->why = "an unknown entry kind";
			return 1;
		}
		if (c.bad)
			break;
		if (r->n >= RANGES_MAX) {
			r->why = TOO_MANY;
			return 1;
		}
		if (ranges_push(r, a, b))
			return -1;
	}
	*at = end;
	return 1;
}

/* A DWARF 5 range list (.debug_rnglists) at off. 1: damaged, r->why
 * saying how. */
static int read_rnglist(const struct dwsects *d, const struct unitctx *u, uint64_t off,
			struct ranges *r)
{
	if (off >= d->rnglists.n) {
		r->why = "its offset lies outside .debug_rnglists";
		return 1;
	}
	uint64_t end = list_end(d, &d->rnglists, off), at;
	int rc = rnglist_entries(d, u, off, end, r, &at);
	return rc < 0 ? rc : list_spent(d, &d->rnglists, off, at, end, rc, r);
}

/* A DWARF 2-4 range list (.debug_ranges) at off, to at most end. */
static int ranges_entries(const struct dwsects *d, const struct unitctx *u, uint64_t off,
			  uint64_t end, struct ranges *r, uint64_t *at)
{
	uint64_t base = u->base;
	struct cur c = cur_at(&d->ranges, off, end);
	uint64_t maxaddr = u->addrsize == 4 ? 0xffffffffull : ~0ull;
	for (;;) {
		uint64_t a = rd_u(&c, u->addrsize), b = rd_u(&c, u->addrsize);
		if (c.bad) {
			r->why = CUT;
			*at = end;
			return 1;
		}
		*at = (uint64_t)(c.p - d->ranges.p);
		if (a == 0 && b == 0)
			return 0;
		if (a == maxaddr) {
			base = b;
			continue;
		}
		if (r->n >= RANGES_MAX) {
			r->why = TOO_MANY;
			return 1;
		}
		if (ranges_push(r, base + a, base + b))
			return -1;
	}
}

/* DW_AT_ranges: DWARF 5 range lists or DWARF 2-4 .debug_ranges. */
static int read_ranges(const struct dwsects *d, const struct unitctx *u, const struct val *v,
		       struct ranges *r)
{
	if (u->version >= 5) {
		uint64_t off = v->u;
		if (v->form == DW_FORM_rnglistx) {
			int ok;
			off = table_entry(&d->rnglists, u->rnglists_base, v->u, u->offsize, &ok);
			if (!ok) {
				r->why = "its index lies outside the offsets of .debug_rnglists";
				return 1;
			}
			off += u->rnglists_base;
		}
		return read_rnglist(d, u, off, r);
	}
	/* a GNU split unit's offsets are from its skeleton's DW_AT_GNU_ranges_base */
	uint64_t off = v->u + u->ranges_base;
	if (off >= d->ranges.n || off < v->u) {
		r->why = "its offset lies outside .debug_ranges";
		return 1;
	}
	uint64_t end = list_end(d, &d->ranges, off), at;
	int rc = ranges_entries(d, u, off, end, r, &at);
	return rc < 0 ? rc : list_spent(d, &d->ranges, off, at, end, rc, r);
}

int die_ranges(const struct dwsects *dw, const struct unitctx *u, const struct die *d,
	       struct ranges *r)
{
	r->n = 0;
	r->why = NULL;
	if ((d->has & (DIE_HAS_LOW | DIE_HAS_HIGH)) == (DIE_HAS_LOW | DIE_HAS_HIGH)) {
		/* an address index past .debug_addr: damage, or a split unit
		 * read with another build's skeleton */
		if ((form_is_addrx(d->low.form) && !addrx_ok(dw, u, d->low.u)) ||
		    (form_is_addrx(d->high.form) && !addrx_ok(dw, u, d->high.u))) {
			r->why = "an address index outside .debug_addr";
			return 1;
		}
		uint64_t lo = form_addr(dw, u, &d->low);
		int is_addr = d->high.form == DW_FORM_addr || form_is_addrx(d->high.form);
		uint64_t hi = is_addr ? form_addr(dw, u, &d->high) : lo + d->high.u;
		return ranges_push(r, lo, hi);
	}
	if (d->has & DIE_HAS_RANGES)
		return read_ranges(dw, u, &d->ranges, r);
	return 0;
}
