/*
 * cfi.h - x86-64 and aarch64 call frame information (.eh_frame,
 * .eh_frame_hdr, .debug_frame) decoded into the few rules an unwinder
 * follows.
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

/* The instruction set a table describes: its DWARF register numbers and
 * where its return address is. The decoder reads either on any host. */
enum cfi_arch {
	CFI_X86_64 = 0,   /* fp rbp (6), sp rsp (7), return address column 16,
			     always at CFA - 8 */
	CFI_AARCH64 = 1,  /* fp x29, sp 31, return address column x30: saved
			     at an offset from the CFA, or still in x30 */
};

/* Bytes of a table and the address its first byte has in the module (the
 * base of pc-relative pointers; module addresses are what pcs are given
 * in). */
struct cfi_section {
	const unsigned char *data;
	size_t size;
	uint64_t addr;
	int debug_frame;  /* .debug_frame: CIE id 0xffffffff, CIE pointers are
			     section offsets */
	int arch;         /* enum cfi_arch, x86-64 unless set */
};

/* How to find the caller's frame at one pc. The frame pointer is rbp on
 * x86-64 and x29 on aarch64; 12 bytes, as the client caches one per pc. */
struct cfi_rule {
	int32_t cfa_off;      /* CFA = (fp or sp) + cfa_off */
	int32_t fp_off;       /* where fp was saved, from the CFA */
	int16_t ra_off;       /* where the return address was saved, from the
				 CFA (-8 on x86-64) */
	uint8_t cfa_fp : 1;   /* CFA from fp, else from sp */
	uint8_t fp_saved : 1; /* fp saved at CFA + fp_off, else kept */
	uint8_t ra_saved : 1; /* return address at CFA + ra_off, else still in
				 the link register (aarch64 only: usable in the
				 innermost frame, from its registers) */
	uint8_t ra_signed : 1; /* aarch64: signed by pointer authentication
				  (DW_CFA_AARCH64_negate_ra_state) */
	uint8_t end : 1;      /* return address undefined: the outermost frame */
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
 * instructions up to pc, read for frame->arch. @return 0, or -1 when the
 * FDE does not cover pc or holds a rule this decoder does not follow
 * (expressions, a signal frame, registers other than sp and fp for the
 * CFA, a CIE of another architecture's return address column).
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
