/* lib/unwind/cfi.c: the rules of hand-made .eh_frame and .debug_frame
 * tables at each pc, the .eh_frame_hdr search against a scan, this
 * program's own tables, and cut or mutated tables (no read out of bounds:
 * each is copied into a buffer of its exact size for ASan to watch). */
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "unwind/cfi.h"

struct bytes {
	unsigned char b[512];
	size_t n;
};

static void put(struct bytes *o, const void *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}
static void u8(struct bytes *o, unsigned v) { unsigned char c = (unsigned char)v; put(o, &c, 1); }
static void u32(struct bytes *o, uint32_t v) { put(o, &v, 4); }
static void u64(struct bytes *o, uint64_t v) { put(o, &v, 8); }
static void set32(struct bytes *o, size_t at, uint32_t v) { memcpy(o->b + at, &v, 4); }

#define SEC_ADDR 0x1000u
#define FN 0x5000u
#define FN_LEN 0x40u
#define FN2 0x6000u

/* The instructions of a function with a frame-pointer prologue at FN:
 * push rbp (1 byte), mov rsp,rbp (3), ten bytes of body, leave. */
static void fde_insns(struct bytes *o)
{
	u8(o, 0x41);              /* advance_loc 1 */
	u8(o, 0x0e); u8(o, 16);   /* def_cfa_offset 16 */
	u8(o, 0x86); u8(o, 2);    /* offset rbp, cfa-16 */
	u8(o, 0x43);              /* advance_loc 3 */
	u8(o, 0x0d); u8(o, 6);    /* def_cfa_register rbp */
	u8(o, 0x4a);              /* advance_loc 10 */
	u8(o, 0x0c); u8(o, 7); u8(o, 8); /* def_cfa rsp+8 */
	u8(o, 0xc6);              /* restore rbp */
}

/* .eh_frame: a CIE "zR" (pc-relative sdata4 pointers), the FDE above, an
 * FDE of FN2 whose return address is undefined (the outermost frame), one
 * of FN2 + 0x100 with an expression, and the terminator. *fdes gets the
 * FDEs' offsets. */
static void eh_frame(struct bytes *o, size_t fdes[3])
{
	o->n = 0;
	size_t cie = o->n;
	u32(o, 0); u32(o, 0); u8(o, 1); put(o, "zR", 3);
	u8(o, 1); u8(o, 0x78); u8(o, 16); u8(o, 1); u8(o, 0x1b);
	u8(o, 0x0c); u8(o, 7); u8(o, 8); /* def_cfa rsp+8 */
	u8(o, 0x90); u8(o, 1);           /* offset ra, cfa-8 */
	while ((o->n - cie) % 8 != 4) u8(o, 0);
	set32(o, cie, (uint32_t)(o->n - cie - 4));
	static const uint32_t start[3] = { FN, FN2, FN2 + 0x100 };
	for (int k = 0; k < 3; k++) {
		size_t f = fdes[k] = o->n;
		u32(o, 0);
		u32(o, (uint32_t)(o->n - cie));               /* back to the CIE */
		u32(o, (uint32_t)(start[k] - (SEC_ADDR + o->n))); /* pc-relative */
		u32(o, FN_LEN);
		u8(o, 0);                                     /* no augmentation data */
		if (k == 0) {
			fde_insns(o);
		} else if (k == 1) {
			u8(o, 0x07); u8(o, 16);               /* undefined ra */
		} else {
			u8(o, 0x41);
			u8(o, 0x0f); u8(o, 2); u8(o, 0x77); u8(o, 8); /* def_cfa_expression */
		}
		while ((o->n - f) % 8 != 4) u8(o, 0);
		set32(o, f, (uint32_t)(o->n - f - 4));
	}
	u32(o, 0);
}

