/*
 * elfpatch: damage one section of an ELF file in place, for the tests of
 * damaged debug files.
 *
 *   elfpatch FILE SECTION --set OFFSET BYTE...   bytes at OFFSET of the section
 *   elfpatch FILE SECTION --u32 OFFSET VALUE     a little-endian 32-bit value
 *   elfpatch FILE SECTION --add32 OFFSET DELTA   add DELTA to the 32-bit value
 *   elfpatch FILE SECTION --flip SEED N          flip N random bytes (xor 1..255)
 *   elfpatch FILE SECTION --size SIZE            the section header lies: SIZE
 *   elfpatch FILE SECTION --dwp-size COL VALUE   a .dwp index's row 1 size of
 *                                                column COL (0-based) = VALUE
 *   elfpatch FILE SECTION --info                 print "offset size" in the file
 *
 * Offsets are decimal or 0x hex. Exit 0, 1 when the section is absent or
 * an offset lies outside it, 2 on a usage error.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long num(const char *s)
{
	return strtoull(s, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: elfpatch FILE SECTION --set|--u32|--add32|--flip|--size|--dwp-size|--info ...\n");
		return 2;
	}
	int fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	if (!e || elf_getshdrstrndx(e, &shstrndx) != 0) {
		fprintf(stderr, "elfpatch: '%s': not an ELF file\n", argv[1]);
		return 1;
	}
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t idx = 0;
	int found = 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (nm && strcmp(nm, argv[2]) == 0) {
			idx = elf_ndxscn(scn);
			found = 1;
			break;
		}
	}
	GElf_Ehdr eh;
	gelf_getehdr(e, &eh);
	int wide = gelf_getclass(e) == ELFCLASS64;
	elf_end(e);
	if (!found) {
		fprintf(stderr, "elfpatch: '%s': no section '%s'\n", argv[1], argv[2]);
		return 1;
	}
	const char *op = argv[3];
	unsigned long long off = argc > 4 ? num(argv[4]) : 0;
	if (strcmp(op, "--info") == 0) {
		printf("%llu %llu\n", (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size);
		return 0;
	}
	if (strcmp(op, "--size") == 0 && argc == 5) {
		/* sh_size: at 32 of a 64-bit section header, at 20 of a 32-bit one */
		off_t at = (off_t)(eh.e_shoff + idx * eh.e_shentsize + (wide ? 32 : 20));
		unsigned char b[8];
		for (int i = 0; i < 8; i++)
			b[i] = (unsigned char)(off >> (8 * i));
		return pwrite(fd, b, wide ? 8 : 4, at) == (wide ? 8 : 4) ? 0 : 1;
	}
	unsigned char *p = malloc(sh.sh_size ? sh.sh_size : 1);
	if (pread(fd, p, sh.sh_size, (off_t)sh.sh_offset) != (ssize_t)sh.sh_size)
		return 1;
	if (strcmp(op, "--dwp-size") == 0 && argc == 6) {
		if (sh.sh_size < 16)
			return 1;
		unsigned long long ncols = p[4] | p[5] << 8 | p[6] << 16 | (unsigned)p[7] << 24;
		unsigned long long nunits = p[8] | p[9] << 8 | p[10] << 16 | (unsigned)p[11] << 24;
		unsigned long long nslots = p[12] | p[13] << 8 | p[14] << 16 | (unsigned)p[15] << 24;
		off = 16 + nslots * 12 + ncols * 4 * (1 + nunits) + 4 * off;
		op = "--u32";
	}
	if (strcmp(op, "--set") == 0 && argc >= 6) {
		for (int i = 5; i < argc; i++, off++) {
			if (off >= sh.sh_size)
				return 1;
			p[off] = (unsigned char)num(argv[i]);
		}
	} else if ((strcmp(op, "--u32") == 0 || strcmp(op, "--add32") == 0) && argc == 6) {
		if (off + 4 > sh.sh_size)
			return 1;
		unsigned v = (unsigned)num(argv[5]);
		if (strcmp(op, "--add32") == 0)
			v += p[off] | p[off + 1] << 8 | p[off + 2] << 16 | (unsigned)p[off + 3] << 24;
		for (int i = 0; i < 4; i++)
			p[off + i] = (unsigned char)(v >> (8 * i));
	} else if (strcmp(op, "--flip") == 0 && argc == 6) {
		srand((unsigned)off);
		for (unsigned long long k = num(argv[5]); k > 0 && sh.sh_size; k--)
			p[(size_t)rand() % sh.sh_size] ^= (unsigned char)(1 + rand() % 255);
	} else {
		fprintf(stderr, "elfpatch: bad arguments for '%s'\n", op);
		return 2;
	}
	int rc = pwrite(fd, p, sh.sh_size, (off_t)sh.sh_offset) == (ssize_t)sh.sh_size ? 0 : 1;
	free(p);
	close(fd);
	return rc;
}
