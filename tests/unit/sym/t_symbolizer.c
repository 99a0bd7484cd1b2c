/*
 * lib/sym/symbolizer.c, with the pieces under it, against llvm-symbolizer
 * --inlines --demangle: every frame (function, file, line, column, inline
 * chain) of every address looked up must be the same, on the fixtures of
 * tests/sym (DWARF 5 program, DWARF 4 C++ library, separate debug file),
 * for addresses spread over all their code plus the return addresses the
 * program captured.
 * Also: errors for missing and non-ELF files (demangling: t_demangle.c).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "profev_sym.h"
#include "sym/sym_internal.h"
#include "symfix.h"

static char tmpdir[] = "/tmp/t_symbolizer.XXXXXX";


/* pfsym's symbolizer on path (symbols from syms) against llvm-symbolizer
 * on ref: the addresses whose answers differ. */
static int compare(const char *path, const char *syms, const char *ref, const uint64_t *addrs,
		   size_t n, size_t *known)
{
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(path, syms, &err);
	CHECK(s != NULL);
	if (!s)
		return -1;
	int bad = symfix_compare(tmpdir, s, ref, addrs, n, known);
	profev_symbolizer_free(s);
	return bad;
}

/* ref: llvm-symbolizer's --obj and options, the module's name first */
static void check_module(const char *path, const char *syms, const char *ref, unsigned stride,
			 const char *frames, unsigned module)
{
	size_t n;
	char refpath[1024];
	snprintf(refpath, sizeof(refpath), "%s", ref);
	refpath[strcspn(refpath, " ")] = '\0';
	uint64_t *a = symfix_sample(refpath, stride, &n);
	/* the return addresses the fixture captured, looked up at offset - 1 */
	FILE *f = fopen(frames, "r");
	unsigned m, fl;
	unsigned long long off;
	size_t nframes = 0;
	while (f && fscanf(f, "%u %llu %u", &m, &off, &fl) == 3) {
		if (m != module || (fl & PROFEV_FRAMEF_NOMODULE))
			continue;
		a = realloc(a, (n + 1) * sizeof(*a));
		a[n++] = (fl & PROFEV_FRAMEF_RETURN) ? off - 1 : off;
		nframes++;
	}
	if (f)
		fclose(f);
	CHECK(nframes > 0);
	size_t known = 0;
	int bad = compare(path, syms, ref, a, n, &known);
	fprintf(stderr, "%s: %zu addresses (%zu captured), %zu known, %d differ\n", path, n,
		nframes, known, bad);
	CHECK_EQ(bad, 0);
	CHECK(known > n / 2);
	free(a);
}

/*
 * The captured frames of the program that no DWARF unit covers are its
 * start-up code (_start) and the assembly function: both named, without a
 * file, by the debug file's .symtab; with the stripped module's .dynsym
 * alone they are unknown.
 */
static void check_symtab_only(const char *debug, const char *stripped, const char *frames)
{
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(debug, stripped, &err);
	struct profev_symbolizer *bare = profev_symbolizer_new(stripped, NULL, &err);
	CHECK(s && bare);
	FILE *f = fopen(frames, "r");
	unsigned m, fl;
	unsigned long long off;
	int start = 0, asm_fn = 0;
	while (s && bare && f && fscanf(f, "%u %llu %u", &m, &off, &fl) == 3) {
		if (m != 0 || (fl & PROFEV_FRAMEF_NOMODULE))
			continue;
		uint64_t a = (fl & PROFEV_FRAMEF_RETURN) ? off - 1 : off;
		const struct profev_symframe *fr;
		int k = profev_symbolizer_lookup(s, a, &fr);
		if (k != 1 || !fr[0].function || fr[0].file)
			continue;
		int is_start = strcmp(fr[0].function, "_start") == 0;
		int is_asm = strcmp(fr[0].function, "fixture_asm_call") == 0;
		start += is_start;
		asm_fn += is_asm;
		if (is_start || is_asm)
			CHECK_EQ(profev_symbolizer_lookup(bare, a, &fr), 0);
	}
	if (f)
		fclose(f);
	CHECK(start > 0);
	CHECK(asm_fn > 0);
	profev_symbolizer_free(s);
	profev_symbolizer_free(bare);
}

