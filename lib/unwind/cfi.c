/*
 * cfi.c - reading x86-64 and aarch64 call frame information: the
 * .eh_frame_hdr search table, CIEs and FDEs, and the CFA programs run up
 * to a pc, reduced to a struct cfi_rule. The client runs it on its own
 * process's tables (where a table's bytes are at the module address they
 * describe) and pfrec on a module file's bytes (cfi_section.addr says
 * where they would be).
 *
 * Only the common rules are followed: the CFA is sp or the frame pointer
 * (rbp, x29) plus an offset, the frame pointer is kept or saved at an
 * offset from the CFA, and the return address is at CFA - 8 (x86-64) or,
 * on aarch64, saved at an offset from the CFA or still in x30 (a leaf, a
 * prologue before its store). Other registers are ignored unless an
 * instruction about sp, the frame pointer or the return address is beyond
 * this (an expression), which gives -1.
 *
 * aarch64's pointer authentication (DW_CFA_AARCH64_negate_ra_state, which
 * gcc emits with -mbranch-protection=pac-ret; Debian's gcc does not by
 * default) is followed as a flag of the rule: the unwinder clears the
 * signature bits itself (dwarf_unwind.c).
 */
#include <string.h>
#include "unwind/cfi.h"

/* An architecture's DWARF register numbers: the frame pointer, the stack
 * pointer and the return address column. */
struct regs {
	unsigned fp, sp, ra;
};
static const struct regs x86_64_regs = { 6, 7, 16 };
static const struct regs aarch64_regs = { 29, 31, 30 };

static const struct regs *regs_of(int arch)
{
	return arch == CFI_AARCH64 ? &aarch64_regs : &x86_64_regs;
}

struct cur {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		unsigned char b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static int64_t sleb(struct cur *c)
{
	int64_t v = 0;
	unsigned shift = 0;
	unsigned char b = 0x80;
	while (c->p < c->end && (b & 0x80)) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
	}
	if (b & 0x80)
		c->bad = 1;
	else if (shift < 64 && (b & 0x40))
		v |= (int64_t)(~(uint64_t)0 << shift);
	return v;
}

static uint64_t fixed(struct cur *c, unsigned n)
{
	uint64_t v = 0;
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

/* A pointer in the encodings compilers emit (DW_EH_PE_*): absolute,
 * pc-relative (from the field's module address) or, in .eh_frame_hdr,
 * relative to the header (datarel, base given). */
static uint64_t pointer(struct cur *c, unsigned enc, const struct cfi_section *s, uint64_t datarel)
{
	uint64_t base;
	switch (enc & 0x70) {
	case 0x00: base = 0; break;
	case 0x10: base = s->addr + (uint64_t)(c->p - s->data); break;
	case 0x30: base = datarel; break;
	default: c->bad = 1; return 0;
	}
	uint64_t v;
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c: v = fixed(c, 8); break;
	case 0x03: v = fixed(c, 4); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	case 0x02: v = fixed(c, 2); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case 0x01: v = uleb(c); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	default: c->bad = 1; return 0;
	}
	return base + v;
}

int cfi_hdr_frame(const struct cfi_section *hdr, uint64_t *eh_frame)
{
	if (hdr->size < 4 || hdr->data[0] != 1 || hdr->data[1] == 0xff)
		return -1;
	struct cur c = { hdr->data + 4, hdr->data + hdr->size, 0 };
	*eh_frame = pointer(&c, hdr->data[1], hdr, hdr->addr);
	return c.bad ? -1 : 0;
}

int cfi_hdr_lookup(const struct cfi_section *hdr, uint64_t pc, uint64_t *fde)
{
	const unsigned char *h = hdr->data;
	/* version 1, eh_frame_ptr any, count udata4, table datarel sdata4 */
	if (hdr->size < 4 || h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b || h[1] == 0xff)
		return -1;
	struct cur c = { h + 4, h + hdr->size, 0 };
	(void)pointer(&c, h[1], hdr, hdr->addr);
	uint32_t count = (uint32_t)fixed(&c, 4);
	if (c.bad || !count || count > (size_t)(c.end - c.p) / 8)
		return -1;
	const unsigned char *table = c.p;
	/* Entries are signed 32-bit offsets from the header. */
	int64_t rel = (int64_t)(pc - hdr->addr);
	uint32_t lo = 0, hi = count;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		int32_t loc;
		memcpy(&loc, table + 8u * mid, 4);
		if (loc <= rel)
			lo = mid;
		else
			hi = mid;
	}
	int32_t loc, fde_rel;
	memcpy(&loc, table + 8u * lo, 4);
	memcpy(&fde_rel, table + 8u * lo + 4, 4);
	if (loc > rel)
		return -1;
	*fde = hdr->addr + (uint64_t)(int64_t)fde_rel;
	return 0;
}

