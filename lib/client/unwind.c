/*
 * unwind.c - the fast path of a capture on x86-64: the stack is walked
 * with the rules of .eh_frame (the same tables _Unwind_Backtrace reads),
 * but each pc's rule is worked out once and kept in the thread's cache,
 * so a capture costs a few loads per frame instead of an FDE search and
 * a CFA program run.
 *
 * Only the common rules are handled: the CFA is rsp or rbp plus an
 * offset, the return address is at CFA - 8, rbp is either kept or saved
 * at an offset from the CFA. Anything else (signal frames, expressions,
 * a module without .eh_frame_hdr) makes unwind_fast() fail, and the
 * caller uses _Unwind_Backtrace for the whole capture. Every read is
 * checked against the thread's stack, so a stale rule (a library unloaded
 * and another loaded at its address) gives wrong frames, never a fault.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "client.h"

#if defined(__x86_64__) && defined(DLFO_EH_SEGMENT_TYPE)

enum { DW_RBP = 6, DW_RSP = 7, DW_RA = 16 };

struct rule {
	uint64_t pc;          /* the address looked up; 0 = empty slot */
	int32_t cfa_off;
	int32_t rbp_off;      /* where rbp was saved, from the CFA */
	uint8_t cfa_rbp;      /* CFA = rbp + cfa_off, else rsp + cfa_off */
	uint8_t rbp_saved;
	uint8_t end;          /* return address undefined: the outermost frame */
	uint8_t bad;          /* a rule this unwinder does not follow */
};

#define CACHE_SLOTS 4096u /* per thread, 96 KiB */

/* ---- reading .eh_frame ---- */

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

/* A pointer in the encodings compilers emit in .eh_frame (DW_EH_PE_*). */
static uint64_t pointer(struct cur *c, unsigned enc)
{
	uint64_t base = (enc & 0x70) == 0x10 ? (uint64_t)(uintptr_t)c->p : 0;
	if ((enc & 0x70) != 0 && (enc & 0x70) != 0x10) {
		c->bad = 1;
		return 0;
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

struct state {
	uint8_t cfa_reg;
	int64_t cfa_off;
	int rbp_how;          /* 0 kept, 1 saved at CFA + rbp_off */
	int64_t rbp_off;
	int ra_how;           /* 0 unknown, 1 saved at CFA + ra_off, 2 undefined */
	int64_t ra_off;
};

/* An offset times the data alignment factor, wrapping (never undefined)
 * on nonsense input. */
static int64_t scaled(uint64_t v, int64_t align)
{
	return (int64_t)(v * (uint64_t)align);
}

/* Runs CFA instructions until loc passes target. @return 0, or -1 for an
 * instruction this unwinder does not follow. */
static int run(struct cur *c, uint64_t loc, uint64_t target, uint64_t code_align,
	       int64_t data_align, const struct state *init, struct state *st)
{
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
			else if (reg == DW_RBP || reg == DW_RSP)
				return -1;
			continue;
		case 0x08:
			reg = uleb(c);
			if (reg == DW_RBP)
				st->rbp_how = 0;
			else if (reg == DW_RA)
				return -1;
			continue;
		case 0x09:
			reg = uleb(c);
			(void)uleb(c);
			if (reg == DW_RBP || reg == DW_RA)
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
			if (reg == DW_RBP || reg == DW_RA || reg == DW_RSP || n > (uint64_t)(c->end - c->p))
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
			if (reg == DW_RBP || reg == DW_RA || reg == DW_RSP)
				return -1;
			continue;
		case 0x2e: (void)uleb(c); continue;
		default: return -1; /* set_loc, def_cfa_expression, vendor ops */
		}
	advance:
		loc += adv;
		if (loc > target)
			return 0;
		continue;
	offset:
		if (reg == DW_RBP) {
			st->rbp_how = 1;
			st->rbp_off = off;
		} else if (reg == DW_RA) {
			st->ra_how = 1;
			st->ra_off = off;
		} else if (reg == DW_RSP) {
			return -1;
		}
		continue;
	restore:
		if (!init)
			return -1; /* in the CIE's own instructions */
		if (reg == DW_RBP) {
			st->rbp_how = init->rbp_how;
			st->rbp_off = init->rbp_off;
		} else if (reg == DW_RA) {
			st->ra_how = init->ra_how;
			st->ra_off = init->ra_off;
		}
		continue;
	}
	return c->bad ? -1 : 0;
}

