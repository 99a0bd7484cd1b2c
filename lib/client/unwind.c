/*
 * unwind.c - the fast path of a capture (on aarch64 the frame-record
 * chain, below). On x86-64 the stack is walked
 * with the rules of .eh_frame (the same tables _Unwind_Backtrace reads),
 * but each pc's rule is worked out once and kept in the thread's cache,
 * so a capture costs a few loads per frame instead of an FDE search and
 * a CFA program run.
 *
 * The tables are decoded by lib/unwind/cfi.c, which pfrec shares for the
 * stacks it samples. Only its common rules are followed (the CFA is rsp or
 * rbp plus an offset, rbp kept or saved); anything else (signal frames,
 * expressions, a module without .eh_frame_hdr) makes unwind_fast() fail,
 * and the caller uses _Unwind_Backtrace for the whole capture. Every read is
 * checked against the thread's stack, so a stale rule (a library unloaded
 * and another loaded at its address) gives wrong frames, never a fault.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ucontext.h>
#include <stdlib.h>
#include <string.h>
#include "client.h"
#include "unwind/cfi.h"

#if defined(__x86_64__) && defined(DLFO_EH_SEGMENT_TYPE)

struct rule {
	uint64_t pc;          /* the address looked up; 0 = empty slot */
	struct cfi_rule r;
	uint8_t bad;          /* a rule this unwinder does not follow */
};

#define CACHE_SLOTS 4096u /* per thread, 96 KiB */
#define TABLE_BOUND ((size_t)1 << 32)

/* The rule at pc from its module's .eh_frame_hdr, which the dynamic linker
 * knows; the tables are read where they are mapped, so their module
 * addresses are their own. @return 0 or -1. */
