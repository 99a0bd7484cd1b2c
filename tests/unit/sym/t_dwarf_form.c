/*
 * lib/sym/dwarf_form.c on hand-assembled DWARF: LEB128 and cut reads, an
 * abbreviation table (fixed sizes, implicit_const), every class of form,
 * a DIE's attributes (names, references, call sites), the address and
 * string indirections of DWARF 5 and both kinds of range list.
 */
#include "check.h"
#include "sym/dwarf_form.h"

static void check_reads(void)
{
	static const uint8_t b[] = { 0xe5, 0x8e, 0x26, 0x7f, 0x80, 0x7f, 0x34, 0x12, 'h', 'i', 0, 0x80 };
	struct sect s = { b, sizeof(b) };
	struct cur c = cur_at(&s, 0, sizeof(b));
	CHECK_EQ(rd_uleb(&c), 624485);
	CHECK_EQ(rd_sleb(&c), -1);
	CHECK_EQ(rd_sleb(&c), -128);
	CHECK_EQ(rd_u(&c, 2), 0x1234);
	CHECK_STR(rd_cstr(&c), "hi");
	CHECK(!c.bad);
	rd_uleb(&c); /* 0x80 and then the end: cut */
	CHECK(c.bad);
	c = cur_at(&s, 10, sizeof(b));
	CHECK_EQ(rd_u(&c, 4), 0);
	CHECK(c.bad && c.p == c.end);
	/* a 64-bit DWARF unit length that does not fit */
	static const uint8_t l[] = { 0xff, 0xff, 0xff, 0xff, 9, 0, 0, 0, 0, 0, 0, 0, 1 };
	struct sect ls = { l, sizeof(l) };
	unsigned offsize = 0;
	c = cur_at(&ls, 0, sizeof(l));
	CHECK_EQ(rd_unit_length(&c, &offsize), -1);
	CHECK_EQ(offsize, 8);
}

/* .debug_abbrev: 1 subprogram (children) name:strp low:addr high:data4
 *                   origin:ref4 call_line:implicit_const 42
 *                2 variable (no children) name:string  */
static const uint8_t abbrev[] = {
	1, DW_TAG_subprogram, 1,
	DW_AT_name, DW_FORM_strp, DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data4,
	DW_AT_abstract_origin, DW_FORM_ref4, DW_AT_call_line, DW_FORM_implicit_const, 42,
	0, 0,
	2, DW_TAG_variable, 0, DW_AT_name, DW_FORM_string, 0, 0,
	0,
};

static void check_abbrevs_and_dies(void)
{
	struct unitctx u = { .version = 5, .offsize = 4, .addrsize = 8 };
	struct sect as = { abbrev, sizeof(abbrev) };
	struct abbrevs ab = { 0 };
	CHECK_EQ(abbrevs_use(&ab, &as, 0, &u), 0);
	CHECK_EQ(ab.n, 3);
	CHECK_EQ(ab.v[1].tag, DW_TAG_subprogram);
	CHECK_EQ(ab.v[1].children, 1);
	CHECK_EQ(ab.v[1].n, 5);
	CHECK_EQ(ab.v[1].fixed, 4 + 8 + 4 + 4 + 0);
	CHECK_EQ(ab.v[2].fixed, -1);
	CHECK_EQ(abbrevs_use(&ab, &as, sizeof(abbrev) + 5, &u), -1);
	CHECK_EQ(abbrevs_use(&ab, &as, 0, &u), 0);

	static const uint8_t str[] = "\0main";
	static const uint8_t info[] = {
		1, 1, 0, 0, 0,  0x00, 0x10, 0, 0, 0, 0, 0, 0,  0x20, 0, 0, 0,  0x30, 0, 0, 0,
		2, 'x', 0,
		0,
		9,
	};
	struct sect is = { info, sizeof(info) };
	struct cur c = cur_at(&is, 0, sizeof(info));
	const struct abbrev *a;
	struct die d;
	CHECK_EQ(die_begin(&c, &ab, &a), 1);
	die_attrs(&c, &ab, a, &u, 0x100, &d);
	CHECK(!c.bad);
	CHECK(d.has & DIE_HAS_NAME && d.has & DIE_HAS_LOW && d.has & DIE_HAS_HIGH);
	CHECK(d.has & DIE_HAS_ORIGIN && !(d.has & DIE_HAS_SPEC));
	CHECK_EQ(d.ref[0], 0x130);
	CHECK_EQ(d.nrefs, 1);
	CHECK_EQ(d.call_line, 42);
	struct dwsects dw = { .str = { str, sizeof(str) } };
	CHECK_STR(form_str(&dw, &u, &d.name), "main");
	struct ranges r = { 0 };
	CHECK_EQ(die_ranges(&dw, &u, &d, &r), 0);
	CHECK_EQ(r.n, 1);
	CHECK_EQ(r.v[0].lo, 0x1000);
	CHECK_EQ(r.v[0].hi, 0x1020);
	CHECK_EQ(die_begin(&c, &ab, &a), 1);
	CHECK_EQ(a->tag, DW_TAG_variable);
	die_skip(&c, &ab, a, &u);
	CHECK(!c.bad);
	CHECK_EQ(die_begin(&c, &ab, &a), 0);      /* end of children */
	CHECK_EQ(die_begin(&c, &ab, &a), -1);     /* code 9: not in the table */
	free(r.v);
	abbrevs_release(&ab);
}

