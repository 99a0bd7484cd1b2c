/*
 * t_elf_file.c - a module's load segments and build-id read from its file
 * (lib/rec/elf_file.c): the executable segment, and the load bias of an
 * executable mapping for files laid out as GNU ld and as lld lay them out
 * (lld packs the executable segment into the read-only one's last file
 * page, so p_vaddr - p_offset differs between them); a FIFO or a missing
 * file gives an error at once, without blocking.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "rec/elf_file.h"

struct seg {
	uint32_t flags;
	uint64_t offset, vaddr, size;
};

/* An ELF64 file of n load segments and a build-id note (after them). */
static void write_elf(const char *path, const struct seg *s, unsigned n)
{
	unsigned char buf[8192];
	memset(buf, 0, sizeof buf);
	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof eh;
	eh.e_ehsize = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)(n + 1);
	memcpy(buf, &eh, sizeof eh);
	Elf64_Phdr ph[8];
	for (unsigned i = 0; i < n; i++)
		ph[i] = (Elf64_Phdr){ PT_LOAD, s[i].flags, s[i].offset, s[i].vaddr, s[i].vaddr,
				      s[i].size, s[i].size, 0x1000 };
	/* the note: "GNU\0" and 4 bytes of id */
	uint64_t note = 0x300;
	ph[n] = (Elf64_Phdr){ PT_NOTE, PF_R, note, note, note, 20, 20, 4 };
	memcpy(buf + sizeof eh, ph, (n + 1) * sizeof *ph);
	Elf64_Nhdr nh = { 4, 4, NT_GNU_BUILD_ID };
	memcpy(buf + note, &nh, sizeof nh);
	memcpy(buf + note + sizeof nh, "GNU\0\xde\xad\xbe\xef", 8);
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(fwrite(buf, 1, sizeof buf, f), sizeof buf);
		fclose(f);
	}
}

int main(void)
{
	char dir[] = "/tmp/t_elf_file.XXXXXX", path[64], fifo[64];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/mod", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	struct elf_file f;

	/* GNU ld with -z separate-code: segments on their own pages, p_vaddr
	 * == p_offset. */
	static const struct seg ld[3] = { { PF_R, 0, 0, 0x5d8 }, { PF_R | PF_X, 0x1000, 0x1000, 0x800 },
					  { PF_R, 0x2000, 0x2000, 0x400 } };
	write_elf(path, ld, 3);
	CHECK_EQ(elf_file_read(path, &f), 0);
	CHECK_EQ(f.nseg, 3);
	CHECK_EQ(f.build_id_len, 4);
	CHECK(memcmp(f.build_id, "\xde\xad\xbe\xef", 4) == 0);
	const struct elf_segment *x = elf_file_exec(&f);
	CHECK(x && x->vaddr == 0x1000 && x->offset == 0x1000 && x->memsz == 0x800);
	CHECK_EQ(elf_file_bias(&f, 0x7f0000001000, 0x1000), 0x7f0000000000);

	/* lld: the executable segment starts in the read-only one's last file
	 * page (offset 0x640, page 0) one page higher in memory (0x1640). */
	static const struct seg lld[3] = { { PF_R, 0, 0, 0x63c }, { PF_R | PF_X, 0x640, 0x1640, 0x170 },
					   { PF_R | PF_W, 0x7b0, 0x27b0, 0x1e8 } };
	write_elf(path, lld, 3);
	CHECK_EQ(elf_file_read(path, &f), 0);
	x = elf_file_exec(&f);
	CHECK(x && x->vaddr == 0x1640 && x->offset == 0x640 && x->memsz == 0x170);
	/* The executable mapping, at pgoff 0, holds vaddr 0x1000 at its start
	 * (the read-only segment also covers file page 0, one page lower). */
	CHECK_EQ(elf_file_bias(&f, 0x7f0000001000, 0), 0x7f0000000000);

	/* No executable segment: none; bias by the segment that holds pgoff. */
	static const struct seg data[1] = { { PF_R, 0, 0x10000, 0x100 } };
	write_elf(path, data, 1);
	CHECK_EQ(elf_file_read(path, &f), 0);
	CHECK(elf_file_exec(&f) == NULL);
	CHECK_EQ(elf_file_bias(&f, 0x7f0000010000, 0), 0x7f0000000000);

	/* Not files to read: a FIFO (no writer: open would block), a missing
	 * path, a directory. */
	CHECK_EQ(mkfifo(fifo, 0600), 0);
	CHECK_EQ(elf_file_read(fifo, &f), -1);
	CHECK_EQ(f.nseg, 0);
	CHECK_EQ(elf_file_read("/nonexistent/module.so", &f), -1);
	CHECK_EQ(elf_file_read(dir, &f), -1);

	unlink(fifo);
	unlink(path);
	rmdir(dir);
	return CHECK_DONE();
}
