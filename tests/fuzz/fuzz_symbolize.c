/*
 * The symbolizer (lib/sym/) on a mutated ELF file: opening it (symbol
 * tables, the list of compile units), looking up addresses spread over its
 * executable sections (each unit's .debug_info, abbreviations, ranges,
 * inline chains and line program), demangling the names found, its
 * build-id note and the debug-file search that reads .gnu_debuglink.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>
#include "fuzz.h"
#include "profev_sym.h"

#define LOOKUPS 256 /* per input, over all executable sections */

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

/* Executable sections' address ranges, read with libelf from the bytes. */
static unsigned code_ranges(const uint8_t *d, size_t n, uint64_t (*r)[2], unsigned max)
{
	unsigned k = 0;
	Elf *e = elf_memory((char *)d, n);
	Elf_Scn *scn = NULL;
	while (e && k < max && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			r[k][0] = sh.sh_addr;
			r[k][1] = sh.sh_addr + sh.sh_size;
			k++;
		}
	}
	elf_end(e);
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		elf_version(EV_CURRENT);
		snprintf(path, sizeof(path), "/tmp/profev-fuzz-elf.%d", (int)getpid());
		atexit(remove_file);
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	volatile size_t sink = 0;

	uint8_t id[64];
	sink += (size_t)profev_elf_build_id(path, id, sizeof(id));
	struct profev_debuginfo_opts dopts = { NULL, 0, "" };
	struct profev_debuginfo di;
	if (profev_debuginfo_find(path, NULL, 0, &dopts, &di) == 0) {
		sink += fuzz_touch(di.path) + fuzz_touch(di.symbols_path);
		for (unsigned i = 0; i < di.nwarnings; i++)
			sink += fuzz_touch(di.warnings[i]);
		profev_debuginfo_release(&di);
	}

	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(path, NULL, &err);
	if (!s) {
		sink += fuzz_touch(err.message);
		return 0;
	}
	sink += (size_t)profev_symbolizer_has_dwarf(s);
	uint64_t r[16][2];
	unsigned nr = code_ranges(data, size, r, 16);
	for (unsigned i = 0; i < nr; i++) {
		uint64_t len = r[i][1] - r[i][0];
		unsigned steps = LOOKUPS / nr;
		for (unsigned k = 0; k <= steps; k++) {
			uint64_t addr = r[i][0] + (steps ? len / steps * k : 0);
			const struct profev_symframe *f;
			int n = profev_symbolizer_lookup(s, addr, &f);
			for (int j = 0; j < n; j++) {
				sink += fuzz_touch(f[j].function) + fuzz_touch(f[j].file) + f[j].line;
				if (f[j].function && j == 0 && k % 16 == 0) {
					char *dm = profev_demangle(f[j].function);
					sink += fuzz_touch(dm);
					free(dm);
				}
			}
			if (n < 0)
				sink += fuzz_touch(profev_symbolizer_error(s)->message);
		}
	}
	const struct profev_symframe *f;
	sink += (size_t)profev_symbolizer_lookup(s, 0, &f);
	sink += (size_t)profev_symbolizer_lookup(s, UINT64_MAX, &f);
	profev_symbolizer_free(s);
	(void)sink;
	return 0;
}
