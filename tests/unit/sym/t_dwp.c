/*
 * lib/sym/dwp.c on hand-assembled package indexes: a DWARF 5
 * .debug_cu_index of two units in four slots (one found after a collision,
 * by the secondary hash), a GNU version 2 one whose section ids are mapped
 * to DWARF 5's, an id the package does not hold, and damage: a header cut
 * short, an unknown version, a slot count that is no power of two or runs
 * past the section, a row out of the table, a section given twice, a unit
 * without .debug_info.dwo.
 */
#include "check.h"
#include "sym/sym_internal.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* An index of 2 units, 4 slots, 3 columns (ids) at b; its size. */
static size_t make(uint8_t *b, uint32_t version, const uint32_t ids[3], uint64_t id_a,
		   uint64_t id_b)
{
	enum { NS = 4, NC = 3, NU = 2 };
	memset(b, 0, 512);
	put32(b, version);
	put32(b + 4, NC);
	put32(b + 8, NU);
	put32(b + 12, NS);
	uint8_t *sig = b + 16, *row = sig + 8 * NS, *cols = row + 4 * NS;
	uint8_t *offs = cols + 4 * NC, *sizes = offs + 4 * NC * NU;
	/* unit a in its home slot, unit b after a collision with it */
	unsigned ha = (unsigned)(id_a & (NS - 1));
	put64(sig + 8 * ha, id_a);
	put32(row + 4 * ha, 1);
	unsigned hb = (unsigned)(id_b & (NS - 1)), step = (unsigned)((id_b >> 32) & (NS - 1)) | 1;
	while (hb == ha)
		hb = (hb + step) & (NS - 1);
	put64(sig + 8 * hb, id_b);
	put32(row + 4 * hb, 2);
	for (int c = 0; c < NC; c++) {
		put32(cols + 4 * c, ids[c]);
		for (int u = 0; u < NU; u++) {
			put32(offs + 4 * (NC * u + c), (uint32_t)(0x100 * (u + 1) + c));
			put32(sizes + 4 * (NC * u + c), (uint32_t)(0x10 * (u + 1) + c));
		}
	}
	return (size_t)(sizes + 4 * NC * NU - b);
}

int main(void)
{
	uint8_t b[512];
	struct dwp_index x;
	struct dwp_unit u;
	const char *why;
	/* ids collide in the home slot (both end in 1) */
	uint64_t A = 0x1111222233330001ull, B = 0x4444555566660001ull;

	static const uint32_t v5[3] = { 1, 3, 8 };  /* info, abbrev, rnglists */
	size_t n = make(b, 5, v5, A, B);
	struct sect sec = { b, n };
	CHECK(dwp_index_read(&x, &sec) == NULL);
	CHECK_EQ(x.version, 5);
	CHECK_EQ(dwp_find(&x, A, &u, &why), 1);
	CHECK(u.has[DWP_INFO] && u.has[DWP_ABBREV] && u.has[DWP_RNGLISTS]);
	CHECK(!u.has[DWP_LINE]);
	CHECK_EQ(u.off[DWP_INFO], 0x100);
	CHECK_EQ(u.size[DWP_ABBREV], 0x11);
	CHECK_EQ(dwp_find(&x, B, &u, &why), 1);
	CHECK_EQ(u.off[DWP_RNGLISTS], 0x202);
	CHECK_EQ(u.size[DWP_INFO], 0x20);
	CHECK_EQ(dwp_find(&x, 0x77, &u, &why), 0);

	/* GNU version 2: its 6 is str_offsets too */
	static const uint32_t v2[3] = { 1, 3, 6 };
	n = make(b, 2, v2, A, B);
	sec.n = n;
	CHECK(dwp_index_read(&x, &sec) == NULL);
	CHECK_EQ(dwp_find(&x, B, &u, &why), 1);
	CHECK(u.has[DWP_STR_OFFSETS]);
	CHECK_EQ(u.off[DWP_STR_OFFSETS], 0x202);

	/* damaged headers */
	n = make(b, 5, v5, A, B);
	sec.n = 12;
	CHECK_STR(dwp_index_read(&x, &sec), "index header cut");
	sec.n = n - 1;
	CHECK_STR(dwp_index_read(&x, &sec), "tables run past the end of the section");
	sec.n = n;
	put32(b, 3);
	CHECK_STR(dwp_index_read(&x, &sec), "unknown index version");
	put32(b, 5);
	put32(b + 12, 3);
	CHECK_STR(dwp_index_read(&x, &sec), "slot count not a power of two");
	put32(b + 12, 1u << 30);
	CHECK_STR(dwp_index_read(&x, &sec), "tables run past the end of the section");
	put32(b + 12, 4);
	put32(b + 8, 9);
	CHECK_STR(dwp_index_read(&x, &sec), "more units than slots");

	/* damaged entries */
	n = make(b, 5, v5, A, B);
	CHECK(dwp_index_read(&x, &sec) == NULL);
	put32(b + 16 + 8 * 4 + 4 * (unsigned)(A & 3), 7);  /* row 7 of 2 */
	CHECK_EQ(dwp_find(&x, A, &u, &why), -1);
	CHECK_STR(why, "a unit's row is out of the table");
	static const uint32_t twice[3] = { 1, 3, 3 };
	make(b, 5, twice, A, B);
	CHECK(dwp_index_read(&x, &sec) == NULL);
	CHECK_EQ(dwp_find(&x, A, &u, &why), -1);
	CHECK_STR(why, "a section appears twice");
	static const uint32_t noinfo[3] = { 4, 3, 8 };
	make(b, 5, noinfo, A, B);
	CHECK(dwp_index_read(&x, &sec) == NULL);
	CHECK_EQ(dwp_find(&x, B, &u, &why), -1);
	CHECK_STR(why, "a unit without .debug_info.dwo or .debug_abbrev.dwo");

	/* every slot full of other ids: the probe ends */
	make(b, 5, v5, A, B);
	for (unsigned k = 0; k < 4; k++) {
		put64(b + 16 + 8 * k, 0x9000 + k);
		put32(b + 16 + 32 + 4 * k, 1);
	}
	CHECK(dwp_index_read(&x, &sec) == NULL);
	CHECK_EQ(dwp_find(&x, A, &u, &why), 0);
	return CHECK_DONE();
}
