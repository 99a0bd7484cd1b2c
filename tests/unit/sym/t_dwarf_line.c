/*
 * lib/sym/dwarf_line.c on a hand-assembled DWARF 4 line program: the
 * directory and file tables, standard, extended and special opcodes, two
 * sequences out of address order, the row each address gets (none past a
 * sequence's end or between sequences), paths joined with the unit's
 * directory, and damage: a header cut short, a lying length, a last
 * sequence without its end, addresses going backwards and a file index
 * past the table are refused with what is wrong.
 */
#include "check.h"
#include "sym/sym_internal.h"

static const uint8_t prog[] = {
	0, 0, 0, 0,                       /* unit_length, set below */
	4, 0,                             /* version */
	0, 0, 0, 0,                       /* header_length, set below */
	1, 1, 1, (uint8_t)-5, 14, 13,     /* min_inst, max_ops, is_stmt, base, range, opcode_base */
	0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1,
	'i', 'n', 'c', 0, 0,              /* include_directories */
	'a', '.', 'c', 0, 1, 0, 0,        /* file 1 in dir 1 */
	'/', 'a', 'b', 's', '/', 'b', '.', 'h', 0, 0, 0, 0,
	0,
	/* the program */
	0, 9, DW_LNE_set_address, 0x00, 0x10, 0, 0, 0, 0, 0, 0,
	DW_LNS_advance_line, 9, DW_LNS_copy,                       /* 0x1000 line 10 */
	DW_LNS_advance_pc, 4, DW_LNS_set_column, 3, DW_LNS_advance_line, 2,
	DW_LNS_copy,                                               /* 0x1004 line 12:3 */
	DW_LNS_set_file, 2, 75,                                    /* 0x1008 line 13 */
	DW_LNS_advance_pc, 8, 0, 1, DW_LNE_end_sequence,           /* end 0x1010 */
	0, 9, DW_LNE_set_address, 0x00, 0x08, 0, 0, 0, 0, 0, 0,
	DW_LNS_copy,                                               /* 0x800 line 1 */
	DW_LNS_advance_pc, 0x10, 0, 1, DW_LNE_end_sequence,        /* end 0x810 */
};

/* the header after header_length: 6 fields, 12 opcode lengths, the
 * directory table (5 bytes) and the file table (7 + 12 + 1) */
#define HEADER_LEN 43

/* where the tables' checkpoints go, and file names */
static struct arena arena;

static void load(struct lines *l, uint8_t *b, size_t n)
{
	b[0] = (uint8_t)(n - 4);
	b[6] = HEADER_LEN;
	struct dwsects d = { .line = { b, n } };
	struct unitctx u = { .version = 4, .offsize = 4, .addrsize = 8 };
	memset(l, 0, sizeof(*l));
	const char *why = "unset";
	CHECK_EQ(lines_load(l, &arena, &d, &u, 0, &why), 0);
	CHECK(why == NULL);
}

/* prog with byte at changed to v (or cut to n bytes, the length kept):
 * refused, saying why contains want */
static void refused(size_t at, uint8_t v, size_t n, const char *want)
{
	uint8_t b[sizeof(prog)];
	memcpy(b, prog, sizeof(b));
	b[0] = (uint8_t)(sizeof(b) - 4);
	b[6] = HEADER_LEN;
	if (at < sizeof(b))
		b[at] = v;
	struct dwsects d = { .line = { b, n } };
	struct unitctx u = { .version = 4, .offsize = 4, .addrsize = 8 };
	struct lines l;
	memset(&l, 0, sizeof(l));
	const char *why = NULL;
	CHECK_EQ(lines_load(&l, &arena, &d, &u, 0, &why), 1);
	CHECK(why && strstr(why, want));
	if (why && !strstr(why, want))
		fprintf(stderr, "byte %zu = %u, %zu bytes: '%s', expected '%s'\n", at, v, n, why, want);
	lines_release(&l);
}

int main(void)
{
	uint8_t b[sizeof(prog)];
	memcpy(b, prog, sizeof(b));
	struct lines l;
	load(&l, b, sizeof(b));
	CHECK_EQ(prog[10 + HEADER_LEN + 2], DW_LNE_set_address);
	CHECK(l.has_lines);
	CHECK_EQ(l.nfiles, 2);
	CHECK_EQ(l.ndirs, 1);
	CHECK_EQ(l.nseqs, 2);
	CHECK_EQ(l.seqs[0].lo, 0x800); /* sorted by end address */

	const struct row *r = lines_find_row(&l, 0x1006);
	CHECK(r && r->addr == 0x1004 && r->line == 12 && r->col == 3 && r->file == 1);
	r = lines_find_row(&l, 0x100f);
	CHECK(r && r->line == 13 && r->file == 2);
	r = lines_find_row(&l, 0x1000);
	CHECK(r && r->line == 10);
	r = lines_find_row(&l, 0x805);
	CHECK(r && r->line == 1);
	CHECK(lines_find_row(&l, 0x1010) == NULL);
	CHECK(lines_find_row(&l, 0x900) == NULL);
	CHECK(lines_find_row(&l, 0x10) == NULL);

	CHECK_STR(lines_file_name(&l, &arena, "/src", 1), "/src/inc/a.c");
	CHECK_STR(lines_file_name(&l, &arena, "/src", 1), "/src/inc/a.c");
	CHECK_STR(lines_file_name(&l, &arena, "/src", 2), "/abs/b.h");
	CHECK(lines_file_name(&l, &arena, "/src", 0) == NULL);  /* DWARF 4 counts from 1 */
	CHECK(lines_file_name(&l, &arena, "/src", 3) == NULL);
	lines_release(&l);

	/* cut inside the header: no lines, no crash */
	for (size_t n = 5; n < 60; n += 3) {
		memcpy(b, prog, sizeof(b));
		struct dwsects d = { .line = { b, n } };
		struct unitctx u = { .version = 4, .offsize = 4, .addrsize = 8 };
		b[0] = (uint8_t)(sizeof(b) - 4);
		b[6] = HEADER_LEN;
		memset(&l, 0, sizeof(l));
		const char *why = NULL;
		CHECK_EQ(lines_load(&l, &arena, &d, &u, 0, &why), 1);
		CHECK(why != NULL);
		lines_release(&l);
	}
	/* what a flipped byte or a lying size leaves detectable */
	size_t P = 10 + HEADER_LEN;                     /* the program */
	refused(0, 0xff, sizeof(prog), "past the end of the section");
	refused(6, 0xf0, sizeof(prog), "header length");
	refused(4, 9, sizeof(prog), "unknown version");
	refused(~(size_t)0, 0, sizeof(prog) - 3, "past the end of the section");
	refused(P + 22, 7, sizeof(prog), "file index");  /* set_file 7 */
	refused(P + 1, 0x7f, sizeof(prog), "extended opcode");
	/* the first sequence's end_sequence becomes an unknown extended
	 * opcode: the second set_address then goes back from 0x1010 to 0x800 */
	refused(P + 28, 0x80, sizeof(prog), "decrease");
	refused(sizeof(prog) - 1, 0x80, sizeof(prog), "no end");
	arena_free(&arena);
	return CHECK_DONE();
}