/* .eh_frame_hdr at hdr_addr for the section at SEC_ADDR. */
static void eh_frame_hdr(struct bytes *o, uint64_t hdr_addr, const size_t fdes[3])
{
	o->n = 0;
	u8(o, 1); u8(o, 0x1b); u8(o, 0x03); u8(o, 0x3b);
	u32(o, (uint32_t)(SEC_ADDR - (hdr_addr + o->n)));
	u32(o, 3);
	static const uint32_t start[3] = { FN, FN2, FN2 + 0x100 };
	for (int k = 0; k < 3; k++) {
		u32(o, (uint32_t)(start[k] - hdr_addr));
		u32(o, (uint32_t)(SEC_ADDR + fdes[k] - hdr_addr));
	}
}

static void check_fn_rules(const struct cfi_section *s, uint64_t fde)
{
	struct cfi_rule r;
	/* entry: CFA rsp+8, rbp kept */
	CHECK_EQ(cfi_rule_at(s, fde, FN, &r), 0);
	CHECK(!r.cfa_fp && r.cfa_off == 8 && !r.fp_saved && !r.end);
	/* after push rbp */
	CHECK_EQ(cfi_rule_at(s, fde, FN + 1, &r), 0);
	CHECK(!r.cfa_fp && r.cfa_off == 16 && r.fp_saved && r.fp_off == -16);
	CHECK_EQ(cfi_rule_at(s, fde, FN + 3, &r), 0);
	CHECK(!r.cfa_fp && r.cfa_off == 16);
	/* after mov rsp,rbp */
	CHECK_EQ(cfi_rule_at(s, fde, FN + 4, &r), 0);
	CHECK(r.cfa_fp && r.cfa_off == 16 && r.fp_saved && r.fp_off == -16);
	CHECK_EQ(cfi_rule_at(s, fde, FN + 13, &r), 0);
	CHECK(r.cfa_fp);
	/* after leave: back to the entry's rule, rbp restored */
	CHECK_EQ(cfi_rule_at(s, fde, FN + 14, &r), 0);
	CHECK(!r.cfa_fp && r.cfa_off == 8 && !r.fp_saved);
	CHECK_EQ(cfi_rule_at(s, fde, FN + FN_LEN - 1, &r), 0);
	/* outside the FDE */
	CHECK_EQ(cfi_rule_at(s, fde, FN + FN_LEN, &r), -1);
	CHECK_EQ(cfi_rule_at(s, fde, FN - 1, &r), -1);
}

static void test_eh_frame(void)
{
	struct bytes f, h;
	size_t fdes[3];
	eh_frame(&f, fdes);
	struct cfi_section s = { f.b, f.n, SEC_ADDR, 0 };
	check_fn_rules(&s, SEC_ADDR + fdes[0]);
	struct cfi_rule r;
	CHECK_EQ(cfi_rule_at(&s, SEC_ADDR + fdes[1], FN2 + 5, &r), 0);
	CHECK(r.end);
	CHECK_EQ(cfi_rule_at(&s, SEC_ADDR + fdes[2], FN2 + 0x100, &r), 0); /* before the expression */
	CHECK_EQ(cfi_rule_at(&s, SEC_ADDR + fdes[2], FN2 + 0x101, &r), -1);
	/* a CIE is no FDE; an address outside the section is nothing */
	CHECK_EQ(cfi_rule_at(&s, SEC_ADDR, FN, &r), -1);
	CHECK_EQ(cfi_rule_at(&s, SEC_ADDR + f.n, FN, &r), -1);
	CHECK_EQ(cfi_rule_at(&s, SEC_ADDR - 4, FN, &r), -1);

	/* The header finds the same FDEs, and its .eh_frame. */
	const uint64_t hdr_addr = 0x800;
	eh_frame_hdr(&h, hdr_addr, fdes);
	struct cfi_section hs = { h.b, h.n, hdr_addr, 0 };
	uint64_t fde = 0, frame = 0;
	CHECK_EQ(cfi_hdr_frame(&hs, &frame), 0);
	CHECK_EQ_U64(frame, SEC_ADDR);
	CHECK_EQ(cfi_hdr_lookup(&hs, FN + 7, &fde), 0);
	CHECK_EQ_U64(fde, SEC_ADDR + fdes[0]);
	CHECK_EQ(cfi_hdr_lookup(&hs, FN2, &fde), 0);
	CHECK_EQ_U64(fde, SEC_ADDR + fdes[1]);
	CHECK_EQ(cfi_hdr_lookup(&hs, FN2 + 0x1000, &fde), 0); /* the last: the FDE says no */
	CHECK_EQ_U64(fde, SEC_ADDR + fdes[2]);
	CHECK_EQ(cfi_rule_at(&s, fde, FN2 + 0x1000, &r), -1);
	CHECK_EQ(cfi_hdr_lookup(&hs, FN - 1, &fde), -1);

	/* The scan finds the three, in section order. */
	struct cfi_fde all[4];
	CHECK_EQ(cfi_scan(&s, NULL, 0), 3);
	CHECK_EQ(cfi_scan(&s, all, 4), 3);
	CHECK_EQ_U64(all[0].start, FN);
	CHECK_EQ_U64(all[0].end, FN + FN_LEN);
	CHECK_EQ_U64(all[0].fde, SEC_ADDR + fdes[0]);
	CHECK_EQ_U64(all[2].start, FN2 + 0x100);
}