static int find_rule(uint64_t pc, struct rule *out)
{
	struct dl_find_object fo;
	if (_dl_find_object((void *)(uintptr_t)pc, &fo) != 0 || !fo.dlfo_eh_frame)
		return -1;
	/* The tables' sizes are not known here, only that they are mapped
	 * whole: the bound is far beyond any table (and far from wrapping
	 * the address space). */
	const unsigned char *hdr = fo.dlfo_eh_frame;
	struct cfi_section hs = { hdr, TABLE_BOUND, (uint64_t)(uintptr_t)hdr, 0 };
	uint64_t frame, fde;
	if (cfi_hdr_frame(&hs, &frame) < 0 || cfi_hdr_lookup(&hs, pc, &fde) < 0 || !frame)
		return -1;
	struct cfi_section fs = { (const unsigned char *)(uintptr_t)frame, TABLE_BOUND, frame, 0 };
	memset(out, 0, sizeof *out);
	out->pc = pc;
	return cfi_rule_at(&fs, fde, pc, &out->r);
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
		if (ru->r.end)
			break;
		uint64_t cfa = (ru->r.cfa_fp ? bp : sp) + (uint64_t)(int64_t)ru->r.cfa_off;
		if (cfa <= sp || cfa < lo + 8 || cfa > hi)
			return -1;
		uint64_t ra = load(cfa - 8);
		if (ru->r.fp_saved) {
			uint64_t at = cfa + (uint64_t)(int64_t)ru->r.fp_off;
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

/*
 * The stack of the thread a signal stopped, from the registers in its
 * context: the interrupted instruction, then return addresses. For a crash
 * handler, so async-signal-safe: no cache, no allocation, no lock (the
 * tables are found through _dl_find_object, which takes none), and every
 * read checked against [lo, hi), the thread's stack (0, 0: unknown, only
 * the first pc).
 */
unsigned unwind_context(const void *context, uint64_t lo, uint64_t hi, uint64_t *pc, unsigned max)
{
	const ucontext_t *uc = context;
	uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	uint64_t bp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	unsigned n = 0;
	if (!max)
		return 0;
	pc[n++] = ip;
	if (!hi || sp < lo || sp >= hi)
		return n;
	while (n < max) {
		struct rule ru;
		/* pc[0] is exact, the others return addresses: their call is
		 * the byte before. */
		if (find_rule(n == 1 ? ip : ip - 1, &ru) < 0 || ru.r.end)
			break;
		uint64_t cfa = (ru.r.cfa_fp ? bp : sp) + (uint64_t)(int64_t)ru.r.cfa_off;
		if (cfa <= sp || cfa < lo + 8 || cfa > hi)
			break;
		uint64_t ra = load(cfa - 8);
		if (ru.r.fp_saved) {
			uint64_t at = cfa + (uint64_t)(int64_t)ru.r.fp_off;
			if (at < lo || at + 8 > hi)
				break;
			bp = load(at);
		}
		sp = cfa;
		ip = ra;
		if (!ip)
			break;
		pc[n++] = ip;
	}
	return n;
}

#elif defined(__aarch64__)

/*
 * On aarch64 the fast path walks the frame records: AAPCS64 has every
 * function that keeps one store x29 (the caller's record) and x30 (its
 * return address) as a pair, with x29 pointing at it, and GCC and clang
 * keep them in non-leaf functions even at -O2. A function built without
 * one (-fomit-frame-pointer forced) loses its caller's frame from the
 * chain, never gives a wrong one. Records must be aligned and climb the
 * thread's stack; anything else ends the walk.
 */
__attribute__((no_sanitize_address)) static uint64_t load(uint64_t at)
{
	return *(const uint64_t *)(uintptr_t)at;
}

static uint64_t strip_pac(uint64_t ra)
{
	/* Pointer authentication signs the top bits; user addresses have
	 * at most 48 (52 with LVA) significant bits. */
	return ra & 0x000fffffffffffffull;
}

/* Return addresses from the frame record at fp up, into pc[n..max).
 * @return the new n. */
static unsigned fp_walk(uint64_t fp, uint64_t lo, uint64_t hi, uint64_t from, int *found,
			uint64_t *pc, unsigned n, unsigned max)
{
	for (unsigned steps = 0; steps < 512 && n < max; steps++) {
		if ((fp & 7) || fp < lo || fp + 16 > hi)
			break;
		uint64_t next = load(fp), ra = strip_pac(load(fp + 8));
		if (!ra)
			break;
		if (*found || ra == from) {
			*found = 1;
			pc[n++] = ra;
		}
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

int unwind_fast(struct ring *r, uint64_t from, unsigned depth, uint64_t *pc)
{
	if (!r->stack_hi)
		return -1;
	uint64_t fp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	if (fp < r->stack_lo || fp >= r->stack_hi)
		return -1; /* on another stack (a signal's) */
	int found = 0;
	unsigned n = fp_walk(fp, r->stack_lo, r->stack_hi, from, &found, pc, 0, depth);
	return found ? (int)n : -1;
}

/* The crash handler's walk: the interrupted pc, then the frame records
 * from the context's x29. A leaf function keeps no record: its return
 * address is in x30 alone, and x29 is still its caller's record. So x30
 * is a frame of its own when it differs from the first record's return
 * address, unless it lies in the 4 KiB before pc: there it is more likely
 * the return from a call the faulting function made itself (a leaf whose
 * caller sits just before it loses that frame; none is made up). */
unsigned unwind_context(const void *context, uint64_t lo, uint64_t hi, uint64_t *pc, unsigned max)
{
	const ucontext_t *uc = context;
	unsigned n = 0;
	if (!max)
		return 0;
	uint64_t ip = (uint64_t)uc->uc_mcontext.pc;
	pc[n++] = ip;
	uint64_t sp = (uint64_t)uc->uc_mcontext.sp;
	if (!hi || sp < lo || sp >= hi)
		return n;
	uint64_t fp = (uint64_t)uc->uc_mcontext.regs[29];
	uint64_t lr = strip_pac((uint64_t)uc->uc_mcontext.regs[30]);
	uint64_t saved = !(fp & 7) && fp >= sp && fp + 16 <= hi ? strip_pac(load(fp + 8)) : 0;
	if (lr && lr != saved && !(lr <= ip && ip - lr < 4096) && n < max)
		pc[n++] = lr;
	int found = 1;
	return fp_walk(fp, sp, hi, 0, &found, pc, n, max);
}

#else

int unwind_fast(struct ring *r, uint64_t from, unsigned depth, uint64_t *pc)
{
	(void)r, (void)from, (void)depth, (void)pc;
	return -1;
}

unsigned unwind_context(const void *context, uint64_t lo, uint64_t hi, uint64_t *pc, unsigned max)
{
	(void)context, (void)lo, (void)hi, (void)pc, (void)max;
	return 0;
}

#endif
