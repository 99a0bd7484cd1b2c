/*
 * lib/sym/elf_sections.c: debug sections compressed with zlib (ELF
 * compression header, as -gz=zlib writes them), with zstd (as ld
 * --compress-debug-sections=zstd writes them) and in the legacy GNU
 * .zdebug form answer every address as llvm-symbolizer --inlines
 * --demangle does on the uncompressed program. Damaged variants (a flipped
 * byte in the compressed stream, a stated size too small or too large, a
 * cut file) are refused with an error naming the file, the section and its
 * offset; a stated size past the claim limits is refused as a limit.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "profev_sym.h"
#include "symfix.h"

static char tmpdir[] = "/tmp/t_elf_sections.XXXXXX";
static char fx[512];

/* Offset and size in the file of section name, and its flags; 0 if absent. */
static size_t section(const char *path, const char *name, size_t *size, uint64_t *flags)
{
	size_t off = 0, shstrndx;
	int fd = open(path, O_RDONLY);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	*size = 0;
	*flags = 0;
	if (e && elf_getshdrstrndx(e, &shstrndx) == 0)
		while ((scn = elf_nextscn(e, scn))) {
			const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			if (nm && strcmp(nm, name) == 0)
				off = sh.sh_offset, *size = sh.sh_size, *flags = sh.sh_flags;
		}
	elf_end(e);
	close(fd);
	return off;
}

static void patch(const char *path, size_t off, const void *bytes, size_t n)
{
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, bytes, n, (off_t)off) == (ssize_t)n);
	close(fd);
}

/* variant of prog made by cmd ("%s %s": from, to) answers as prog */
static void check_variant(const char *name, const char *cmd_fmt, const char *secname, int compressed_flag)
{
	char prog[600], var[600], cmd[4096];
	snprintf(prog, sizeof(prog), "%s/prog", fx);
	snprintf(var, sizeof(var), "%s/prog.%s", fx, name);
	snprintf(cmd, sizeof(cmd), cmd_fmt, prog, var);
	CHECK_EQ(symfix_run(cmd), 0);
	size_t size;
	uint64_t flags;
	CHECK(section(var, secname, &size, &flags) != 0);
	if (compressed_flag)
		CHECK(flags & SHF_COMPRESSED);
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(var, NULL, &err);
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "%s: %s\n", var, err.message);
		return;
	}
	CHECK(profev_symbolizer_has_dwarf(s));
	size_t n, known = 0;
	uint64_t *a = symfix_sample(prog, 3, &n);
	int bad = symfix_compare(tmpdir, s, prog, a, n, &known);
	fprintf(stderr, "%s: %zu addresses, %zu known, %d differ from llvm-symbolizer on prog\n",
		var, n, known, bad);
	CHECK_EQ(bad, 0);
	CHECK(known > n / 2);
	free(a);
	profev_symbolizer_free(s);
}

/* A copy of from damaged by fn must be refused with code and a message
 * naming it, the section and its offset. */
static void refused_as(const char *from, const char *what, void (*fn)(const char *path), int code)
{
	char path[600], cmd[2048];
	snprintf(path, sizeof(path), "%s/damaged-%s", tmpdir, what);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, path);
	CHECK_EQ(symfix_run(cmd), 0);
	fn(path);
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(path, NULL, &err);
	CHECK(s == NULL);
	if (s) {
		fprintf(stderr, "%s (%s): accepted\n", path, what);
		profev_symbolizer_free(s);
		return;
	}
	fprintf(stderr, "%s: refused: %s\n", what, err.message);
	CHECK_EQ(err.code, code);
	CHECK(strstr(err.message, path) != NULL);
	CHECK(strstr(err.message, "info' at offset 0x") != NULL || strstr(err.message, "cut") != NULL);
}

static void refused(const char *from, const char *what, void (*fn)(const char *path))
{
	refused_as(from, what, fn, PROFEV_E_CORRUPT);
}

/* One byte of the compressed .debug_info stream changed, at its start
 * (the zlib header, the zstd magic) or in its middle. */
static void flip_at(const char *path, int middle)
{
	size_t size;
	uint64_t flags;
	size_t off = section(path, ".debug_info", &size, &flags);
	size_t hdr = 24;
	if (!off)
		off = section(path, ".zdebug_info", &size, &flags), hdr = 12;
	CHECK(size > 64);
	size_t at = off + (middle ? size / 2 : hdr);
	uint8_t b;
	int fd = open(path, O_RDWR);
	CHECK(pread(fd, &b, 1, (off_t)at) == 1);
	b ^= 0x5a;
	CHECK(pwrite(fd, &b, 1, (off_t)at) == 1);
	close(fd);
}