/* .debug_frame: CIE id 0xffffffff, no augmentation, absolute 8-byte
 * addresses, CIE pointers from the section's start. */
static void test_debug_frame(void)
{
	struct bytes o = { .n = 0 };
	u32(&o, 0); u32(&o, 0xffffffffu); u8(&o, 1); u8(&o, 0);
	u8(&o, 1); u8(&o, 0x78); u8(&o, 16);
	u8(&o, 0x0c); u8(&o, 7); u8(&o, 8);
	u8(&o, 0x90); u8(&o, 1);
	while (o.n % 8 != 4) u8(&o, 0);
	set32(&o, 0, (uint32_t)(o.n - 4));
	size_t f = o.n;
	u32(&o, 0); u32(&o, 0); u64(&o, FN); u64(&o, FN_LEN);
	fde_insns(&o);
	while ((o.n - f) % 8 != 4) u8(&o, 0);
	set32(&o, f, (uint32_t)(o.n - f - 4));
	struct cfi_section s = { o.b, o.n, 0, 1 };
	check_fn_rules(&s, f);
	struct cfi_fde all[2];
	CHECK_EQ(cfi_scan(&s, all, 2), 1);
	CHECK_EQ_U64(all[0].start, FN);
	CHECK_EQ_U64(all[0].fde, f);
	/* read as .eh_frame it is nonsense, not a crash */
	struct cfi_rule r;
	s.debug_frame = 0;
	CHECK_EQ(cfi_rule_at(&s, f, FN, &r), -1);
}

/* aarch64's .eh_frame as gcc writes it (code alignment 4, data alignment
 * -8, return address column x30, CFA sp + 0 at entry), for a function with
 * pointer authentication and a frame record at FN:
 *   FN+0  paciasp                 FN+28 ldp x29, x30, [sp], 32
 *   FN+4  stp x29, x30, [sp, -32]! FN+32 autiasp
 *   FN+8  mov x29, sp             FN+36 ret, then more code
 * and one at FN2 whose x30 is undefined (the outermost frame). Read on any
 * host. */
