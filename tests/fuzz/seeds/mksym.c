/* mksym: writes the symtrace seed (make-seeds.sh): a trace whose modules
 * are the ELF seeds, named relative to the top of the sources, with
 * callstacks through each of their functions.
 *   usage: mksym OUT ELF...  */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "profev_sym.h"

/* Up to max function addresses of an ELF file's symbol table. */
static unsigned functions(const char *path, uint64_t *addr, unsigned max)
{
	unsigned n = 0;
	int fd = open(path, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize && n < max; i++) {
			GElf_Sym s;
			if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_value)
				addr[n++] = s.st_value;
		}
	}
	elf_end(e);
	if (fd >= 0)
		close(fd);
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	elf_version(EV_CURRENT);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct profev_error err;
	struct profev_writer *w = fd >= 0 ? profev_writer_new(fd, NULL, &err) : NULL;
	if (!w)
		return 1;
	int rc = profev_writer_thread(w, 1, 1, "main");
	uint32_t name = profev_writer_cstring(w, "call");
	uint64_t ts = 1000;
	for (int m = 0; m + 2 < argc; m++) {
		uint8_t id[64];
		int idlen = profev_elf_build_id(argv[m + 2], id, sizeof(id));
		struct profev_module mod = { argv[m + 2], idlen > 0 ? id : NULL, idlen > 0 ? (uint32_t)idlen : 0,
					     0x7f0000000000ull + ((uint64_t)m << 32), 0x10000 };
		rc |= profev_writer_module(w, &mod) < 0;
		uint64_t addr[8];
		unsigned n = functions(argv[m + 2], addr, 8);
		struct profev_frame f[8];
		for (unsigned i = 0; i < n; i++)
			f[i] = (struct profev_frame){ (uint32_t)m, i ? PROFEV_FRAMEF_RETURN : 0, addr[i] + (i ? 5 : 0) };
		/* the whole stack, and each frame alone */
		for (unsigned k = 0; k <= n && n; k++) {
			struct profev_event e = { .ts = ts, .tid = 1, .name = name };
			e.type = PROFEV_EV_ZONE_BEGIN;
			e.stack = k == n ? profev_writer_stack(w, f, n) : profev_writer_stack(w, f + k, 1);
			rc |= profev_writer_event(w, &e);
			e = (struct profev_event){ .ts = ts + 5, .tid = 1, .type = PROFEV_EV_ZONE_END };
			rc |= profev_writer_event(w, &e);
			ts += 10;
		}
		if (m == 0 && n) { /* one address symbolized already */
			struct profev_symframe s = { "kept", "kept.c", 1, 0 };
			rc |= profev_writer_symbol(w, 0, f[0].offset, &s, 1);
		}
	}
	rc |= profev_writer_close(w);
	profev_writer_free(w);
	close(fd);
	return rc ? 1 : 0;
}
