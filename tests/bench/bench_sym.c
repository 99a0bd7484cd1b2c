/*
 * bench_sym: pfsym's symbolizer against llvm-symbolizer and binutils
 * addr2line on the same list of distinct addresses of a large -g -O2
 * binary (built by tests/sym/big.sh unless one is given), in one run.
 * Every tool starts cold: open the file, load what it needs, answer every
 * address, with inline chains and demangling. pfsym's answers are also
 * checked against llvm-symbolizer's.
 *
 * usage: bench_sym [BINARY [COUNT]]   (default: generated binary, 100000)
 * Exit status 1 if an answer differs from llvm-symbolizer's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "profev_sym.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds (user + system) of this process or of its waited children:
 * on a shared, loaded machine they vary less than wall time. */
static double cpu(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static double timed(const char *cmd, double *cpu_s)
{
	double t0 = now(), c0 = cpu(RUSAGE_CHILDREN);
	int rc = system(cmd);
	double t = now() - t0;
	if (cpu_s)
		*cpu_s = cpu(RUSAGE_CHILDREN) - c0;
	if (rc != 0) {
		fprintf(stderr, "bench_sym: '%s' failed (%d)\n", cmd, rc);
		return -1;
	}
	return t;
}

/* Distinct addresses spread evenly over the executable sections, in a
 * shuffled order as a trace would bring them. */
static uint64_t *addresses(const char *path, size_t want, size_t *n, uint64_t *text)
{
	uint64_t r[64][2];
	size_t nr = 0;
	*text = 0;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (e && (scn = elf_nextscn(e, scn)) && nr < 64)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			r[nr][0] = sh.sh_addr;
			r[nr][1] = sh.sh_addr + sh.sh_size;
			*text += sh.sh_size;
			nr++;
		}
	elf_end(e);
	close(fd);
	if (!*text)
		return NULL;
	uint64_t stride = *text / want ? *text / want : 1;
	uint64_t *a = malloc(want * sizeof(*a));
	*n = 0;
	for (size_t i = 0; i < nr && *n < want; i++)
		for (uint64_t x = r[i][0]; x < r[i][1] && *n < want; x += stride)
			a[(*n)++] = x;
	uint64_t seed = 88172645463325252ull;
	for (size_t i = *n; i > 1; i--) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		size_t j = seed % i;
		uint64_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
	return a;
}

static const uint64_t *sort_a;

