/*
 * stack.c - callstack capture for the _S macros, and the memory macros'
 * out-of-line paths.
 *
 * A capture keeps program counters only, walking the stack by the unwind
 * tables, so it needs no frame pointers: unwind.c's cached rules when it
 * can, else _Unwind_Backtrace (which finds a pc's tables without a lock,
 * through glibc's _dl_find_object, but decodes them at every frame). Frames of
 * the client itself are skipped by address: unwinding stops being ours at
 * the return address into the macro's caller, which the entry point reads
 * with __builtin_return_address(0) (entry points are never inlined: the
 * macros call them across the library boundary).
 *
 * The stack is captured into the caller's stack before any room is taken
 * in the ring: the unwinder or a module scan may allocate, and an allocator
 * hook's own event must not land inside a half-written record.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unwind.h>
#include "client.h"

struct walk {
	uint64_t *pc;
	uint64_t from;    /* first pc to keep: the return address into the caller */
	unsigned n, max;
	int found;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	int before = 0;
	uint64_t pc = (uint64_t)_Unwind_GetIPInfo(ctx, &before);
	if (!pc)
		return _URC_END_OF_STACK;
	if (!w->found) {
		if (pc != w->from)
			return _URC_NO_REASON;
		w->found = 1;
	}
	w->pc[w->n++] = pc;
	return w->n == w->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}

/* Up to depth pcs from the frame that returns to `from`, innermost first. */
/* Inlined into the entry points: one frame less for the unwinder to skip. */
__attribute__((always_inline)) static inline unsigned capture(uint64_t from, int depth, uint64_t *pc)
{
	struct walk w = { pc, from, 0, (unsigned)depth, 0 };
	in_client++;
	struct ring *r = cl.unwind_libgcc ? NULL : ring_self();
	int n = r ? unwind_fast(r, from, (unsigned)depth, pc) : -1;
	if (n > 0) {
		modules_check(pc, (unsigned)n);
		in_client--;
		return (unsigned)n;
	}
	_Unwind_Backtrace(step, &w);
	if (!w.found) {
		/* No unwind tables on the way: the caller's pc is still known. */
		pc[0] = from;
		w.n = 1;
	}
	modules_check(pc, w.n);
	in_client--;
	return w.n;
}

static int clamp(int depth)
{
	return depth > (int)PFW_MAX_FRAMES ? (int)PFW_MAX_FRAMES : depth;
}

/* Writes head (fixed bytes, the first 8 being overwritten with the time)
 * followed by the callstack as one record. */
static void emit_stack(const uint64_t *head, uint32_t head_len, const uint64_t *pc, unsigned n)
{
	uint32_t size = head_len + pfw_stack_size(n);
	unsigned char *p = rec_acquire(size);
	if (!p)
		return;
	uint64_t *q = (uint64_t *)(void *)p;
	memcpy(q, head, head_len);
	q[0] = client_ticks();
	q += head_len / 8;
	q[0] = n;
	memcpy(q + 1, pc, 8u * n);
	if (!(n & 1))
		q[1 + n] = 0;
	rec_publish(p + size);
}

__attribute__((noinline)) uint64_t profev__zone_s(struct profev_site *s, int depth)
{
	uint64_t from = (uint64_t)(uintptr_t)__builtin_return_address(0);
	uint64_t w = profev__word(s);
	if (!w)
		return 0;
	uint64_t end = (w & ~(uint64_t)0xff) | PFW_R_ZONE_END;
	depth = clamp(depth);
	if (depth <= 0) {
		profev__emit((w & ~(uint64_t)0xff) | PFW_R_ZONE_BEGIN);
		return end;
	}
	uint64_t pc[PFW_MAX_FRAMES];
	unsigned n = capture(from, depth, pc);
	uint64_t head[2] = { 0, w };
	emit_stack(head, PFW_REC_HEAD, pc, n);
	return end;
}

__attribute__((noinline)) void profev__mem_s(uint64_t word, uint64_t addr, uint64_t size, int depth)
{
	uint64_t from = (uint64_t)(uintptr_t)__builtin_return_address(0);
	depth = clamp(depth);
	if (depth <= 0) {
		/* The same record without its stack: 18, 19 -> 8, 9. */
		word = (word & ~(uint64_t)0xff) | ((word & 0xff) - 10);
		profev__emit_mem_slow(word, addr, size);
		return;
	}
	uint64_t pc[PFW_MAX_FRAMES];
	unsigned n = capture(from, depth, pc);
	uint64_t head[4] = { 0, word, addr, size };
	emit_stack(head, PFW_REC_LONG, pc, n);
}

void profev__mem_secure(uint64_t word, uint64_t addr, uint64_t size)
{
	/* Inside the client (its own malloc calls), or outside its lifetime:
	 * nothing may be touched but these two flags. */
	if (in_client || !ATOMIC_LOAD(&cl.active))
		return;
	profev__emit_mem(word, addr, size);
}