static void check_forms(void)
{
	struct unitctx u = { .version = 5, .offsize = 4, .addrsize = 8, .addr_base = 8,
			     .str_offsets_base = 8 };
	/* .debug_addr: header 8 bytes, then 0x4000, 0x5000 */
	static const uint8_t addr[] = { 0, 0, 0, 0, 0, 0, 0, 0,
					0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x50, 0, 0, 0, 0, 0, 0 };
	static const uint8_t str[] = "a\0bc";
	static const uint8_t stroff[] = { 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0 };
	struct dwsects dw = { .addr = { addr, sizeof(addr) }, .str = { str, sizeof(str) },
			      .str_offsets = { stroff, sizeof(stroff) } };
	static const uint8_t b[] = {
		1,                    /* addrx1 -> 0x5000 */
		0,                    /* strx1 -> "bc" */
		3, 1, 2, 3,           /* block1 of 3 */
		0x7e,                 /* sdata -2 */
		DW_FORM_data2, 7, 0,  /* indirect data2 */
		9,                    /* addrx1 out of the table */
	};
	struct sect bs = { b, sizeof(b) };
	struct cur c = cur_at(&bs, 0, sizeof(b));
	struct val v;
	form_read(&c, DW_FORM_addrx1, 0, &u, &v);
	CHECK_EQ(form_addr(&dw, &u, &v), 0x5000);
	form_read(&c, DW_FORM_strx1, 0, &u, &v);
	CHECK_STR(form_str(&dw, &u, &v), "bc");
	form_read(&c, DW_FORM_block1, 0, &u, &v);
	form_read(&c, DW_FORM_sdata, 0, &u, &v);
	CHECK_EQ((int64_t)v.u, -2);
	form_read(&c, DW_FORM_indirect, 0, &u, &v);
	CHECK_EQ(v.form, DW_FORM_data2);
	CHECK_EQ(v.u, 7);
	form_read(&c, DW_FORM_addrx1, 0, &u, &v);
	CHECK_EQ(form_addr(&dw, &u, &v), 0);
	CHECK(!c.bad && c.p == c.end);
	form_read(&c, 0x7777, 0, &u, &v);       /* unknown form */
	CHECK(c.bad);
	v = (struct val){ DW_FORM_strp, 100, NULL };
	CHECK(form_str(&dw, &u, &v) == NULL);
}