static void a64_eh_frame(struct bytes *o, size_t fdes[2])
{
	o->n = 0;
	size_t cie = o->n;
	u32(o, 0); u32(o, 0); u8(o, 1); put(o, "zR", 3);
	u8(o, 4); u8(o, 0x78); u8(o, 30); u8(o, 1); u8(o, 0x1b);
	u8(o, 0x0c); u8(o, 31); u8(o, 0);    /* def_cfa sp+0 */
	while ((o->n - cie) % 8 != 4) u8(o, 0);
	set32(o, cie, (uint32_t)(o->n - cie - 4));
	static const uint32_t start[2] = { FN, FN2 };
	for (int k = 0; k < 2; k++) {
		size_t f = fdes[k] = o->n;
		u32(o, 0);
		u32(o, (uint32_t)(o->n - cie));
		u32(o, (uint32_t)(start[k] - (SEC_ADDR + o->n)));
		u32(o, FN_LEN);
		u8(o, 0);
		if (k == 0) {
			u8(o, 0x41); u8(o, 0x2d);             /* negate_ra_state */
			u8(o, 0x41);
			u8(o, 0x0e); u8(o, 32);               /* def_cfa_offset 32 */
			u8(o, 0x9d); u8(o, 4);                /* offset x29, cfa-32 */
			u8(o, 0x9e); u8(o, 3);                /* offset x30, cfa-24 */
			u8(o, 0x41); u8(o, 0x0d); u8(o, 29);  /* def_cfa_register x29 */
			u8(o, 0x44); u8(o, 0x0a);             /* remember_state */
			u8(o, 0xde); u8(o, 0xdd);             /* restore x30, x29 */
			u8(o, 0x0c); u8(o, 31); u8(o, 0);     /* def_cfa sp+0 */
			u8(o, 0x41); u8(o, 0x2d);             /* negate_ra_state */
			u8(o, 0x41); u8(o, 0x0b);             /* restore_state */
			u8(o, 0x41); u8(o, 0x08); u8(o, 30);  /* same_value x30 */
		} else {
			u8(o, 0x07); u8(o, 30);               /* undefined x30 */
		}
		while ((o->n - f) % 8 != 4) u8(o, 0);
		set32(o, f, (uint32_t)(o->n - f - 4));
	}
	u32(o, 0);
}