static void flip_start(const char *path) { flip_at(path, 0); }
static void flip_middle(const char *path) { flip_at(path, 1); }

/* ch_size of the ELF64 compression header, or the .zdebug big-endian size */
static void size_by(const char *path, int delta)
{
	size_t size;
	uint64_t flags, v = 0;
	size_t off = section(path, ".debug_info", &size, &flags);
	int gnu = !off;
	if (gnu)
		off = section(path, ".zdebug_info", &size, &flags);
	uint8_t b[8];
	int fd = open(path, O_RDONLY);
	CHECK(pread(fd, b, 8, (off_t)(off + (gnu ? 4 : 8))) == 8);
	close(fd);
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b[gnu ? 7 - i : i] << (8 * i);
	v += (uint64_t)(int64_t)delta;
	for (int i = 0; i < 8; i++)
		b[gnu ? 7 - i : i] = (uint8_t)(v >> (8 * i));
	patch(path, off + (gnu ? 4 : 8), b, 8);
}

static void size_small(const char *path) { size_by(path, -1); }
static void size_large(const char *path) { size_by(path, 1); }
static void size_huge(const char *path) { size_by(path, 1 << 30); }

static void cut(const char *path)
{
	size_t size;
	uint64_t flags;
	size_t off = section(path, ".debug_info", &size, &flags);
	if (!off)
		off = section(path, ".zdebug_info", &size, &flags);
	CHECK_EQ(truncate(path, (off_t)(off + size / 2)), 0);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	if (symfix_build(tmpdir, fx, sizeof(fx)) != 0) {
		CHECK(!"fixtures built");
		return CHECK_DONE();
	}
	check_variant("zlib", "objcopy --compress-debug-sections=zlib '%s' '%s'", ".debug_info", 1);
	check_variant("zstd", "objcopy --compress-debug-sections=zstd '%s' '%s'", ".debug_info", 1);
	check_variant("zdebug", "objcopy --compress-debug-sections=zlib-gnu '%s' '%s'", ".zdebug_info", 0);
	/* as the compiler and the linker write them */
	char src[600];
	const char *root = getenv("PROFEV_ROOT");
	snprintf(src, sizeof(src), "%s/tests/sym/fixlib.cc", root ? root : ".");
	char gz[8192];
	snprintf(gz, sizeof(gz), "c++ -g -O2 -fPIC -shared -o '%s/libfix.plain.so' '%s' && "
		 "c++ -g -O2 -gz=zlib -fPIC -shared -o '%s/libfix.gz.so' '%s' && "
		 "c++ -g -O2 -fPIC -shared -Wl,--compress-debug-sections=zstd -o '%s/libfix.zstd.so' '%s'",
		 fx, src, fx, src, fx, src);
	CHECK_EQ(symfix_run(gz), 0);
	const char *libs[] = { "libfix.gz.so", "libfix.zstd.so" };
	for (int i = 0; i < 2; i++) {
		char lib[700], plain[700];
		snprintf(lib, sizeof(lib), "%s/%s", fx, libs[i]);
		snprintf(plain, sizeof(plain), "%s/libfix.plain.so", fx);
		size_t size;
		uint64_t flags;
		CHECK(section(lib, ".debug_info", &size, &flags) && (flags & SHF_COMPRESSED));
		struct profev_error err;
		struct profev_symbolizer *s = profev_symbolizer_new(lib, NULL, &err);
		CHECK(s != NULL);
		size_t n, known = 0;
		uint64_t *a = symfix_sample(plain, 1, &n);
		int bad = s ? symfix_compare(tmpdir, s, plain, a, n, &known) : -1;
		fprintf(stderr, "%s: %zu addresses, %zu known, %d differ\n", lib, n, known, bad);
		CHECK_EQ(bad, 0);
		CHECK(known > n / 2);
		free(a);
		profev_symbolizer_free(s);
	}

	static const char *const vars[] = { "zlib", "zstd", "zdebug" };
	for (int i = 0; i < 3; i++) {
		char from[700];
		snprintf(from, sizeof(from), "%s/prog.%s", fx, vars[i]);
		fprintf(stderr, "damaged %s:\n", vars[i]);
		refused(from, "flipped-start", flip_start);
		/* zlib's checksum catches any flip; binutils writes zstd frames
		 * without one, whose literals a flip may change unnoticed */
		if (strcmp(vars[i], "zstd") != 0)
			refused(from, "flipped-middle", flip_middle);
		refused(from, "size-small", size_small);
		refused(from, "size-large", size_large);
		/* a claim 1000 times the compressed size: refused unread */
		refused_as(from, "size-huge", size_huge, PROFEV_E_LIMIT);
		refused(from, "cut", cut);
	}
	symfix_remove(tmpdir);
	return CHECK_DONE();
}
