/* The symbolizer's test fixtures; see symfix.h. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symfix.h"

int symfix_run(const char *cmd)
{
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

int symfix_runf(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd)) {
		fprintf(stderr, "command too long: %.200s...\n", cmd);
		return -1;
	}
	return symfix_run(cmd);
}

int symfix_build(const char *dir, char *fx, size_t cap)
{
	char cmd[4096];
	const char *root = getenv("PROFEV_ROOT");
	snprintf(fx, cap, "%s/fx", dir);
	snprintf(cmd, sizeof(cmd), "sh '%s/tests/sym/build.sh' '%s'", root ? root : ".", fx);
	return symfix_run(cmd) ? -1 : 0;
}

void symfix_remove(const char *dir)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	symfix_run(cmd);
}

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

void symfix_format(char *buf, size_t cap, const struct profev_symframe *f, int n)
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
 * Symbolize addrs with s and with llvm-symbolizer on ref, and count the
 * addresses whose answers differ (printing the first few).
 */
int symfix_compare(const char *tmpdir, struct profev_symbolizer *s, const char *ref,
		   const uint64_t *addrs, size_t n, size_t *known)
{
	return symfix_check(tmpdir, s, ref, addrs, n, known, NULL);
}

/* No frame with a file or a line: what a unit left unresolved gives. */
static int lineless(const struct profev_symframe *f, int n)
{
	for (int i = 0; i < n; i++)
		if (f[i].file || f[i].line)
			return 0;
	return 1;
}

int symfix_check(const char *tmpdir, struct profev_symbolizer *s, const char *ref,
		 const uint64_t *addrs, size_t n, size_t *known, size_t *dropped)
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
	if (!in)
		return -1;
	int bad = 0;
	char line[8192], want[65536], got[65536];
	*known = 0;
	if (dropped)
		*dropped = 0;
	for (size_t i = 0; i < n; i++) {
		size_t o = 0;
		want[0] = '\0';
		while (fgets(line, sizeof(line), in) && line[0] != '\n')
			o += (size_t)snprintf(want + o, sizeof(want) - o, "%s", line);
		const struct profev_symframe *fr;
		int k = profev_symbolizer_lookup(s, addrs[i], &fr);
		if (k < 0) {
			fprintf(stderr, "0x%llx: %s\n", (unsigned long long)addrs[i],
				profev_symbolizer_error(s)->message);
			bad++;
		}
		if (k > 0)
			(*known)++;
		symfix_format(got, sizeof(got), fr, k);
		if (strcmp(want, got) != 0 && dropped && lineless(fr, k)) {
			(*dropped)++;
		} else if (strcmp(want, got) != 0) {
			if (bad < 5)
				fprintf(stderr, "%s 0x%llx:\n--- llvm-symbolizer\n%s--- pfsym\n%s",
					ref, (unsigned long long)addrs[i], want, got);
			bad++;
		}
	}
	fclose(in);
	return bad;
}

/* Addresses spread over the code of path, every stride bytes. */
uint64_t *symfix_sample(const char *path, unsigned stride, size_t *n)
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