static void test_aarch64(void)
{
	struct bytes f;
	size_t fdes[2];
	a64_eh_frame(&f, fdes);
	struct cfi_section s = { f.b, f.n, SEC_ADDR, 0, CFI_AARCH64 };
	const uint64_t fde = SEC_ADDR + fdes[0];
	struct cfi_rule r;
	/* entry: CFA sp, the return address still in x30, not signed */
	CHECK_EQ(cfi_rule_at(&s, fde, FN, &r), 0);
	CHECK(!r.cfa_fp && r.cfa_off == 0 && !r.fp_saved && !r.ra_saved && !r.ra_signed && !r.end);
	/* after paciasp: signed */
	CHECK_EQ(cfi_rule_at(&s, fde, FN + 4, &r), 0);
	CHECK(!r.cfa_off && !r.ra_saved && r.ra_signed);
	/* after the store: both saved */
	CHECK_EQ(cfi_rule_at(&s, fde, FN + 8, &r), 0);
	CHECK(!r.cfa_fp && r.cfa_off == 32 && r.fp_saved && r.fp_off == -32 && r.ra_saved &&
	      r.ra_off == -24 && r.ra_signed);
	/* the frame record: CFA x29 + 32 */
	CHECK_EQ(cfi_rule_at(&s, fde, FN + 12, &r), 0);
	CHECK(r.cfa_fp && r.cfa_off == 32 && r.fp_saved && r.ra_saved && r.ra_signed);
	CHECK_EQ(cfi_rule_at(&s, fde, FN + 27, &r), 0);
	CHECK(r.cfa_fp);
	/* after the load: back in the registers, still signed until autiasp */
	CHECK_EQ(cfi_rule_at(&s, fde, FN + 28, &r), 0);
	CHECK(!r.cfa_fp && r.cfa_off == 0 && !r.fp_saved && !r.ra_saved && r.ra_signed);
	CHECK_EQ(cfi_rule_at(&s, fde, FN + 32, &r), 0);
	CHECK(!r.ra_saved && !r.ra_signed);
	/* after ret: the body's state again, signature included */
	CHECK_EQ(cfi_rule_at(&s, fde, FN + 36, &r), 0);
	CHECK(r.cfa_fp && r.cfa_off == 32 && r.ra_saved && r.ra_off == -24 && r.ra_signed);
	/* same_value x30: in the register */
	CHECK_EQ(cfi_rule_at(&s, fde, FN + 40, &r), 0);
	CHECK(!r.ra_saved && r.cfa_fp);
	CHECK_EQ(cfi_rule_at(&s, SEC_ADDR + fdes[1], FN2, &r), 0);
	CHECK(r.end);
	struct cfi_fde all[3];
	CHECK_EQ(cfi_scan(&s, all, 3), 2);

	/* Either architecture's table read as the other's is refused: the
	 * CIE's return address column is not the one expected. */
	s.arch = CFI_X86_64;
	CHECK_EQ(cfi_rule_at(&s, fde, FN, &r), -1);
	CHECK_EQ(cfi_scan(&s, all, 3), 0);
	size_t xfdes[3];
	eh_frame(&f, xfdes);
	struct cfi_section xs = { f.b, f.n, SEC_ADDR, 0, CFI_AARCH64 };
	CHECK_EQ(cfi_rule_at(&xs, SEC_ADDR + xfdes[0], FN, &r), -1);
	/* negate_ra_state is aarch64's: in an x86-64 table (FN2's
	 * instructions made advance_loc 1, negate_ra_state) it is not
	 * followed */
	xs.arch = CFI_X86_64;
	CHECK_EQ(cfi_rule_at(&xs, SEC_ADDR + xfdes[1], FN2, &r), 0);
	CHECK(r.end);
	f.b[xfdes[1] + 17] = 0x41;
	f.b[xfdes[1] + 18] = 0x2d;
	CHECK_EQ(cfi_rule_at(&xs, SEC_ADDR + xfdes[1], FN2, &r), 0);
	CHECK(!r.end && r.ra_saved && r.ra_off == -8 && r.cfa_off == 8);
	CHECK_EQ(cfi_rule_at(&xs, SEC_ADDR + xfdes[1], FN2 + 1, &r), -1);
}

/* Cut and mutated copies: every call ends, inside its buffer. */
static void test_hostile(void)
{
	struct bytes f, h;
	size_t fdes[3];
	eh_frame(&f, fdes);
	eh_frame_hdr(&h, 0x800, fdes);
	struct cfi_rule r;
	uint64_t fde;
	struct cfi_fde all[8];
	for (size_t n = 0; n <= f.n; n++) {
		unsigned char *b = malloc(n ? n : 1);
		memcpy(b, f.b, n);
		struct cfi_section s = { b, n, SEC_ADDR, 0 };
		for (int k = 0; k < 3; k++)
			(void)cfi_rule_at(&s, SEC_ADDR + fdes[k], FN + 5, &r);
		CHECK(cfi_scan(&s, all, 8) <= 3);
		s.debug_frame = 1;
		(void)cfi_scan(&s, all, 8);
		free(b);
	}
	for (size_t n = 0; n <= h.n; n++) {
		unsigned char *b = malloc(n ? n : 1);
		memcpy(b, h.b, n);
		struct cfi_section hs = { b, n, 0x800, 0 };
		int rc = cfi_hdr_lookup(&hs, FN2, &fde);
		CHECK(rc == -1 || n == h.n);
		free(b);
	}
	srand(7);
	for (int i = 0; i < 20000; i++) {
		unsigned char *b = malloc(f.n), *hb = malloc(h.n);
		memcpy(b, f.b, f.n);
		memcpy(hb, h.b, h.n);
		for (int k = rand() % 4; k >= 0; k--) {
			b[rand() % f.n] = (unsigned char)rand();
			hb[rand() % h.n] = (unsigned char)rand();
		}
		struct cfi_section s = { b, f.n, SEC_ADDR, i & 1 }, hs = { hb, h.n, 0x800, 0 };
		if (cfi_hdr_lookup(&hs, FN + (uint64_t)(rand() % 0x2000), &fde) == 0)
			(void)cfi_rule_at(&s, fde, FN + (uint64_t)(rand() % 0x40), &r);
		(void)cfi_rule_at(&s, SEC_ADDR + fdes[rand() % 3], FN + (uint64_t)(rand() % 0x40), &r);
		(void)cfi_scan(&s, all, 8);
		free(b);
		free(hb);
	}
}

