/*
 * sym/dwp.c - the unit index of a split DWARF package (.dwp, made by
 * llvm-dwp or binutils' dwp from .dwo files): .debug_cu_index, in its
 * DWARF 5 form (version 5) or the GNU pre-standard one (version 2, DWARF 4
 * packages). It maps each unit's DWO id to where the unit's contribution
 * to each section of the package starts, and its size (DWARF 5, 7.3.5).
 *
 *   header      version (2 bytes + 2 padding in DWARF 5; 4 in version 2),
 *               section count C, unit count U, slot count S (4 bytes each)
 *   hash table  S 8-byte DWO ids, then S 4-byte rows (1-based; 0: empty)
 *   offsets     C section ids (DW_SECT_*), then U rows of C 4-byte offsets
 *   sizes       U rows of C 4-byte sizes
 *
 * Every count is checked against the section before any table is read,
 * and every lookup probes at most S slots, so a damaged index is refused
 * rather than read past its end or looped over.
 */
#include "sym/sym_internal.h"

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

const char *dwp_index_read(struct dwp_index *x, const struct sect *sec)
{
	memset(x, 0, sizeof(*x));
	if (sec->n < 16)
		return "index header cut";
	uint32_t version = (uint32_t)le(sec->p, 4);
	if ((version & 0xffff) == 5)
		x->version = 5;
	else if (version == 2)
		x->version = 2;
	else
		return "unknown index version";
	x->ncols = (unsigned)le(sec->p + 4, 4);
	x->nunits = (uint32_t)le(sec->p + 8, 4);
	x->nslots = (uint32_t)le(sec->p + 12, 4);
	if (x->nunits && (x->ncols == 0 || x->ncols > 16))
		return "section count out of range";
	if (x->nslots & (x->nslots - 1))
		return "slot count not a power of two";
	if (x->nunits > x->nslots)
		return "more units than slots";
	uint64_t need = 16 + (uint64_t)x->nslots * 12 +
			(uint64_t)x->ncols * 4 * (1 + 2 * (uint64_t)x->nunits);
	if (need > sec->n)
		return "tables run past the end of the section";
	x->ids = sec->p + 16;
	x->rows = x->ids + (size_t)x->nslots * 8;
	x->cols = x->rows + (size_t)x->nslots * 4;
	x->offs = x->cols + (size_t)x->ncols * 4;
	x->sizes = x->offs + (size_t)x->ncols * 4 * x->nunits;
	return NULL;
}

/* A column's DW_SECT_ id as DWARF 5 numbers it; 0 for what is not read. */
static unsigned sect_id(const struct dwp_index *x, unsigned col)
{
	unsigned id = (unsigned)le(x->cols + 4 * col, 4);
	if (x->version == 5)
		return id < DWP_NSECT && id != 2 ? id : 0;
	switch (id) { /* GNU version 2 */
	case 1: return DWP_INFO;
	case 3: return DWP_ABBREV;
	case 4: return DWP_LINE;
	case 5: return DWP_LOCLISTS;  /* .debug_loc.dwo */
	case 6: return DWP_STR_OFFSETS;
	case 8: return DWP_MACRO;
	default: return 0;            /* types, macinfo */
	}
}

int dwp_find(const struct dwp_index *x, uint64_t id, struct dwp_unit *u, const char **why)
{
	memset(u, 0, sizeof(*u));
	*why = NULL;
	if (x->nslots == 0)
		return 0;
	uint32_t mask = x->nslots - 1;
	uint32_t h = (uint32_t)id & mask, step = ((uint32_t)(id >> 32) & mask) | 1;
	for (uint32_t probes = 0; probes < x->nslots; probes++, h = (h + step) & mask) {
		uint64_t sig = le(x->ids + 8 * (size_t)h, 8);
		uint32_t row = (uint32_t)le(x->rows + 4 * (size_t)h, 4);
		if (row == 0 && sig == 0)
			return 0;
		if (sig != id)
			continue;
		if (row == 0 || row > x->nunits) {
			*why = "a unit's row is out of the table";
			return -1;
		}
		size_t at = (size_t)(row - 1) * x->ncols * 4;
		for (unsigned k = 0; k < x->ncols; k++) {
			unsigned s = sect_id(x, k);
			if (!s)
				continue;
			if (u->has[s]) {
				*why = "a section appears twice";
				return -1;
			}
			u->has[s] = 1;
			u->off[s] = le(x->offs + at + 4 * k, 4);
			u->size[s] = le(x->sizes + at + 4 * k, 4);
		}
		if (!u->has[DWP_INFO] || !u->has[DWP_ABBREV]) {
			*why = "a unit without .debug_info.dwo or .debug_abbrev.dwo";
			return -1;
		}
		return 1;
	}
	return 0;
}
