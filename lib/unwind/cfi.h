/*
 * cfi.h - x86-64 call frame information (.eh_frame, .eh_frame_hdr,
 * .debug_frame) decoded into the few rules an unwinder follows.
 *
 * Shared by the client's cached unwinder (lib/client/unwind.c), which reads
 * the tables of its own process in memory, and pfrec's DWARF unwinding of
 * sampled user stacks (lib/rec/dwarf_unwind.c), which reads them from the
 * modules' files. It uses libc only (no allocation, no lock, no other part
 * of lib/), so the client can build it in; nothing in lib/unwind/ may use
 * another folder of lib/. Every read is bounded by the section given: a
 * hostile table gives -1, never a read out of bounds. Not installed.
 */
#ifndef PROFEV_UNWIND_CFI_H
#define PROFEV_UNWIND_CFI_H

#include <stddef.h>
#include <stdint.h>

/* The client's copy lives in a program that may define anything: the
 * symbols carry the internal prefix. */
#define cfi_hdr_lookup profev__cfi_hdr_lookup
#define cfi_rule_at profev__cfi_rule_at
#define cfi_scan profev__cfi_scan
#define cfi_hdr_frame profev__cfi_hdr_frame

/* Bytes of a table and the address its first byte has in the module (the
 * base of pc-relative pointers; module addresses are what pcs are given
 * in). */
struct cfi_section {
	const unsigned char *data;
	size_t size;
	uint64_t addr;
	int debug_frame;  /* .debug_frame: CIE id 0xffffffff, CIE pointers are
			     section offsets */
};

/* How to find the caller's frame at one pc. */
struct cfi_rule {
	int32_t cfa_off;      /* CFA = (rbp or rsp) + cfa_off */
	int32_t rbp_off;      /* where rbp was saved, from the CFA */
	uint8_t cfa_rbp;      /* CFA from rbp, else from rsp */
	uint8_t rbp_saved;    /* rbp saved at CFA + rbp_off, else kept */
	uint8_t end;          /* return address undefined: the outermost frame */
};

/*
 * The FDE that covers pc, by the binary search table of .eh_frame_hdr.
 * @return 0 with its module address in *fde, or -1 (no table of the usual
 * encoding, pc before the first function).
 */
int cfi_hdr_lookup(const struct cfi_section *hdr, uint64_t pc, uint64_t *fde);

/* The module address of the .eh_frame that an .eh_frame_hdr points to.
 * @return 0 or -1. */
int cfi_hdr_frame(const struct cfi_section *hdr, uint64_t *eh_frame);

/*
 * The rule at pc from the FDE at module address fde in frame (an
 * .eh_frame or .debug_frame section): the FDE's CIE, then both their
 * instructions up to pc. @return 0, or -1 when the FDE does not cover pc
 * or holds a rule this decoder does not follow (expressions, a signal
 * frame, registers other than rsp and rbp for the CFA).
 */
int cfi_rule_at(const struct cfi_section *frame, uint64_t fde, uint64_t pc, struct cfi_rule *out);

/* One FDE of a section, for a table built by scanning. */
struct cfi_fde {
	uint64_t start, end;  /* module addresses covered, end excluded */
	uint64_t fde;         /* the FDE's module address */
};

/*
 * Every FDE of frame (for a module without .eh_frame_hdr, or its
 * .debug_frame), in section order, at most max of them into out (out may
 * be NULL to count). @return how many the section holds.
 */
size_t cfi_scan(const struct cfi_section *frame, struct cfi_fde *out, size_t max);

#endif