/* Section file offset and size by name, 0 if absent. */
static size_t section(const char *path, const char *name, size_t *size)
{
	size_t off = 0, shstrndx;
	int fd = open(path, O_RDONLY);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	*size = 0;
	if (e && elf_getshdrstrndx(e, &shstrndx) == 0)
		while ((scn = elf_nextscn(e, scn))) {
			const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			if (nm && strcmp(nm, name) == 0)
				off = sh.sh_offset, *size = sh.sh_size;
		}
	elf_end(e);
	close(fd);
	return off;
}

/*
 * Damaged debug info must not crash or loop: overwrite bytes of the DWARF
 * sections of a copy and look up every sampled address (run under
 * SAN=address,undefined to catch stray reads).
 */
static void check_damaged(const char *prog)
{
	static const char *const names[] = { ".debug_info", ".debug_line", ".debug_abbrev",
					     ".debug_rnglists", ".debug_line_str" };
	char path[600], cmd[2048];
	snprintf(path, sizeof(path), "%s/damaged", tmpdir);
	size_t n, hit = 0;
	uint64_t *a = symfix_sample(prog, 7, &n);
	uint64_t seed = 0x2545f4914f6cdd1dull;
	for (int round = 0; round < 12; round++) {
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", prog, path);
		if (symfix_run(cmd))
			break;
		FILE *f = fopen(path, "r+b");
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			size_t size, off = section(path, names[k], &size);
			for (int j = 0; size && j < 4 + round * 8; j++) {
				seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
				fseek(f, (long)(off + seed % size), SEEK_SET);
				fputc((int)(seed >> 40) & 0xff, f);
				hit++;
			}
		}
		fclose(f);
		struct profev_error err;
		struct profev_symbolizer *s = profev_symbolizer_new(path, NULL, &err);
		for (size_t i = 0; s && i < n; i++) {
			const struct profev_symframe *fr;
			int k = profev_symbolizer_lookup(s, a[i], &fr);
			CHECK(k >= 0 || k == PROFEV_E_NOMEM);
			for (int j = 0; j < k; j++)
				CHECK(!fr[j].function || strlen(fr[j].function) < 100000);
		}
		profev_symbolizer_free(s);
	}
	CHECK(hit > 100);
	free(a);
}

/*
 * A real library: the C library with its debug file from /usr/lib/debug
 * (libc6-dbg), found by build-id like pfsym does, symbols from the debug
 * file's .symtab. Skipped where the debug file is not installed.
 */
static void check_system_libc(void)
{
	const char *lib = "/lib/x86_64-linux-gnu/libc.so.6";
	uint8_t id[64];
	int idlen = profev_elf_build_id(lib, id, sizeof(id));
	struct profev_debuginfo di;
	if (idlen <= 0 || profev_debuginfo_find(lib, id, (unsigned)idlen, NULL, &di) < 0)
		return;
	if (!di.has_dwarf || !di.symbols_path) {
		fprintf(stderr, "%s: no debug file installed, skipped\n", lib);
		profev_debuginfo_release(&di);
		return;
	}
	/* the reference: llvm-symbolizer on the library put back together
	 * with its debug file, as it was before it was stripped */
	char ref[600], cmd[2048];
	snprintf(ref, sizeof(ref), "%s/libc.unstripped", tmpdir);
	snprintf(cmd, sizeof(cmd), "eu-unstrip -o '%s' '%s' '%s'", ref, lib, di.path);
	CHECK_EQ(symfix_run(cmd), 0);
	size_t n, known = 0;
	uint64_t *a = symfix_sample(lib, 97, &n);
	int bad = compare(di.path, di.symbols_path, ref, a, n, &known);
	fprintf(stderr, "%s with %s: %zu addresses, %zu known, %d differ\n", lib, di.path, n,
		known, bad);
	CHECK_EQ(bad, 0);
	CHECK(known > n / 2);
	free(a);
	profev_debuginfo_release(&di);
}