static int cmp_order(const void *x, const void *y)
{
	uint64_t a = sort_a[*(const size_t *)x], b = sort_a[*(const size_t *)y];
	return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
	char dir[4000], bin[4096], cmd[16384], list[4200], out[4200], llvm[4200], a2l[4200];
	const char *root = getenv("PROFEV_ROOT") ? getenv("PROFEV_ROOT") : ".";
	size_t want = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000;
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (argc > 1) {
		snprintf(bin, sizeof(bin), "%s", argv[1]);
	} else {
		snprintf(bin, sizeof(bin), "%s/symbig/big", dir);
		snprintf(cmd, sizeof(cmd), "sh '%s/tests/sym/big.sh' '%s/symbig' >/dev/null 2>&1", root, dir);
		if (access(bin, X_OK) != 0)
			fprintf(stderr, "bench_sym: building the large binary (once, minutes)...\n");
		if (timed(cmd, NULL) < 0)
			return 2;
	}
	snprintf(list, sizeof(list), "%s/bench_sym.addrs", dir);
	snprintf(out, sizeof(out), "%s/bench_sym.pfsym", dir);
	snprintf(llvm, sizeof(llvm), "%s/bench_sym.llvm", dir);
	snprintf(a2l, sizeof(a2l), "%s/bench_sym.addr2line", dir);

	size_t n = 0;
	uint64_t text = 0;
	uint64_t *a = addresses(bin, want, &n, &text);
	if (!a) {
		fprintf(stderr, "bench_sym: '%s': no code to sample\n", bin);
		return 2;
	}
	FILE *f = fopen(list, "w");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)a[i]);
	fclose(f);

	/* pfsym: open, load, look up and print every address. Like
	 * profev_symtrace() it looks the addresses up in address order (each
	 * unit's tables are then walked in order), then prints them in the
	 * order given. */
	double t0 = now(), c0 = cpu(RUSAGE_SELF);
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(bin, NULL, &err);
	if (!s) {
		fprintf(stderr, "bench_sym: %s\n", err.message);
		return 2;
	}
	size_t *order = malloc(n * sizeof(*order));
	size_t *at = malloc((n + 1) * sizeof(*at));
	size_t cap = n * 64, len = 0;
	char *answers = malloc(cap);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_a = a;
	qsort(order, n, sizeof(*order), cmp_order);
	for (size_t i = 0; i < n; i++) {
		const struct profev_symframe *fr;
		int k = profev_symbolizer_lookup(s, a[order[i]], &fr);
		at[order[i]] = len;
		for (int j = 0; j < (k > 0 ? k : 1); j++) {
			const char *fn = k > 0 && fr[j].function ? fr[j].function : "??";
			const char *file = k > 0 && fr[j].file ? fr[j].file : "??";
			size_t need = strlen(fn) + strlen(file) + 32;
			if (len + need + 2 > cap)
				answers = realloc(answers, cap = (cap + need) * 2);
			len += (size_t)sprintf(answers + len, "%s\n%s:%u:%u\n", fn, file,
					       k > 0 ? fr[j].line : 0, k > 0 ? fr[j].column : 0);
		}
		answers[len++] = '\n';
		answers[len++] = '\0';
	}
	FILE *o = fopen(out, "w");
	for (size_t i = 0; i < n; i++)
		fputs(answers + at[i], o);
	fclose(o);
	free(answers);
	free(at);
	free(order);
	profev_symbolizer_free(s);
	double t_pfsym = now() - t0, c_pfsym = cpu(RUSAGE_SELF) - c0;

	snprintf(cmd, sizeof(cmd), "llvm-symbolizer --inlines --demangle --obj='%s' < '%s' > '%s'",
		 bin, list, llvm);
	double c_llvm = 0, c_a2l = 0;
	double t_llvm = timed(cmd, &c_llvm);
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -C -e '%s' < '%s' > '%s'", bin, list, a2l);
	double t_a2l = timed(cmd, &c_a2l);

	/* same answers? */
	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", out, llvm);
	int same = system(cmd) == 0;
	size_t differ = 0;
	if (!same) {
		FILE *x = fopen(out, "r"), *y = fopen(llvm, "r");
		char lx[8192], ly[8192];
		int block_bad = 0;
		while (x && y && fgets(lx, sizeof(lx), x) && fgets(ly, sizeof(ly), y)) {
			if (strcmp(lx, ly) != 0)
				block_bad = 1;
			if (lx[0] == '\n' || ly[0] == '\n') {
				differ += block_bad;
				block_bad = 0;
				/* resynchronize on block ends */
				while (lx[0] != '\n' && fgets(lx, sizeof(lx), x))
					;
				while (ly[0] != '\n' && fgets(ly, sizeof(ly), y))
					;
			}
		}
		if (x)
			fclose(x);
		if (y)
			fclose(y);
		if (!differ)
			differ = 1;
	}

	printf("pfsym benchmark: %zu distinct addresses of '%s' (%.1f MB of code)\n", n, bin,
	       (double)text / 1e6);
	printf("%-22s %8s %13s %8s %9s %8s\n", "tool", "wall s", "addresses/s", "vs llvm",
	       "CPU s", "vs llvm");
	printf("%-22s %8.3f %13.0f %7.2fx %9.3f %7.2fx\n", "pfsym (libprofev)", t_pfsym,
	       (double)n / t_pfsym, t_llvm > 0 ? t_llvm / t_pfsym : 0, c_pfsym,
	       t_llvm > 0 ? c_llvm / c_pfsym : 0);
	if (t_llvm > 0)
		printf("%-22s %8.3f %13.0f %7.2fx %9.3f %7.2fx\n", "llvm-symbolizer", t_llvm,
		       (double)n / t_llvm, 1.0, c_llvm, 1.0);
	if (t_a2l > 0)
		printf("%-22s %8.3f %13.0f %7.2fx %9.3f %7.2fx\n", "addr2line (binutils)", t_a2l,
		       (double)n / t_a2l, t_llvm > 0 ? t_llvm / t_a2l : 0, c_a2l,
		       t_llvm > 0 ? c_llvm / c_a2l : 0);
	printf("answers equal to llvm-symbolizer's: %zu of %zu\n", n - differ, n);
	free(a);
	return differ ? 1 : 0;
}
