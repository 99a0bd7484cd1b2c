/* What pfrec reads from a module's ELF file when the kernel reports a
 * mapping of it (elf_file.c): its GNU build-id and its load segments, to
 * turn a mapping's file offset into the module's load bias. Not installed. */
#ifndef PROFEV_REC_ELF_FILE_H
#define PROFEV_REC_ELF_FILE_H

#include <stdint.h>

#define ELF_MAX_SEGMENTS 16
#define ELF_MAX_BUILD_ID 64

struct elf_segment {
	uint64_t offset, vaddr, filesz;
	uint64_t memsz;
	uint32_t flags;                /* PF_X, PF_W, PF_R */
};

struct elf_file {
	uint8_t build_id[ELF_MAX_BUILD_ID];
	uint32_t build_id_len;         /* 0: none found */
	uint32_t nseg;                 /* PT_LOAD segments, at most ELF_MAX_SEGMENTS */
	struct elf_segment seg[ELF_MAX_SEGMENTS];
};

/* Read path's ELF64 little-endian headers and build-id note.
 * @return 0, or -1 when the file cannot be opened or is not such an ELF
 * file (*out is then zeroed). */
int elf_file_read(const char *path, struct elf_file *out);

/* The load bias of an executable mapping of the file at addr from file
 * offset pgoff: the address minus the ELF virtual address it holds, by the
 * executable segment that holds pgoff, else any segment. Without a segment
 * that holds pgoff, addr - pgoff (a file mapped as it is). */
uint64_t elf_file_bias(const struct elf_file *f, uint64_t addr, uint64_t pgoff);

/* The first executable load segment (where Perfetto's producers start a
 * module's mapping), or NULL. */
const struct elf_segment *elf_file_exec(const struct elf_file *f);

#endif
