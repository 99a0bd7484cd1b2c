/*
 * elf_file.c - a module's build-id and load segments, read from its file
 * with pread: the kernel reports where a file is mapped (PERF_RECORD_MMAP2)
 * but not which ELF virtual address the mapping starts at, and a kernel
 * that does not put the build-id in the record leaves it to the file.
 * Every size is checked against the file: a hostile file gives no build-id
 * or no segment, never a read out of bounds.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rec/elf_file.h"

static int read_at(int fd, void *p, size_t n, uint64_t off)
{
	return pread(fd, p, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* The GNU build-id in the note segment [off, off + size). */
static void notes(int fd, uint64_t off, uint64_t size, uint64_t align, struct elf_file *out)
{
	unsigned char buf[4096];
	if (size > sizeof buf || size < sizeof(Elf64_Nhdr) || read_at(fd, buf, (size_t)size, off))
		return;
	align = align == 8 ? 8 : 4;
	const unsigned char *p = buf, *e = buf + size;
	while ((size_t)(e - p) >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		memcpy(&nh, p, sizeof nh);
		uint64_t name_sz = ((uint64_t)nh.n_namesz + align - 1) & ~(align - 1);
		uint64_t desc_sz = ((uint64_t)nh.n_descsz + align - 1) & ~(align - 1);
		if (name_sz + desc_sz > (uint64_t)(e - p) - sizeof nh)
			return;
		const unsigned char *name = p + sizeof nh, *desc = name + name_sz;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= ELF_MAX_BUILD_ID) {
			memcpy(out->build_id, desc, nh.n_descsz);
			out->build_id_len = nh.n_descsz;
			return;
		}
		p = desc + desc_sz;
	}
}

int elf_file_read(const char *path, struct elf_file *out)
{
	memset(out, 0, sizeof *out);
	/* Not blocking, and regular files only: a path a client names may be
	 * a FIFO or a device. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	struct stat st;
	int rc = -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
		goto out;
	Elf64_Phdr ph[256];
	if (read_at(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff))
		goto out;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && out->nseg < ELF_MAX_SEGMENTS)
			out->seg[out->nseg++] =
				(struct elf_segment){ ph[i].p_offset, ph[i].p_vaddr, ph[i].p_filesz,
						      ph[i].p_memsz, ph[i].p_flags };
		else if (ph[i].p_type == PT_NOTE && !out->build_id_len)
			notes(fd, ph[i].p_offset, ph[i].p_filesz, ph[i].p_align, out);
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

uint64_t elf_file_bias(const struct elf_file *f, uint64_t addr, uint64_t pgoff)
{
	/* Executable segments first: lld packs segments into the file without
	 * page alignment, so the page an executable mapping starts at may also
	 * hold the end of a read-only segment whose p_vaddr - p_offset differs. */
	for (int exec = 1; exec >= 0; exec--) {
		for (uint32_t i = 0; i < f->nseg; i++) {
			const struct elf_segment *s = &f->seg[i];
			if (exec && !(s->flags & PF_X))
				continue;
			/* Segments start mid-page: the mapping starts at the page
			 * that holds the segment's first byte. */
			uint64_t page_off = s->offset & ~(uint64_t)4095;
			if (pgoff >= page_off && pgoff < s->offset + s->filesz)
				return addr - (s->vaddr - (s->offset - pgoff));
		}
	}
	return addr - pgoff;
}

const struct elf_segment *elf_file_exec(const struct elf_file *f)
{
	for (uint32_t i = 0; i < f->nseg; i++)
		if (f->seg[i].flags & PF_X)
			return &f->seg[i];
	return NULL;
}