/* The rule at pc from its module's .eh_frame_hdr. @return 0 or -1. */
static int find_rule(uint64_t pc, struct rule *out)
{
	struct dl_find_object fo;
	if (_dl_find_object((void *)(uintptr_t)pc, &fo) != 0 || !fo.dlfo_eh_frame)
		return -1;
	const unsigned char *hdr = fo.dlfo_eh_frame;
	/* version 1, eh_frame_ptr any, count udata4, table datarel sdata4 */
	if (hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b)
		return -1;
	struct cur c = { hdr + 4, hdr + 4 + 16, 0 };
	(void)pointer(&c, hdr[1]);
	uint32_t count = (uint32_t)fixed(&c, 4);
	if (c.bad || !count)
		return -1;
	const unsigned char *table = c.p;
	int64_t rel = (int64_t)(pc - (uint64_t)(uintptr_t)hdr);
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
	const unsigned char *fde = hdr + fde_rel;

	uint32_t len, cie_off;
	memcpy(&len, fde, 4);
	memcpy(&cie_off, fde + 4, 4);
	if (len == 0 || len == 0xffffffffu || cie_off == 0)
		return -1;
	const unsigned char *cie = fde + 4 - cie_off;
	uint32_t cie_len;
	memcpy(&cie_len, cie, 4);
	if (cie_len == 0 || cie_len == 0xffffffffu)
		return -1;

	/* The CIE: augmentation, alignment factors, encodings. */
	struct cur cc = { cie + 8, cie + 4 + cie_len, 0 };
	unsigned version = (unsigned)fixed(&cc, 1);
	const char *aug = (const char *)cc.p;
	size_t aug_len = strnlen(aug, (size_t)(cc.end - cc.p));
	cc.p += aug_len + 1;
	if (version != 1 && version != 3)
		return -1;
	uint64_t code_align = uleb(&cc);
	int64_t data_align = sleb(&cc);
	uint64_t ra_reg = version == 1 ? fixed(&cc, 1) : uleb(&cc);
	unsigned fde_enc = 0;
	int has_z = aug[0] == 'z';
	if (ra_reg != DW_RA || (aug[0] && !has_z))
		return -1;
	if (has_z) {
		uint64_t n = uleb(&cc);
		struct cur a = { cc.p, cc.p + n, 0 };
		if (n > (uint64_t)(cc.end - cc.p))
			return -1;
		for (size_t i = 1; i < aug_len; i++) {
			if (aug[i] == 'R') {
				fde_enc = (unsigned)fixed(&a, 1);
			} else if (aug[i] == 'P') {
				unsigned enc = (unsigned)fixed(&a, 1);
				(void)pointer(&a, enc & 0x7f);
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

	/* The FDE: its range, then its instructions after the CIE's. */
	struct cur fc = { fde + 8, fde + 4 + len, 0 };
	uint64_t start = pointer(&fc, fde_enc);
	uint64_t range = pointer(&fc, fde_enc & 0x0f);
	if (fc.bad || pc < start || pc >= start + range)
		return -1;
	if (has_z) {
		uint64_t n = uleb(&fc);
		if (n > (uint64_t)(fc.end - fc.p))
			return -1;
		fc.p += n;
	}
	struct state st = { DW_RSP, 8, 0, 0, 0, 0 };
	if (run(&cc, 0, UINT64_MAX, code_align, data_align, NULL, &st) < 0)
		return -1;
	struct state init = st;
	if (run(&fc, start, pc, code_align, data_align, &init, &st) < 0)
		return -1;

	memset(out, 0, sizeof *out);
	out->pc = pc;
	if (st.ra_how == 2) {
		out->end = 1;
		return 0;
	}
	if (st.ra_how != 1 || st.ra_off != -8 || (st.cfa_reg != DW_RSP && st.cfa_reg != DW_RBP) ||
	    st.cfa_off < 8 || st.cfa_off > INT32_MAX || st.rbp_off < INT32_MIN ||
	    st.rbp_off > INT32_MAX)
		return -1;
	out->cfa_rbp = st.cfa_reg == DW_RBP;
	out->cfa_off = (int32_t)st.cfa_off;
	out->rbp_saved = (uint8_t)st.rbp_how;
	out->rbp_off = (int32_t)st.rbp_off;
	return 0;
}

static const struct rule *rule_of(struct ring *r, uint64_t pc)
{
	struct rule *slot = &r->rules[(pc ^ (pc >> 12)) & (CACHE_SLOTS - 1)];
	if (slot->pc == pc)
		return slot;
	/* Kept even when not followed, so that the next capture through this
	 * frame goes to _Unwind_Backtrace at once. */
	struct rule fresh;
	if (find_rule(pc, &fresh) < 0) {
		memset(&fresh, 0, sizeof fresh);
		fresh.pc = pc;
		fresh.bad = 1;
	}
	*slot = fresh;
	return slot->bad ? NULL : slot;
}

/* Reads other frames' saved registers: never inside a sanitizer's redzone,
 * but ASan need not be asked. */
__attribute__((no_sanitize_address)) static uint64_t load(uint64_t at)
{
	return *(const uint64_t *)(uintptr_t)at;
}

int unwind_fast(struct ring *r, uint64_t from, unsigned depth, uint64_t *pc)
{
	if (!r->stack_hi)
		return -1;
	if (!r->rules) {
		r->rules = calloc(CACHE_SLOTS, sizeof *r->rules);
		if (!r->rules) {
			r->stack_hi = 0;
			return -1;
		}
	}
	uint64_t ip, sp, bp;
	__asm__ __volatile__("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2"
			     : "=r"(ip), "=r"(sp), "=r"(bp));
	uint64_t lo = sp, hi = r->stack_hi;
	if (sp < r->stack_lo || sp >= hi)
		return -1; /* on another stack (a signal's) */
	unsigned n = 0;
	int found = 0;
	for (unsigned steps = 0; steps < 512; steps++) {
		const struct rule *ru = rule_of(r, steps ? ip - 1 : ip);
		if (!ru)
			return -1;
		if (ru->end)
			break;
		uint64_t cfa = (ru->cfa_rbp ? bp : sp) + (uint64_t)(int64_t)ru->cfa_off;
		if (cfa <= sp || cfa < lo + 8 || cfa > hi)
			return -1;
		uint64_t ra = load(cfa - 8);
		if (ru->rbp_saved) {
			uint64_t at = cfa + (uint64_t)(int64_t)ru->rbp_off;
			if (at < lo || at + 8 > hi)
				return -1;
			bp = load(at);
		}
		sp = cfa;
		ip = ra;
		if (!ip)
			break;
		if (!found && ip != from)
			continue;
		found = 1;
		pc[n++] = ip;
		if (n == depth)
			break;
	}
	return found ? (int)n : -1;
}

#else

int unwind_fast(struct ring *r, uint64_t from, unsigned depth, uint64_t *pc)
{
	(void)r, (void)from, (void)depth, (void)pc;
	return -1;
}

#endif
