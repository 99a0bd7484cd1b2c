/*
 * dwarf_form.h - what dwarf_form.c does for the DWARF readers: abbreviation
 * tables, attribute values by form, a DIE's attributes and address ranges
 * (the structs are sym_internal.h's, shared with the rest of lib/sym).
 */
#ifndef PROFEV_SYM_DWARF_FORM_H
#define PROFEV_SYM_DWARF_FORM_H

#include "sym/sym_internal.h"

/* Make a hold the table at off. @return 0, -1 if it cannot be read. */
int abbrevs_use(struct abbrevs *a, const struct sect *sec, uint64_t off, const struct unitctx *u);
void abbrevs_release(struct abbrevs *a);

void form_read(struct cur *c, unsigned form, int64_t implicit, const struct unitctx *u,
	       struct val *v);
int form_is_addrx(unsigned form);
/* The address a DW_FORM_addr or addrx value stands for, 0 if out of range. */
uint64_t form_addr(const struct dwsects *d, const struct unitctx *u, const struct val *v);
/* The string a string form stands for, NULL if none or out of range. */
const char *form_str(const struct dwsects *d, const struct unitctx *u, const struct val *v);

/*
 * A DIE starts with its abbreviation code. @return 1 with *a set, 0 at the
 * end of a sibling list (code 0), -1 for a code the table does not have.
 */
static inline int die_begin(struct cur *c, const struct abbrevs *ab, const struct abbrev **a)
{
	uint64_t code = rd_uleb(c);
	if (code == 0)
		return 0;
	if (code >= ab->n || !ab->v[code].tag)
		return -1;
	*a = &ab->v[code];
	return 1;
}

void die_skip_steps(struct cur *c, const struct abbrevs *ab, const struct abbrev *a,
		    const struct unitctx *u);
/* Past the attributes of a DIE whose values are not needed. */
static inline void die_skip(struct cur *c, const struct abbrevs *ab, const struct abbrev *a,
			    const struct unitctx *u)
{
	if (a->fixed >= 0 && (size_t)(c->end - c->p) >= (size_t)a->fixed)
		c->p += a->fixed;
	else
		die_skip_steps(c, ab, a, u);
}

/* The attributes of a DIE of the unit at unit_off into *d. */
void die_attrs(struct cur *c, const struct abbrevs *ab, const struct abbrev *a,
	       const struct unitctx *u, uint64_t unit_off, struct die *d);

/* The same for a subprogram or inlined_subroutine DIE, faster, setting
 * only what die_ranges() and the subroutine table use: has (low, high,
 * ranges; a name by its bit alone), call_file, call_line, call_col,
 * nrefs, last_ref, last_ref_sup. */
void die_sub_attrs(struct cur *c, const struct abbrevs *ab, const struct abbrev *a,
		   const struct unitctx *u, uint64_t unit_off, struct die *d);

/* d's range lists limited by b (struct rlbudget), from their sections'
 * sizes now. */
void ranges_budget(struct dwsects *d, struct rlbudget *b);

/* DWARFDie::getAddressRanges: low/high first, else DW_AT_ranges (relative
 * to u->base), into r, emptied first. @return 0, -1 when out of memory, 1
 * when the range list is damaged, r->why saying how (outside its section,
 * cut, an unknown entry kind, too long, the file's budget spent). */
int die_ranges(const struct dwsects *dw, const struct unitctx *u, const struct die *d,
	       struct ranges *r);

#endif
