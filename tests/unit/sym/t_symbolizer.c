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
#include "symfix.h"

static char tmpdir[] = "/tmp/t_symbolizer.XXXXXX";


/* Executable sections' address ranges of an ELF file. */
static size_t code_ranges(const char *path, uint64_t (*r)[2], size_t max)
{
	size_t n = 0;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (e && (scn = elf_nextscn(e, scn)) && n < max)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size)
			r[n][0] = sh.sh_addr, r[n][1] = sh.sh_addr + sh.sh_size, n++;
	elf_end(e);
	close(fd);
	return n;
}

struct answer {
	char *text;  /* llvm-symbolizer's block for one address */
};

static void fmt_frames(char *buf, size_t cap, const struct profev_symframe *f, int n)
{
	size_t o = 0;
	buf[0] = '\0';
	if (n <= 0) {
		snprintf(buf, cap, "??\n??:0:0\n");
		return;
	}
	for (int i = 0; i < n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s\n%s:%u:%u\n",
				      f[i].function ? f[i].function : "??",
				      f[i].file ? f[i].file : "??", f[i].line, f[i].column);
}

/*
 * Symbolize addrs with pfsym's symbolizer on `path` and with llvm-symbolizer
 * on `ref`, and count the addresses whose answers differ (printing the
 * first few).
 */
static int compare(const char *path, const char *syms, const char *ref, const uint64_t *addrs,
		   size_t n, size_t *known)
{
	char list[512], out[512], cmd[2048];
	snprintf(list, sizeof(list), "%s/addrs", tmpdir);
	snprintf(out, sizeof(out), "%s/llvm.out", tmpdir);
	FILE *f = fopen(list, "w");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)addrs[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "llvm-symbolizer --inlines --demangle --obj=%s < '%s' > '%s'",
		 ref, list, out);
	if (symfix_run(cmd))
		return -1;
	FILE *in = fopen(out, "r");
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(path, syms, &err);
	CHECK(s != NULL);
	if (!s || !in) {
		if (in)
			fclose(in);
		profev_symbolizer_free(s);
		return -1;
	}
	int bad = 0;
	char line[8192], want[65536], got[65536];
	*known = 0;
	for (size_t i = 0; i < n; i++) {
		size_t o = 0;
		want[0] = '\0';
		while (fgets(line, sizeof(line), in) && line[0] != '\n')
			o += (size_t)snprintf(want + o, sizeof(want) - o, "%s", line);
		const struct profev_symframe *fr;
		int k = profev_symbolizer_lookup(s, addrs[i], &fr);
		CHECK(k >= 0);
		if (k > 0)
			(*known)++;
		fmt_frames(got, sizeof(got), fr, k);
		if (strcmp(want, got) != 0) {
			if (bad < 5)
				fprintf(stderr, "%s 0x%llx:\n--- llvm-symbolizer\n%s--- pfsym\n%s",
					path, (unsigned long long)addrs[i], want, got);
			bad++;
		}
	}
	fclose(in);
	profev_symbolizer_free(s);
	return bad;
}

/* Addresses spread over the code of path, plus those in extra. */
static uint64_t *sample(const char *path, unsigned stride, size_t *n)
{
	uint64_t r[32][2];
	size_t nr = code_ranges(path, r, 32), cap = 1024;
	uint64_t *a = malloc(cap * sizeof(*a));
	*n = 0;
	for (size_t i = 0; i < nr; i++)
		for (uint64_t x = r[i][0]; x < r[i][1]; x += stride) {
			if (*n == cap)
				a = realloc(a, (cap *= 2) * sizeof(*a));
			a[(*n)++] = x;
		}
	return a;
}

/* ref: llvm-symbolizer's --obj and options, the module's name first */
static void check_module(const char *path, const char *syms, const char *ref, unsigned stride,
			 const char *frames, unsigned module)
{
	size_t n;
	char refpath[1024];
	snprintf(refpath, sizeof(refpath), "%s", ref);
	refpath[strcspn(refpath, " ")] = '\0';
	uint64_t *a = sample(refpath, stride, &n);
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
	uint64_t *a = sample(prog, 7, &n);
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
 * (libc6-dbg), found by build-id like pfsym does, symbols from the library
 * itself. Skipped where the debug file is not installed.
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
	size_t n, known = 0;
	uint64_t *a = sample(lib, 97, &n);
	char ref[600];
	snprintf(ref, sizeof(ref), "'%s'", lib);
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

	/* DWARF from the debug file, symbols from the stripped module: as
	 * llvm-symbolizer finding the debug file by build-id */
	char stripped[1536];
	snprintf(stripped, sizeof(stripped), "%s/prog.stripped", fx);
	snprintf(r, sizeof(r), "%s --debug-file-directory=%s/dbg", stripped, fx);
	check_module(p, stripped, r, 5, frames, 0);

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