struct state {
	uint8_t cfa_reg;
	int64_t cfa_off;
	int fp_how;           /* 0 kept, 1 saved at CFA + fp_off */
	int64_t fp_off;
	int ra_how;           /* 0 no rule, 1 saved at CFA + ra_off, 2 undefined,
				 3 same value (aarch64: 0 and 3 are x30 itself) */
	int64_t ra_off;
	int ra_signed;        /* aarch64: toggled by negate_ra_state */
};

/* An offset times the data alignment factor, wrapping (never undefined)
 * on nonsense input. */
static int64_t scaled(uint64_t v, int64_t align)
{
	return (int64_t)(v * (uint64_t)align);
}

/* Runs CFA instructions until loc passes target. @return 0, or -1 for an
 * instruction this decoder does not follow. */
static int run(struct cur *c, uint64_t loc, uint64_t target, uint64_t code_align,
	       int64_t data_align, const struct state *init, struct state *st, int arch)
{
	const struct regs *R = regs_of(arch);
	const uint64_t DW_FP = R->fp, DW_SP = R->sp, DW_RA = R->ra;
	struct state saved[8];
	int nsaved = 0;
	while (c->p < c->end && !c->bad) {
		unsigned char op = *c->p++;
		uint64_t reg, adv = 0;
		int64_t off;
		switch (op & 0xc0) {
		case 0x40:
			adv = (op & 0x3f) * code_align;
			goto advance;
		case 0x80:
			reg = op & 0x3f;
			off = scaled(uleb(c), data_align);
			goto offset;
		case 0xc0:
			reg = op & 0x3f;
			goto restore;
		}
		switch (op) {
		case 0x00: continue;
		case 0x02: adv = fixed(c, 1) * code_align; goto advance;
		case 0x03: adv = fixed(c, 2) * code_align; goto advance;
		case 0x04: adv = fixed(c, 4) * code_align; goto advance;
		case 0x05: reg = uleb(c); off = scaled(uleb(c), data_align); goto offset;
		case 0x11: reg = uleb(c); off = scaled((uint64_t)sleb(c), data_align); goto offset;
		case 0x06: reg = uleb(c); goto restore;
		case 0x07:
			reg = uleb(c);
			if (reg == DW_RA)
				st->ra_how = 2;
			else if (reg == DW_FP || reg == DW_SP)
				return -1;
			continue;
		case 0x08:
			reg = uleb(c);
			if (reg == DW_FP)
				st->fp_how = 0;
			else if (reg == DW_RA && arch == CFI_AARCH64)
				st->ra_how = 3;
			else if (reg == DW_RA)
				return -1;
			continue;
		case 0x09:
			reg = uleb(c);
			(void)uleb(c);
			if (reg == DW_FP || reg == DW_RA)
				return -1;
			continue;
		case 0x0a:
			if (nsaved == 8)
				return -1;
			saved[nsaved++] = *st;
			continue;
		case 0x0b:
			if (!nsaved)
				return -1;
			/* The CFA comes back too: GCC brackets epilogues with
			 * these and relies on it. */
			*st = saved[--nsaved];
			continue;
		case 0x0c: st->cfa_reg = (uint8_t)uleb(c); st->cfa_off = (int64_t)uleb(c); continue;
		case 0x12:
			st->cfa_reg = (uint8_t)uleb(c);
			st->cfa_off = scaled((uint64_t)sleb(c), data_align);
			continue;
		case 0x0d: st->cfa_reg = (uint8_t)uleb(c); continue;
		case 0x0e: st->cfa_off = (int64_t)uleb(c); continue;
		case 0x13: st->cfa_off = scaled((uint64_t)sleb(c), data_align); continue;
		case 0x10: case 0x16: {
			reg = uleb(c);
			uint64_t n = uleb(c);
			if (reg == DW_FP || reg == DW_RA || reg == DW_SP || n > (uint64_t)(c->end - c->p))
				return -1;
			c->p += n;
			continue;
		}
		case 0x14: case 0x15:
			reg = uleb(c);
			if (op == 0x14)
				(void)uleb(c);
			else
				(void)sleb(c);
			if (reg == DW_FP || reg == DW_RA || reg == DW_SP)
				return -1;
			continue;
		case 0x2e: (void)uleb(c); continue;
		case 0x2d:
			/* DW_CFA_AARCH64_negate_ra_state; elsewhere the
			 * opcode is SPARC's window_save, not followed */
			if (arch != CFI_AARCH64)
				return -1;
			st->ra_signed = !st->ra_signed;
			continue;
		default: return -1; /* set_loc, def_cfa_expression, vendor ops */
		}
	advance:
		loc += adv;
		if (loc > target)
			return 0;
		continue;
	offset:
		if (reg == DW_FP) {
			st->fp_how = 1;
			st->fp_off = off;
		} else if (reg == DW_RA) {
			st->ra_how = 1;
			st->ra_off = off;
		} else if (reg == DW_SP) {
			return -1;
		}
		continue;
	restore:
		if (!init)
			return -1; /* in the CIE's own instructions */
		if (reg == DW_FP) {
			st->fp_how = init->fp_how;
			st->fp_off = init->fp_off;
		} else if (reg == DW_RA) {
			st->ra_how = init->ra_how;
			st->ra_off = init->ra_off;
		}
		continue;
	}
	return c->bad ? -1 : 0;
}

