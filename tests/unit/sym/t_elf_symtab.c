/*
 * lib/sym/elf_symtab.c: an AArch64 object's mapping symbols ($x where code
 * starts, $d where a literal pool starts, $x.N after it) name no function:
 * an address in the pool or after it belongs to the function around it, as
 * llvm-symbolizer says. The file is written here with libelf, so the test
 * needs no cross toolchain.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "sym/sym_internal.h"

static const char strtab[] = "\0f\0$x\0$d\0$x.1\0g\0$t\0";
enum { N_F = 1, N_X = 3, N_D = 6, N_X1 = 9, N_G = 14, N_T = 16 };
static const char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab\0";

static Elf_Scn *section(Elf *e, unsigned name, unsigned type, const void *bytes, size_t size,
			unsigned long flags)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = elf_newdata(scn);
	d->d_buf = (void *)bytes;
	d->d_size = size;
	d->d_align = 8;
	d->d_type = type == SHT_SYMTAB ? ELF_T_SYM : ELF_T_BYTE;
	GElf_Shdr sh;
	gelf_getshdr(scn, &sh);
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = type == SHT_PROGBITS ? 0x1000 : 0;
	gelf_update_shdr(scn, &sh);
	return scn;
}

static void write_object(const char *path)
{
	static unsigned char text[0x80];
	Elf64_Sym syms[] = {
		{ 0 },
		{ N_F, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, 0x1000, 0x40 },
		{ N_X, ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE), 0, 1, 0x1000, 0 },
		{ N_D, ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE), 0, 1, 0x1030, 0 },
		{ N_X1, ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE), 0, 1, 0x1038, 0 },
		{ N_G, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, 0x1040, 0x40 },
		{ N_T, ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE), 0, 1, 0x1050, 0 },
	};
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	CHECK(e != NULL);
	Elf64_Ehdr *eh = elf64_newehdr(e);
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_AARCH64;
	eh->e_version = EV_CURRENT;
	section(e, 1, SHT_PROGBITS, text, sizeof text, SHF_ALLOC | SHF_EXECINSTR);
	Elf_Scn *sym = section(e, 7, SHT_SYMTAB, syms, sizeof syms, 0);
	Elf_Scn *str = section(e, 15, SHT_STRTAB, strtab, sizeof strtab, 0);
	Elf_Scn *shs = section(e, 23, SHT_STRTAB, shstrtab, sizeof shstrtab, 0);
	GElf_Shdr sh;
	gelf_getshdr(sym, &sh);
	sh.sh_link = (unsigned)elf_ndxscn(str);
	sh.sh_info = 1;
	sh.sh_entsize = sizeof(Elf64_Sym);
	gelf_update_shdr(sym, &sh);
	eh->e_shstrndx = (unsigned short)elf_ndxscn(shs);
	CHECK(elf_update(e, ELF_C_WRITE) > 0);
	elf_end(e);
	close(fd);
}

static const char *name_at(struct symtab *t, uint64_t addr)
{
	struct elfsym *s = symtab_find(t, addr);
	return s ? s->name : "(none)";
}

int main(void)
{
	elf_version(EV_CURRENT);
	char path[] = "/tmp/t_elf_symtab.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	write_object(path);
	fd = open(path, O_RDONLY);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(e != NULL);
	struct symtab t;
	memset(&t, 0, sizeof t);
	struct profev_error err;
	CHECK_EQ(symtab_load(&t, &e, 1, &err), 0);
	CHECK_STR(name_at(&t, 0x1000), "f");
	CHECK_STR(name_at(&t, 0x1034), "f"); /* in the literal pool ($d) */
	CHECK_STR(name_at(&t, 0x103c), "f"); /* code after it ($x.1) */
	CHECK_STR(name_at(&t, 0x1054), "g"); /* after an Arm $t */
	symtab_release(&t);
	elf_end(e);
	close(fd);
	unlink(path);
	return CHECK_DONE();
}
