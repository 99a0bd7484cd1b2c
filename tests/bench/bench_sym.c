/*
 * bench_sym: pfsym's symbolizer against llvm-symbolizer and binutils
 * addr2line on the same list of distinct addresses of a large -g -O2
 * binary (built by tests/sym/big.sh unless one is given), in one run, on
 * three builds of the same program: plain DWARF, the same after dwz, and
 * a -gsplit-dwarf build (skeleton units in the binary, the rest in .dwo
 * files).
 *
 * Every tool runs as its own process and starts cold: open the file, load
 * what it needs, read the addresses from stdin, answer every address with
 * inline chains and demangling, and write the answers to a file. pfsym's
 * is this program run as `bench_sym --pfsym BINARY`: like
 * profev_symtrace() it looks the addresses up in address order (each
 * unit's tables are then walked in order) and prints them in the order
 * given, in llvm-symbolizer's output format. Wall time, CPU time and peak
 * RSS come from wait4() of each process. pfsym's answers are compared
 * with llvm-symbolizer's; on the split DWARF build with llvm-symbolizer's
 * on the plain build (the same code), since LLVM 14 leaves out some
 * inlined frames of split units there.
 *
 * usage: bench_sym [BINARY [COUNT]]   (default: the generated builds, 100000)
 *        bench_sym --pfsym BINARY < addresses > answers
 * Exit status 1 if an answer differs from llvm-symbolizer's, or a figure
 * could not be measured. PROFEV_BENCH_TINY=1: the same three builds of a
 * small program (8 files of 10 functions), 500 addresses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "profev_sym.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- */
/* The pfsym process                                                 */
/* ---------------------------------------------------------------- */

/* v in decimal at w; past it. */
static char *put_u(char *w, unsigned v)
{
	char b[16];
	int i = sizeof(b);
	do
		b[--i] = (char)('0' + v % 10);
	while (v /= 10);
	memcpy(w, b + i, sizeof(b) - (size_t)i);
	return w + sizeof(b) - (size_t)i;
}

