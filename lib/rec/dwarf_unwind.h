/* pfrec's DWARF unwinding of sampled user stacks (dwarf_unwind.c): each
 * module file's call frame information, loaded once, and a walk of the
 * stack bytes and registers the kernel copied into a sample. Used by
 * perf_records.c only. Not installed. */
#ifndef PROFEV_REC_DWARF_UNWIND_H
#define PROFEV_REC_DWARF_UNWIND_H

#include <stdint.h>
#include "unwind/cfi.h"

struct dwarf_unwinder;

struct dwarf_unwinder *dwarf_unwinder_new(void);
void dwarf_unwinder_free(struct dwarf_unwinder *u); /* accepts NULL */

/*
 * The unwind tables of the module file at path ("[vdso]" is pfrec's own
 * vdso, the same image as every process's): .eh_frame through
 * .eh_frame_hdr, else .eh_frame or .debug_frame scanned into a table;
 * an x86-64 or aarch64 file, read on any host.
 * @return an id >= 0 for dwarf_unwind's callback, or -1 when the file has
 * none (or cannot be read, or too many files were loaded). The file is
 * mapped read-only until the unwinder is freed.
 */
int32_t dwarf_unwinder_load(struct dwarf_unwinder *u, const char *path);

/* Where a pc is: the id of its module's tables and the module's load bias
 * (pc - bias is the module's own address). @return 0, or -1 when no
 * module with tables holds pc. */
typedef int (*dwarf_find_fn)(void *ctx, uint64_t pc, int32_t *tables, uint64_t *bias);

/* The sampled registers the walk starts from. */
struct dwarf_regs {
	uint64_t ip, sp;
	uint64_t fp;   /* the frame pointer: rbp, or x29 on aarch64 */
	uint64_t lr;   /* aarch64's link register x30; unused on x86-64 */
	int arch;      /* enum cfi_arch (lib/unwind/cfi.h): x86-64 unless set */
};

/*
 * Walk the stack from regs: pcs[0] = regs->ip, then return addresses,
 * at most max. stack holds size bytes copied from address regs->sp up;
 * every read is checked against it. Only tables of regs->arch are used.
 * *complete is 1 when the walk ended at the outermost frame (a return
 * address the tables call undefined, as in _start and clone), 0 when it
 * stopped early (the copy's end, a pc without a module or rule).
 * @return the number of frames.
 */
unsigned dwarf_unwind(struct dwarf_unwinder *u, const struct dwarf_regs *regs,
		      const unsigned char *stack, uint64_t size, dwarf_find_fn find, void *ctx,
		      uint64_t *pcs, unsigned max, int *complete);

#endif