/* This program's own tables, as the client reads them: every FDE that a
 * scan of its .eh_frame finds is the one its .eh_frame_hdr finds. */
#if defined(__aarch64__)
#define HOST_ARCH CFI_AARCH64
#else
#define HOST_ARCH CFI_X86_64
#endif

struct own {
	int done;
	size_t fdes, agree, rules;
};

static int own_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct own *o = ctx;
	if (o->done)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_GNU_EH_FRAME)
			continue;
		const unsigned char *hdr = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		struct cfi_section hs = { hdr, info->dlpi_phdr[i].p_memsz, (uintptr_t)hdr, 0, HOST_ARCH };
		uint64_t frame;
		if (cfi_hdr_frame(&hs, &frame) < 0)
			return 0;
		/* The .eh_frame's size is not in the header: up to its
		 * segment's end. */
		size_t len = 0;
		for (int k = 0; k < info->dlpi_phnum; k++) {
			const ElfW(Phdr) *p = &info->dlpi_phdr[k];
			uint64_t lo = info->dlpi_addr + p->p_vaddr;
			if (p->p_type == PT_LOAD && frame >= lo && frame < lo + p->p_memsz)
				len = lo + p->p_memsz - frame;
		}
		struct cfi_section fs = { (const void *)(uintptr_t)frame, len, frame, 0, HOST_ARCH };
		size_t n = cfi_scan(&fs, NULL, 0);
		struct cfi_fde *all = malloc(n * sizeof *all);
		cfi_scan(&fs, all, n);
		for (size_t k = 0; k < n; k++) {
			uint64_t fde;
			o->agree += cfi_hdr_lookup(&hs, all[k].start, &fde) == 0 && fde == all[k].fde;
			struct cfi_rule r;
			/* At a function's first byte the CFA is rsp + 8 (sp on
			 * aarch64, the return address in x30); a cold part
			 * split off a function starts inside its frame (rbp +
			 * 16 under the sanitizers). */
			if (cfi_rule_at(&fs, all[k].fde, all[k].start, &r) < 0 || r.end)
				continue;
			int entry = HOST_ARCH == CFI_AARCH64 ? r.cfa_off == 0 && !r.ra_saved
							     : r.cfa_off == 8;
			o->rules += r.cfa_off >= 8 * (HOST_ARCH == CFI_X86_64) &&
				    (r.cfa_fp || entry || r.fp_saved);
		}
		o->fdes += n;
		free(all);
		o->done = 1;
	}
	return 0;
}

static void test_own_tables(void)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
	return; /* cfi.c knows x86-64's and aarch64's registers only */
#endif
	struct own o = { 0 };
	dl_iterate_phdr(own_module, &o);
	CHECK(o.done);
	CHECK(o.fdes >= 10);
	CHECK_EQ(o.agree, o.fdes);
	/* Nearly every FDE is followed at its first byte (not the PLT's,
	 * which are expressions). */
	CHECK(o.rules * 10 >= o.fdes * 9);
	fprintf(stderr, "own tables: %zu FDEs, %zu found by the header, %zu entry rules\n", o.fdes,
		o.agree, o.rules);
}

int main(void)
{
	test_eh_frame();
	test_debug_frame();
	test_aarch64();
	test_hostile();
	test_own_tables();
	return CHECK_DONE();
}