/* All of fd (stdin) in a NUL-terminated buffer, its length in *n. */
static char *read_all(int fd, size_t *n)
{
	size_t cap = 1 << 20;
	char *b = malloc(cap + 1);
	*n = 0;
	for (;;) {
		if (!b)
			return NULL;
		ssize_t k = read(fd, b + *n, cap - *n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		*n += (size_t)k;
		if (*n == cap) {
			char *c = realloc(b, (cap *= 2) + 1);
			if (!c)
				free(b);
			b = c;
		}
	}
	if (b)
		b[*n] = '\0';
	return b;
}

static const uint64_t *sort_a;

static int cmp_order(const void *x, const void *y)
{
	uint64_t a = sort_a[*(const size_t *)x], b = sort_a[*(const size_t *)y];
	return a < b ? -1 : a > b;
}

/* order[] = 0..n-1 sorted by a[]: a radix sort of (address, index) packed
 * in 64 bits when they fit, else qsort. */
static void sort_order(const uint64_t *a, size_t n, size_t *order)
{
	uint64_t lo = ~(uint64_t)0, hi = 0;
	for (size_t i = 0; i < n; i++) {
		lo = a[i] < lo ? a[i] : lo;
		hi = a[i] > hi ? a[i] : hi;
	}
	unsigned ib = 1, kb = 1;
	while (ib < 64 && ((uint64_t)1 << ib) < n)
		ib++;
	while (kb < 64 && n && ((hi - lo) >> kb))
		kb++;
	uint64_t *k = n && ib + kb <= 64 ? malloc(2 * n * sizeof(*k)) : NULL;
	if (!k) {
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		sort_a = a;
		qsort(order, n, sizeof(*order), cmp_order);
		return;
	}
	uint64_t *t = k + n;
	for (size_t i = 0; i < n; i++)
		k[i] = (a[i] - lo) << ib | i;
	for (unsigned shift = 0; shift < ib + kb; shift += 11) {
		size_t count[2048] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[k[i] >> shift & 2047]++;
		for (size_t d = 0, sum = 0; d < 2048; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			t[count[k[i] >> shift & 2047]++] = k[i];
		uint64_t *x = k;
		k = t;
		t = x;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (size_t)(k[i] & (((uint64_t)1 << ib) - 1));
	free(k < t ? k : t);
}

static uint64_t hex(const char *p)
{
	uint64_t v = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (;; p++) {
		unsigned d = (unsigned)*p;
		if (d - '0' < 10)
			d -= '0';
		else if ((d | 32) - 'a' < 6)
			d = (d | 32) - 'a' + 10;
		else
			return v;
		v = v << 4 | d;
	}
}

/* b[0..n) to stdout. @return 0, 2 if it cannot be written. */
static int write_all(const char *b, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t k = write(1, b + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return 2;
		done += (size_t)k;
	}
	return 0;
}

/* Read addresses (hex, one a line) from stdin; answer as llvm-symbolizer
 * --inlines --demangle does on stdout. */
static int pfsym_main(const char *bin)
{
	size_t len = 0, n = 0;
	char *in = read_all(0, &len);
	size_t lines = 0;
	for (size_t i = 0; in && i < len; i++)
		lines += in[i] == '\n';
	uint64_t *a = malloc((lines + 1) * sizeof(*a));
	for (char *p = in, *e = in + len; in && a && p < e;) {
		char *nl = memchr(p, '\n', (size_t)(e - p));
		a[n++] = hex(p);
		p = nl ? nl + 1 : e;
	}
	free(in);
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_new(bin, NULL, &err);
	if (!s) {
		fprintf(stderr, "bench_sym: %s\n", err.message);
		return 2;
	}
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	size_t *at = malloc((n + 1) * sizeof(*at));
	if (!a || !order || !at) {
		fprintf(stderr, "bench_sym: out of memory\n");
		return 2;
	}
	sort_order(a, n, order);
	/* the frames of every answer (the symbolizer's strings live as long as
	 * it does), formatted in the order asked once all are known */
	struct frame {
		const char *fn, *file;
		unsigned line, col;
	} *fv = NULL;
	size_t nf = 0, capf = 0;
	for (size_t i = 0; i < n; i++) {
		const struct profev_symframe *fr;
		int k = profev_symbolizer_lookup(s, a[order[i]], &fr);
		at[i] = nf;
		for (int j = 0; j < (k > 0 ? k : 1); j++) {
			if (nf == capf) {
				capf = capf ? capf * 2 : n + 16;
				fv = realloc(fv, capf * sizeof(*fv));
				if (!fv) {
					fprintf(stderr, "bench_sym: out of memory\n");
					return 2;
				}
			}
			fv[nf++] = (struct frame){ k > 0 && fr[j].function ? fr[j].function : "??",
						   k > 0 && fr[j].file ? fr[j].file : "??",
						   k > 0 ? fr[j].line : 0, k > 0 ? fr[j].column : 0 };
		}
	}
	at[n] = nf;
	/* the answers in the order asked: rank[i] is where address i came in
	 * the lookups, its frames fv[at[rank] .. at[rank + 1]) */
	size_t *rank = malloc((n ? n : 1) * sizeof(*rank));
	if (!rank) {
		fprintf(stderr, "bench_sym: out of memory\n");
		return 2;
	}
	for (size_t r = 0; r < n; r++)
		rank[order[r]] = r;
	static char text[1 << 20];
	size_t w = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t r = rank[i];
		for (size_t j = at[r]; j < at[r + 1] && !rc; j++) {
			size_t nfn = strlen(fv[j].fn), nfile = strlen(fv[j].file);
			if (w + nfn + nfile + 32 > sizeof(text)) {
				rc = write_all(text, w);
				w = 0;
			}
			if (nfn + nfile + 32 > sizeof(text)) {
				rc = 2; /* names of a megabyte: not from this benchmark */
				break;
			}
			char *p = text + w;
			memcpy(p, fv[j].fn, nfn);
			p += nfn;
			*p++ = '\n';
			memcpy(p, fv[j].file, nfile);
			p += nfile;
			*p++ = ':';
			p = put_u(p, fv[j].line);
			*p++ = ':';
			p = put_u(p, fv[j].col);
			*p++ = '\n';
			w = (size_t)(p - text);
		}
		if (w + 1 > sizeof(text)) {
			rc = rc ? rc : write_all(text, w);
			w = 0;
		}
		text[w++] = '\n';
	}
	if (!rc)
		rc = write_all(text, w);
	free(fv);
	free(rank);
	free(at);
	free(order);
	free(a);
	profev_symbolizer_free(s);
	return rc;
}

/* ---------------------------------------------------------------- */
/* Measuring                                                         */
/* ---------------------------------------------------------------- */

struct run {
	double wall, cpu; /* s */
	double rss;       /* peak, MB */
	int ok;
};

/* argv with stdin from in, stdout to out (NULL: /dev/null), waited. */
static struct run run(char *const argv[], const char *in, const char *out)
{
	struct run r = { 0 };
	double t0 = now();
	pid_t pid = fork();
	if (pid == 0) {
		int i = open(in ? in : "/dev/null", O_RDONLY);
		int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (i < 0 || o < 0 || dup2(i, 0) < 0 || dup2(o, 1) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st = 0;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid) {
		fprintf(stderr, "bench_sym: '%s': %s\n", argv[0], strerror(errno));
		return r;
	}
	r.wall = now() - t0;
	r.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	r.rss = (double)ru.ru_maxrss / 1024.0;
	r.ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!r.ok)
		fprintf(stderr, "bench_sym: '%s' failed (status %d)\n", argv[0], st);
	return r;
}

static int sh(const char *cmd)
{
	return system(cmd) == 0 ? 0 : -1;
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

/* s with its first from (if any) replaced by to, in place (cap bytes). */
static void subst(char *s, size_t cap, const char *from, const char *to)
{
	char *at = from ? strstr(s, from) : NULL;
	size_t nf = from ? strlen(from) : 0, nt = to ? strlen(to) : 0;
	if (!at || strlen(s) - nf + nt >= cap)
		return;
	memmove(at + nt, at + nf, strlen(at + nf) + 1);
	memcpy(at, to, nt);
}

/* How many answer blocks of x differ from those of y (blank-line ended),
 * x's paths with from replaced by to. */
static size_t differing(const char *x_path, const char *y_path, size_t n, const char *from,
			const char *to)
{
	FILE *x = fopen(x_path, "r"), *y = fopen(y_path, "r");
	char lx[8192], ly[8192];
	size_t differ = 0, blocks = 0;
	int bad = 0;
	for (;;) {
		char *gx = x ? fgets(lx, sizeof(lx), x) : NULL;
		char *gy = y ? fgets(ly, sizeof(ly), y) : NULL;
		if (!gx || !gy) {
			if (gx || gy || bad)
				differ++;
			break;
		}
		subst(lx, sizeof(lx), from, to);
		if (strcmp(lx, ly) != 0)
			bad = 1;
		if (lx[0] == '\n' || ly[0] == '\n') {
			/* resynchronize on block ends */
			while (lx[0] != '\n' && fgets(lx, sizeof(lx), x))
				;
			while (ly[0] != '\n' && fgets(ly, sizeof(ly), y))
				;
			differ += bad;
			bad = 0;
			blocks++;
		}
	}
	if (x)
		fclose(x);
	if (y)
		fclose(y);
	if (blocks < n)
		differ += n - blocks;
	return differ > n ? n : differ;
}

/* A tool's row; its ratios to llvm-symbolizer's figures only when those
 * were measured. */
static void row(const char *tool, const struct run *r, const struct run *llvm, size_t n)
{
	char vs[3][16] = { "-", "-", "-" };
	if (llvm->ok) {
		snprintf(vs[0], sizeof vs[0], "%.2fx", llvm->wall / r->wall);
		snprintf(vs[1], sizeof vs[1], "%.2fx", llvm->cpu / r->cpu);
		snprintf(vs[2], sizeof vs[2], "%.2fx", r->rss / llvm->rss);
	}
	printf("%-22s %8.3f %11.0f %8s %8.3f %8s %8.1f %7s\n", tool, r->wall, (double)n / r->wall, vs[0], r->cpu,
	       vs[1], r->rss, vs[2]);
}

static void loadavg(char *buf, size_t cap)
{
	FILE *f = fopen("/proc/loadavg", "r");
	buf[0] = '\0';
	if (f && fgets(buf, (int)cap, f)) {
		/* the three averages only */
		char *p = buf;
		for (int k = 0; k < 3 && (p = strchr(p, ' ')); k++)
			p++;
		if (p)
			p[-1] = '\0';
	}
	if (f)
		fclose(f);
}

/*
 * One build: every tool on the same addresses. need: the speed-up goal
 * over llvm-symbolizer. ref: when not NULL, the answers pfsym's must equal
 * (llvm-symbolizer's on another build of the same code, whose paths have
 * to where this build's have from) rather than llvm-symbolizer's on this
 * one. @return 0 same answers, 1 some differ, 2 not run.
 */
static int bench_one(const char *self, const char *title, const char *bin, size_t want,
		     const char *dir, const char *tag, double need, const char *ref,
		     const char *from, const char *to)
{
	char list[4200], out[4200], llvm[4200], a2l[4200], obj[4200], la0[64], la1[64];
	snprintf(list, sizeof(list), "%s/bench_sym%s.addrs", dir, tag);
	snprintf(out, sizeof(out), "%s/bench_sym%s.pfsym", dir, tag);
	snprintf(llvm, sizeof(llvm), "%s/bench_sym%s.llvm", dir, tag);
	snprintf(a2l, sizeof(a2l), "%s/bench_sym%s.addr2line", dir, tag);
	snprintf(obj, sizeof(obj), "--obj=%s", bin);

	size_t n = 0;
	uint64_t text = 0;
	uint64_t *a = addresses(bin, want, &n, &text);
	if (!a) {
		bench_cannot(title, "'%s' has no code to sample", bin);
		return 2;
	}
	FILE *f = fopen(list, "w");
	if (!f) {
		fprintf(stderr, "bench_sym: '%s': %s\n", list, strerror(errno));
		free(a);
		return 2;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)a[i]);
	fclose(f);
	free(a);

	loadavg(la0, sizeof(la0));
	char *pf_argv[] = { (char *)self, "--pfsym", (char *)bin, NULL };
	char *llvm_argv[] = { "llvm-symbolizer", "--inlines", "--demangle", obj, NULL };
	char *a2l_argv[] = { "addr2line", "-f", "-i", "-C", "-e", (char *)bin, NULL };
	struct run pf = run(pf_argv, list, out);
	struct run lv = run(llvm_argv, list, llvm);
	struct run ad = run(a2l_argv, list, a2l);
	loadavg(la1, sizeof(la1));
	size_t differ = pf.ok && (ref || lv.ok) ? differing(out, ref ? ref : llvm, n, from, to) : n;

	printf("%s: %zu distinct addresses of '%s' (%.1f MB of code)\n", title, n, bin,
	       (double)text / 1e6);
	printf("load average %s before, %s after\n", la0, la1);
	printf("%-22s %8s %11s %8s %8s %8s %8s %7s\n", "tool", "wall s", "addr/s", "vs llvm",
	       "CPU s", "vs llvm", "RSS MB", "vs llvm");
	const struct { const char *name; const struct run *r; } tools[] = {
		{ "pfsym (libprofev)", &pf }, { "llvm-symbolizer", &lv }, { "addr2line (binutils)", &ad } };
	for (int i = 0; i < 3; i++) {
		if (tools[i].r->ok)
			row(tools[i].name, tools[i].r, &lv, n);
		else
			bench_cannot(tools[i].name, "it failed on '%s' (said above)", bin);
	}
	if (ref) {
		printf("answers equal to llvm-symbolizer's on the plain DWARF build: %zu of %zu\n",
		       n - differ, n);
		if (lv.ok)
			printf("llvm-symbolizer's own answers on this build equal them: %zu of %zu\n",
			       n - differing(llvm, ref, n, from, to), n);
	} else {
		printf("answers equal to llvm-symbolizer's: %zu of %zu\n", n - differ, n);
	}
	if (pf.ok && lv.ok) {
		double w = lv.wall / pf.wall, c = lv.cpu / pf.cpu;
		printf("goal >= %.0fx llvm-symbolizer (wall %.2fx, CPU %.2fx), peak RSS <= llvm-symbolizer's "
		       "(%.0f MB vs %.0f MB): %s\n",
		       need, w, c, pf.rss, lv.rss,
		       w >= need && c >= need && pf.rss <= lv.rss && !differ ? "met" : "NOT met");
	}
	printf("\n");
	return differ ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--pfsym") == 0)
		return pfsym_main(argv[2]);
	char dir[4000], bin[4096], cmd[32768], self[4096];
	const char *root = getenv("PROFEV_ROOT") ? getenv("PROFEV_ROOT") : ".";
	size_t want = argc > 2 ? strtoul(argv[2], NULL, 10) : bench_tiny() ? 500 : 100000;
	/* The generated program's size (tests/sym/big.sh FILES FUNCS), and
	 * where its builds go. */
	const char *size = bench_tiny() ? " 8 10" : "", *tiny = bench_tiny() ? "-tiny" : "";
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k <= 0)
		snprintf(self, sizeof(self), "%s", argv[0]);
	else
		self[k] = '\0';
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (argc > 1) {
		snprintf(bin, sizeof(bin), "%s", argv[1]);
		return bench_one(self, "pfsym benchmark", bin, want, dir, "", 10, NULL, NULL, NULL) == 1 ||
		       bench_status();
	}

	int status = 0;
	snprintf(bin, sizeof(bin), "%s/symbig%s/big", dir, tiny);
	snprintf(cmd, sizeof(cmd), "sh '%s/tests/sym/big.sh' '%s/symbig%s'%s >/dev/null 2>&1", root, dir, tiny, size);
	if (access(bin, X_OK) != 0)
		fprintf(stderr, "bench_sym: building the large binary (once, minutes)...\n");
	if (sh(cmd) < 0) {
		bench_cannot("pfsym", "'%s' failed", cmd);
		return 2;
	}
	status |= bench_one(self, "plain DWARF", bin, want, dir, "", 10, NULL, NULL, NULL) == 1;

	/* dwz over a copy: DW_TAG_partial_unit and DW_TAG_imported_unit,
	 * abstract origins by DW_FORM_ref_addr into the partial units */
	char dwz[4200];
	snprintf(dwz, sizeof(dwz), "%s/symbig%s-dwz/big", dir, tiny);
	snprintf(cmd, sizeof(cmd),
		 "test -x '%s' || { mkdir -p '%s/symbig%s-dwz' && cp '%s' '%s.tmp' && dwz '%s.tmp' && "
		 "mv '%s.tmp' '%s'; } >/dev/null 2>&1",
		 dwz, dir, tiny, bin, dwz, dwz, dwz, dwz);
	if (sh("command -v dwz >/dev/null 2>&1") < 0)
		bench_cannot("the dwz build", "dwz is not installed (Debian package dwz)");
	else if (sh(cmd) < 0)
		bench_cannot("the dwz build", "dwz failed on '%s'", bin);
	else
		status |= bench_one(self, "after dwz", dwz, want, dir, "-dwz", 5, NULL, NULL, NULL) == 1;

	/* split DWARF: the same sources built with -gsplit-dwarf */
	char split[4200];
	snprintf(split, sizeof(split), "%s/symbig%s-split/big", dir, tiny);
	snprintf(cmd, sizeof(cmd),
		 "BIG_FLAGS='-g -O2 -gsplit-dwarf' sh '%s/tests/sym/big.sh' '%s/symbig%s-split'%s >/dev/null 2>&1",
		 root, dir, tiny, size);
	if (access(split, X_OK) != 0)
		fprintf(stderr, "bench_sym: building the split DWARF binary (once, minutes)...\n");
	struct profev_error err;
	struct profev_symbolizer *s = sh(cmd) == 0 ? profev_symbolizer_new(split, NULL, &err) : NULL;
	if (!s)
		bench_cannot("the split DWARF build", "'%s' could not be built or opened", split);
	else if (!profev_symbolizer_has_dwarf(s))
		bench_cannot("the split DWARF build", "this pfsym reads no unit of '%s' (its skeleton "
			     "units need split DWARF support)", split);
	else {
		/* llvm-symbolizer 14 leaves out some inlined frames of split
		 * units: pfsym's answers must be those of the plain build */
		char ref[4200], from[64], to[64];
		snprintf(ref, sizeof(ref), "%s/bench_sym.llvm", dir);
		snprintf(from, sizeof(from), "/symbig%s-split/", tiny);
		snprintf(to, sizeof(to), "/symbig%s/", tiny);
		status |= bench_one(self, "split DWARF (.dwo files)", split, want, dir, "-split", 5,
				    ref, from, to) == 1;
	}
	profev_symbolizer_free(s);
	return status || bench_status();
}