/* A CIE, as far as an FDE needs it. */
struct cie {
	struct cur insns;
	uint64_t code_align;
	int64_t data_align;
	unsigned fde_enc;
	int has_z;
};

/* The entry at offset off of s: its length checked, *body just after the
 * length, *end after the entry. @return 0 or -1 (cut, 64-bit DWARF, the
 * terminator). */
static int entry(const struct cfi_section *s, uint64_t off, const unsigned char **body,
		 const unsigned char **end)
{
	uint32_t len;
	if (off > s->size || s->size - off < 8)
		return -1;
	memcpy(&len, s->data + off, 4);
	if (len < 4 || len == 0xffffffffu || len > s->size - off - 4)
		return -1;
	*body = s->data + off + 4;
	*end = *body + len;
	return 0;
}

static int cie_read(const struct cfi_section *s, uint64_t off, struct cie *out)
{
	const unsigned char *body, *end;
	if (entry(s, off, &body, &end))
		return -1;
	uint32_t id;
	memcpy(&id, body, 4);
	if (id != (s->debug_frame ? 0xffffffffu : 0))
		return -1;
	struct cur cc = { body + 4, end, 0 };
	unsigned version = (unsigned)fixed(&cc, 1);
	const char *aug = (const char *)cc.p;
	size_t aug_len = strnlen(aug, (size_t)(cc.end - cc.p));
	if (aug_len == (size_t)(cc.end - cc.p))
		return -1;
	cc.p += aug_len + 1;
	if (version != 1 && version != 3 && version != 4)
		return -1;
	if (version == 4) {
		unsigned addr_size = (unsigned)fixed(&cc, 1), seg_size = (unsigned)fixed(&cc, 1);
		if (addr_size != 8 || seg_size != 0)
			return -1;
	}
	memset(out, 0, sizeof *out);
	out->code_align = uleb(&cc);
	out->data_align = sleb(&cc);
	uint64_t ra_reg = version == 1 ? fixed(&cc, 1) : uleb(&cc);
	out->has_z = aug[0] == 'z';
	if (ra_reg != regs_of(s->arch)->ra || (aug[0] && !out->has_z))
		return -1;
	if (out->has_z) {
		uint64_t n = uleb(&cc);
		if (cc.bad || n > (uint64_t)(cc.end - cc.p))
			return -1;
		struct cur a = { cc.p, cc.p + n, 0 };
		for (size_t i = 1; i < aug_len; i++) {
			if (aug[i] == 'R') {
				out->fde_enc = (unsigned)fixed(&a, 1);
			} else if (aug[i] == 'P') {
				unsigned enc = (unsigned)fixed(&a, 1);
				(void)pointer(&a, enc & 0x7f, s, 0);
			} else if (aug[i] == 'L') {
				(void)fixed(&a, 1);
			} else {
				return -1; /* 'S' (signal frame) and others */
			}
		}
		if (a.bad)
			return -1;
		cc.p += n;
	}
	if (cc.bad)
		return -1;
	out->insns = cc;
	return 0;
}