static void check_errors(void)
{
	struct profev_error err;
	char path[512];
	snprintf(path, sizeof(path), "%s/missing", tmpdir);
	CHECK(profev_symbolizer_new(path, NULL, &err) == NULL);
	CHECK_EQ(err.code, PROFEV_E_IO);
	CHECK(strstr(err.message, "missing") != NULL);
	snprintf(path, sizeof(path), "%s/text", tmpdir);
	FILE *f = fopen(path, "w");
	fputs("hello\n", f);
	fclose(f);
	CHECK(profev_symbolizer_new(path, NULL, &err) == NULL);
	CHECK_EQ(err.code, PROFEV_E_UNSUPPORTED);
	CHECK(strstr(err.message, "not an ELF file") != NULL);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	check_errors();
	check_system_libc();

	char cmd[4096], fx[512], p[1024], r[4096], frames[1024];
	if (symfix_build(tmpdir, fx, sizeof(fx)) != 0) {
		CHECK(!"fixtures built");
		return CHECK_DONE();
	}
	snprintf(frames, sizeof(frames), "%s/frames.txt", fx);
	snprintf(cmd, sizeof(cmd), "cd '%s' && ./prog t.bin ./libfix.so frames.txt 2>/dev/null", fx);
	CHECK_EQ(symfix_run(cmd), 0);

	/* the program: DWARF 5, C, inlined functions, a .cold part */
	snprintf(p, sizeof(p), "%s/prog", fx);
	check_module(p, NULL, p, 3, frames, 0);

	/* the dlopen'ed C++ library: DWARF 4; its module index is the last one */
	unsigned libmod = 0, m, fl;
	unsigned long long off;
	FILE *f = fopen(frames, "r");
	while (f && fscanf(f, "%u %llu %u", &m, &off, &fl) == 3)
		if (m > libmod && !(fl & PROFEV_FRAMEF_NOMODULE))
			libmod = m;
	if (f)
		fclose(f);
	snprintf(p, sizeof(p), "%s/libfix.so", fx);
	check_module(p, NULL, p, 1, frames, libmod);

	/* the separate debug file answers as the unstripped program does */
	snprintf(cmd, sizeof(cmd), "ls %s/dbg/.build-id/*/*.debug > %s/dbgname", fx, tmpdir);
	CHECK_EQ(symfix_run(cmd), 0);
	snprintf(p, sizeof(p), "%s/dbgname", tmpdir);
	f = fopen(p, "r");
	CHECK(f && fgets(p, sizeof(p), f));
	if (f)
		fclose(f);
	p[strcspn(p, "\n")] = '\0';
	snprintf(r, sizeof(r), "%s/prog", fx);
	check_module(p, NULL, r, 5, frames, 0);

	/* DWARF and .symtab from the debug file, the stripped module beside
	 * it: the answers of the unstripped program, start-up code and the
	 * assembly function (no DWARF covers them) named from the .symtab */
	char stripped[1536];
	snprintf(stripped, sizeof(stripped), "%s/prog.stripped", fx);
	snprintf(r, sizeof(r), "%s/prog", fx);
	check_module(p, stripped, r, 5, frames, 0);
	check_symtab_only(p, stripped, frames);

	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(p, NULL, &err);
	CHECK(s && profev_symbolizer_has_dwarf(s));
	profev_symbolizer_free(s);

	snprintf(p, sizeof(p), "%s/prog", fx);
	check_damaged(p);

	/* the stripped program has neither DWARF nor .symtab, only .dynsym */
	snprintf(p, sizeof(p), "%s/prog.stripped", fx);
	s = profev_symbolizer_new(p, NULL, &err);
	CHECK(s != NULL);
	if (s) {
		CHECK(!profev_symbolizer_has_dwarf(s));
		profev_symbolizer_free(s);
	}

	symfix_remove(tmpdir);
	return CHECK_DONE();
}