static void check_ranges(void)
{
	/* DWARF 4 .debug_ranges: base selection, a pair, the end */
	static const uint8_t r4[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0x10, 0, 0, 0, 0, 0, 0,
		0x10, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct unitctx u4 = { .version = 4, .offsize = 4, .addrsize = 8, .base = 0x500 };
	struct dwsects dw = { .ranges = { r4, sizeof(r4) } };
	struct die d = { .has = DIE_HAS_RANGES, .ranges = { DW_FORM_sec_offset, 0, NULL } };
	struct ranges r = { 0 };
	CHECK_EQ(die_ranges(&dw, &u4, &d, &r), 0);
	CHECK_EQ(r.n, 1);
	CHECK_EQ(r.v[0].lo, 0x1010);
	CHECK_EQ(r.v[0].hi, 0x1020);
	/* DWARF 5 .debug_rnglists through rnglistx: offset_pair from the
	 * unit's base, start_length, end */
	static const uint8_t r5[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* header (not read) */
		4, 0, 0, 0,                           /* offsets[0] = 4 */
		DW_RLE_offset_pair, 0x10, 0x18,
		DW_RLE_start_length, 0, 0x30, 0, 0, 0, 0, 0, 0, 0x08,
		DW_RLE_end_of_list,
	};
	struct unitctx u5 = { .version = 5, .offsize = 4, .addrsize = 8, .base = 0x2000,
			      .rnglists_base = 12 };
	dw.rnglists = (struct sect){ r5, sizeof(r5) };
	d.ranges = (struct val){ DW_FORM_rnglistx, 0, NULL };
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 0);
	CHECK_EQ(r.n, 2);
	CHECK_EQ(r.v[0].lo, 0x2010);
	CHECK_EQ(r.v[0].hi, 0x2018);
	CHECK_EQ(r.v[1].lo, 0x3000);
	CHECK_EQ(r.v[1].hi, 0x3008);
	/* an index past the offsets table, an unknown entry kind, a list
	 * without its end: damaged */
	d.ranges.u = 5;
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 1);
	CHECK_EQ(r.n, 0);
	uint8_t bad5[sizeof(r5)];
	memcpy(bad5, r5, sizeof(r5));
	bad5[16] = 0x33;
	dw.rnglists = (struct sect){ bad5, sizeof(bad5) };
	d.ranges.u = 0;
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 1);
	dw.rnglists = (struct sect){ r5, sizeof(r5) - 1 };
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 1);
	dw.ranges = (struct sect){ r4, sizeof(r4) - 8 };
	d.ranges = (struct val){ DW_FORM_sec_offset, 0, NULL };
	CHECK_EQ(die_ranges(&dw, &u4, &d, &r), 1);
	free(r.v);
}

/* A file's budget for range lists: each list read counts its bytes; the
 * list that would read past what is left is refused as spent, and so is
 * every one after it. */
static void check_ranges_budget(void)
{
	static const uint8_t r5[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* header (not read) */
		DW_RLE_offset_pair, 0x10, 0x18, DW_RLE_end_of_list,
	};
	struct unitctx u5 = { .version = 5, .offsize = 4, .addrsize = 8, .base = 0x2000 };
	struct dwsects dw = { .rnglists = { r5, sizeof(r5) } };
	struct rlbudget b;
	ranges_budget(&dw, &b);
	CHECK(dw.rl == &b);
	CHECK_EQ(b.total, 4 * sizeof(r5) + (1 << 20));
	CHECK_EQ(b.left, b.total);
	struct die d = { .has = DIE_HAS_RANGES, .ranges = { DW_FORM_sec_offset, 12, NULL } };
	struct ranges r = { 0 };
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 0);
	CHECK_EQ(r.n, 1);
	CHECK(r.why == NULL);
	CHECK_EQ(b.left, b.total - 4);
	/* 4 bytes left: the list is read once more, then refused */
	b.left = 4;
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 0);
	CHECK_EQ(b.left, 0);
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 1);
	CHECK(r.why && strstr(r.why, "budget for range lists is spent"));
	b.left = 3;
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 1);
	CHECK(r.why && strstr(r.why, "budget for range lists is spent"));
	CHECK_EQ(b.left, 0);
	/* a list that is damaged of itself says so, budget or not */
	b.left = 100;
	d.ranges.u = sizeof(r5);
	CHECK_EQ(die_ranges(&dw, &u5, &d, &r), 1);
	CHECK_STR(r.why, "its offset lies outside .debug_rnglists");
	free(r.v);
}

int main(void)
{
	check_reads();
	check_abbrevs_and_dies();
	check_forms();
	check_ranges();
	check_ranges_budget();
	return CHECK_DONE();
}