/* The FDE at offset off: its CIE, range and instructions. @return 0, 1
 * for a CIE there, -1 for anything else. */
static int fde_read(const struct cfi_section *s, uint64_t off, struct cie *cie, uint64_t *start,
		    uint64_t *range, struct cur *insns)
{
	const unsigned char *body, *end;
	if (entry(s, off, &body, &end))
		return -1;
	uint32_t id;
	memcpy(&id, body, 4);
	uint64_t cie_off;
	if (s->debug_frame) {
		if (id == 0xffffffffu)
			return 1;
		cie_off = id;
	} else {
		if (id == 0)
			return 1;
		if (id > off + 4)
			return -1;
		cie_off = off + 4 - id;
	}
	if (cie_read(s, cie_off, cie))
		return -1;
	struct cur fc = { body + 4, end, 0 };
	*start = pointer(&fc, cie->fde_enc, s, 0);
	*range = pointer(&fc, cie->fde_enc & 0x0f, s, 0);
	if (cie->has_z) {
		uint64_t n = uleb(&fc);
		if (fc.bad || n > (uint64_t)(fc.end - fc.p))
			return -1;
		fc.p += n;
	}
	if (fc.bad)
		return -1;
	*insns = fc;
	return 0;
}

int cfi_rule_at(const struct cfi_section *frame, uint64_t fde, uint64_t pc, struct cfi_rule *out)
{
	if (fde < frame->addr || fde - frame->addr >= frame->size)
		return -1;
	struct cie cie;
	uint64_t start, range;
	struct cur fc;
	if (fde_read(frame, fde - frame->addr, &cie, &start, &range, &fc) != 0 ||
	    pc < start || pc - start >= range)
		return -1;
	const struct regs *R = regs_of(frame->arch);
	const int a64 = frame->arch == CFI_AARCH64;
	/* before the CIE's instructions: x86-64's state at a call's target */
	struct state st = { (uint8_t)R->sp, a64 ? 0 : 8, 0, 0, 0, 0, 0 };
	if (run(&cie.insns, 0, UINT64_MAX, cie.code_align, cie.data_align, NULL, &st, frame->arch) < 0)
		return -1;
	struct state init = st;
	if (run(&fc, start, pc, cie.code_align, cie.data_align, &init, &st, frame->arch) < 0)
		return -1;

	memset(out, 0, sizeof *out);
	if (st.ra_how == 2) {
		out->end = 1;
		return 0;
	}
	if ((st.cfa_reg != R->sp && st.cfa_reg != R->fp) || st.cfa_off > INT32_MAX ||
	    st.fp_off < INT32_MIN || st.fp_off > INT32_MAX)
		return -1;
	if (a64) {
		/* a leaf's CFA may be sp itself; the return address saved
		 * anywhere near the CFA, or still in x30 */
		if (st.cfa_off < 0 || (st.ra_how == 1 && (st.ra_off < INT16_MIN || st.ra_off > INT16_MAX)))
			return -1;
		out->ra_saved = st.ra_how == 1;
		out->ra_off = out->ra_saved ? (int16_t)st.ra_off : 0;
		out->ra_signed = st.ra_signed != 0;
	} else {
		if (st.ra_how != 1 || st.ra_off != -8 || st.cfa_off < 8)
			return -1;
		out->ra_saved = 1;
		out->ra_off = -8;
	}
	out->cfa_fp = st.cfa_reg == R->fp;
	out->cfa_off = (int32_t)st.cfa_off;
	out->fp_saved = st.fp_how != 0;
	out->fp_off = (int32_t)st.fp_off;
	return 0;
}

size_t cfi_scan(const struct cfi_section *frame, struct cfi_fde *out, size_t max)
{
	size_t n = 0;
	uint64_t off = 0;
	while (off + 8 <= frame->size) {
		const unsigned char *body, *end;
		if (entry(frame, off, &body, &end))
			break; /* the terminator, or the rest is not whole */
		struct cie cie;
		uint64_t start, range;
		struct cur fc;
		if (fde_read(frame, off, &cie, &start, &range, &fc) == 0 && range &&
		    start + range > start) {
			if (out && n < max)
				out[n] = (struct cfi_fde){ start, start + range, frame->addr + off };
			n++;
		}
		off = (uint64_t)(end - frame->data);
	}
	return n;
}
