/*
 * bench_sample - pfrec --sample against perf record on the same program,
 * in the same run, and the cost of pfrec's DWARF unwinding.
 *
 *   bench_sample PFREC WORK [N [GAPS]]   (tests/bench/sample.sh builds both)
 *
 * WORK (tests/bench/sample_work.c, -O2 -fomit-frame-pointer) does a fixed
 * amount of work about 20 frames deep and prints its own wall time for it,
 * its process's CPU time (user and kernel) and its context switches.
 * The runs are interleaved: each round runs every way of recording once
 * (the unsampled program too), starting one further along the list each
 * round, so that a neighbour's busy spell weighs on all of them alike;
 * PROFEV_BENCH_SAMPLE_REPS rounds (default 7). The table gives medians
 * and the spread over the rounds. The overhead is the program's CPU time
 * against the unsampled runs' median (the kernel's sampling and stack
 * copies are charged to the program; on a shared machine its wall time
 * mostly measures the neighbours); its kernel time per sample; the
 * recorder's own CPU time (pfrec's or perf's, the whole process) per
 * sample; bytes on disk per sample. perf records the same event,
 * cpu-clock in user space at the same fixed period, with frame pointers
 * (-g) and with --call-graph dwarf (8 KiB copies, as pfrec's default).
 * Then each pfrec row against its perf row round by round: the ratio of
 * the program's CPU times in the same round, whose median says whether
 * pfrec costs the program more than perf. GAPS (sample_gaps.c) measures
 * the same more directly and steadily on a loaded machine: the program's
 * own view of the time each sample took from it, as the gaps in a loop
 * that reads the clock; it runs in each round after WORK under the same
 * recorder. PROFEV_BENCH_SAMPLE_HZ=1000 or
 * 10000 runs only that frequency's rows. Last, dwarf_unwind() itself on a
 * stack 20 frames deep, copied in this process as the kernel copies one.
 * PROFEV_BENCH_TINY=1: one round of the 1 kHz rows on a twentieth of the
 * work, and a short gap probe.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "profev_trace.h"
#include "rec/dwarf_unwind.h"

struct run {
	double work, cpu, user, sys, rec_cpu; /* program wall, CPU, its parts; recorder CPU */
	long csw, icsw;                       /* the program's context switches */
	uint64_t samples, lost, bytes;
	int ok;
	double gap_med, gap_mean, gap_share;  /* GAPS: ns, ns, of its CPU time */
	long gaps;
	int gap_ok;
};

static double tv(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

/* Runs argv with stdout into a pipe; the program's line and the whole
 * process tree's CPU time. */
static int run_once(char *const *argv, struct run *r)
{
	int p[2];
	if (pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		close(p[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	char buf[256] = "";
	FILE *f = fdopen(p[0], "r");
	if (!f || !fgets(buf, sizeof buf, f))
		buf[0] = 0;
	while (f && fgetc(f) != EOF)
		;
	if (f)
		fclose(f);
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	long off;
	if (sscanf(buf, "gaps %ld med %lf mean %lf share %lf off %ld", &r->gaps, &r->gap_med, &r->gap_mean,
		   &r->gap_share, &off) == 5) {
		r->gap_ok = 1;
		return 0;
	}
	if (sscanf(buf, "work %lf cpu %lf user %lf sys %lf csw %ld icsw %ld", &r->work, &r->cpu, &r->user,
		   &r->sys, &r->csw, &r->icsw) != 6)
		return -1;
	r->rec_cpu = tv(ru.ru_utime) + tv(ru.ru_stime) - r->cpu;
	r->ok = 1;
	return 0;
}

static void pfrec_counts(const char *path, struct run *r)
{
	FILE *f = fopen(path, "rb");
	struct profev_error err;
	struct profev_reader *rd = f ? profev_reader_new(f, &err) : NULL;
	struct profev_event ev;
	r->samples = r->lost = 0;
	while (rd && profev_reader_next_event(rd, &ev, NULL) == 1) {
		if (ev.type == PROFEV_EV_SAMPLE)
			r->samples++;
		else if (ev.type == PROFEV_EV_SAMPLE_LOST)
			r->lost += ev.payload;
	}
	profev_reader_free(rd);
	if (f)
		fclose(f);
}

static void perf_counts(const char *path, struct run *r)
{
	char cmd[512], line[256];
	snprintf(cmd, sizeof cmd, "perf report -i '%s' --stats 2>/dev/null", path);
	FILE *f = popen(cmd, "r");
	r->samples = r->lost = 0;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long long v;
		if (sscanf(line, " SAMPLE events: %llu", &v) == 1)
			r->samples = v;
		else if (sscanf(line, " LOST events: %llu", &v) == 1 ||
			 sscanf(line, " LOST_SAMPLES events: %llu", &v) == 1)
			r->lost += v;
	}
	if (f)
		pclose(f);
}

/* The recorder's argv (NULL for none) with the program and its argument. */
static void join(char *const *pre, char *prog, char *arg, char **argv)
{
	int k = 0;
	for (; pre && pre[k]; k++)
		argv[k] = pre[k];
	argv[k++] = prog;
	argv[k++] = arg;
	argv[k] = NULL;
}

/* The seconds of CPU the gap probe spins for. */
static const char *gap_seconds(void)
{
	return bench_tiny() ? "0.05" : "0.5";
}

/* GAPS under the recorder: its line into r's gap fields. */
static void measure_gaps(char *const *pre, char *gaps, const char *out, struct run *r)
{
	char *argv[24], secs[8];
	snprintf(secs, sizeof secs, "%s", gap_seconds());
	join(pre, gaps, secs, argv);
	struct run g = { 0 };
	if (out)
		unlink(out);
	if (run_once(argv, &g) == 0 && g.gap_ok) {
		r->gap_ok = 1;
		r->gap_med = g.gap_med;
		r->gap_mean = g.gap_mean;
		r->gap_share = g.gap_share;
		r->gaps = g.gaps;
	}
	if (out)
		unlink(out);
}

static void measure(char *const *pre, char *work, char *n, const char *out, int is_perf, struct run *r)
{
	char *argv[24];
	join(pre, work, n, argv);
	memset(r, 0, sizeof *r);
	if (out)
		unlink(out);
	if (run_once(argv, r) < 0) {
		r->ok = 0;
		return;
	}
	if (out) {
		struct stat st;
		r->bytes = stat(out, &st) == 0 ? (uint64_t)st.st_size : 0;
		if (is_perf)
			perf_counts(out, r);
		else
			pfrec_counts(out, r);
		unlink(out);
	}
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of n values (sorted in place), their least and greatest. */
static double median(double *v, int n, double *lo, double *hi)
{
	qsort(v, (size_t)n, sizeof *v, by_double);
	if (lo)
		*lo = v[0];
	if (hi)
		*hi = v[n - 1];
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- dwarf_unwind() alone --------------------------------------------- */

struct mod {
	uint64_t lo, hi, bias;
	int32_t tables;
};
static struct mod mods[64];
static int nmods;
static struct dwarf_unwinder *uw;

static int add_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size, (void)ctx;
	const char *path = info->dlpi_name;
	char exe[4096];
	if (!path[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return 0;
		exe[n] = 0;
		path = exe;
	} else if (strstr(path, "vdso")) {
		path = "[vdso]";
	}
	for (int i = 0; i < info->dlpi_phnum && nmods < 64; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type == PT_LOAD && (p->p_flags & PF_X))
			mods[nmods++] = (struct mod){ info->dlpi_addr + p->p_vaddr,
						      info->dlpi_addr + p->p_vaddr + p->p_memsz,
						      info->dlpi_addr, dwarf_unwinder_load(uw, path) };
	}
	return 0;
}

/* The same lookup pfrec makes: a binary search of the process's modules. */
static int find(void *ctx, uint64_t pc, int32_t *tables, uint64_t *bias)
{
	(void)ctx;
	int lo = 0, hi = nmods;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (mods[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nmods || pc < mods[lo].lo || mods[lo].tables < 0)
		return -1;
	*tables = mods[lo].tables;
	*bias = mods[lo].bias;
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct mod *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

static unsigned char stack_copy[8192];
static size_t stack_len;
static uintptr_t stack_top;   /* the copy stops there, as the kernel's does */
static struct dwarf_regs regs;
volatile int sink;

/* The copy reads the callers' frames, redzones included, as the sampler's
 * kernel copy does; ASan must not see it as an overflow. */
__attribute__((noinline, no_sanitize("address"))) static void copy_stack(uint64_t sp)
{
	const volatile unsigned char *from = (const volatile unsigned char *)(uintptr_t)sp;
	for (size_t i = 0; i < stack_len; i++)
		stack_copy[i] = from[i];
}

__attribute__((noinline)) static void capture(void)
{
#if defined(__x86_64__)
	uint64_t ip, sp, bp;
	__asm__ __volatile__("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2"
			     : "=r"(ip), "=r"(sp), "=r"(bp));
	regs = (struct dwarf_regs){ ip, sp, bp };
#else
	uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
#endif
	stack_len = stack_top > sp && stack_top - sp < sizeof stack_copy ? stack_top - sp : sizeof stack_copy;
	copy_stack(sp);
}

__attribute__((noinline)) static void deep(int n)
{
	volatile char pad[24];
	pad[n % 24] = (char)n;
	if (n)
		deep(n - 1);
	else
		capture();
	sink += pad[n % 24];
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void bench_unwind(void)
{
#if !defined(__x86_64__)
	bench_cannot("dwarf_unwind()", "pfrec unwinds sampled stacks on x86-64 only");
	return;
#endif
	uw = dwarf_unwinder_new();
	if (!uw) {
		bench_cannot("dwarf_unwind()", "out of memory");
		return;
	}
	double t0 = now();
	dl_iterate_phdr(add_module, NULL);
	double t_load = now() - t0;
	qsort(mods, (size_t)nmods, sizeof *mods, by_lo);
	pthread_attr_t at;
	void *lo;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &at) == 0) {
		if (pthread_attr_getstack(&at, &lo, &size) == 0)
			stack_top = (uintptr_t)lo + size;
		pthread_attr_destroy(&at);
	}
	/* 20 frames of the program: deep() 16 times under main, libc's two
	 * and _start. */
	deep(15);
	uint64_t pcs[128];
	int complete;
	t0 = now();
	unsigned n = dwarf_unwind(uw, &regs, stack_copy, stack_len, find, NULL, pcs, 128, &complete);
	double t_first = now() - t0;
	double best = 1e9;
	for (int k = 0; k < 5; k++) {
		t0 = now();
		for (int i = 0; i < 100000; i++)
			n = dwarf_unwind(uw, &regs, stack_copy, stack_len, find, NULL, pcs, 128,
					 &complete);
		double t = (now() - t0) / 100000;
		if (t < best)
			best = t;
	}
	if (!n) {
		bench_cannot("dwarf_unwind()", "it found no frame on the copied stack");
		dwarf_unwinder_free(uw);
		return;
	}
	printf("\ndwarf_unwind() on a copied stack of %u frames (%s):\n", n,
	       complete ? "to _start" : "cut short");
	printf("  tables of %d modules loaded in %.0f us; first walk (every rule decoded) %.2f us\n",
	       nmods, t_load * 1e6, t_first * 1e6);
	printf("  walk with the rules cached: %.3f us (%.1f ns per frame)   goal <= 5 us at depth 20\n",
	       best * 1e6, best * 1e9 / n);
	dwarf_unwinder_free(uw);
}

#define MAX_REPS 31

/* The recorders' table. Not main: its runs take kilobytes of stack, which
 * bench_unwind's 8K copy must not have to cross to reach _start. */
__attribute__((noinline)) static int bench_recorders(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_sample PFREC WORK [N [GAPS]]\n");
		return 2;
	}
	char *pfrec = argv[1], *work = argv[2], *n = argc > 3 ? argv[3] : "200000";
	char *gaps = argc > 4 ? argv[4] : NULL;
	const char *e = getenv("PROFEV_BENCH_SAMPLE_REPS");
	int reps = e ? atoi(e) : 7;
	if (reps < 1 || reps > MAX_REPS)
		reps = 7;
	const char *only = getenv("PROFEV_BENCH_SAMPLE_HZ");
	char tiny_n[32];
	if (bench_tiny()) {
		reps = 1;
		snprintf(tiny_n, sizeof tiny_n, "%ld", atol(n) / 20);
		n = tiny_n;
		if (!only)
			only = "1000";
	}
	char out[] = "/tmp/profev-bench-sample.XXXXXX";
	int fd = mkstemp(out);
	if (fd < 0)
		return 1;
	close(fd);
	int have_perf = system("perf --version >/dev/null 2>&1") == 0;
	/* pair: the row of perf's with the same unwinding, for pfrec's rows */
	struct mode {
		const char *name;
		unsigned hz;
		int perf, pair;
		char *argv[16];
		struct run runs[MAX_REPS];
	} modes[] = {
		{ "unsampled", 0, 0, -1, { NULL }, { { 0 } } },
		{ "pfrec --sample=1000 (DWARF, 8K stacks)", 1000, 0, 4,
		  { pfrec, "-q", "--sample=1000", "-o", out, "--", NULL }, { { 0 } } },
		{ "pfrec --sample=1000 --sample-stack=0", 1000, 0, 3,
		  { pfrec, "-q", "--sample=1000", "--sample-stack=0", "-o", out, "--", NULL }, { { 0 } } },
		{ "perf record -c 1ms -g", 1000, 1, -1,
		  { "perf", "record", "-q", "-e", "cpu-clock:u", "-c", "1000000", "-g", "-o", out, "--", NULL },
		  { { 0 } } },
		{ "perf record -c 1ms --call-graph dwarf", 1000, 1, -1,
		  { "perf", "record", "-q", "-e", "cpu-clock:u", "-c", "1000000", "--call-graph", "dwarf", "-o", out,
		    "--", NULL }, { { 0 } } },
		{ "pfrec --sample=10000 (DWARF, 8K stacks)", 10000, 0, 8,
		  { pfrec, "-q", "--sample=10000", "-o", out, "--", NULL }, { { 0 } } },
		{ "pfrec --sample=10000 --sample-stack=0", 10000, 0, 7,
		  { pfrec, "-q", "--sample=10000", "--sample-stack=0", "-o", out, "--", NULL }, { { 0 } } },
		{ "perf record -c 100us -g", 10000, 1, -1,
		  { "perf", "record", "-q", "-e", "cpu-clock:u", "-c", "100000", "-g", "-o", out, "--", NULL },
		  { { 0 } } },
		{ "perf record -c 100us --call-graph dwarf", 10000, 1, -1,
		  { "perf", "record", "-q", "-e", "cpu-clock:u", "-c", "100000", "--call-graph", "dwarf", "-o", out,
		    "--", NULL }, { { 0 } } },
	};

	int nmodes = (int)(sizeof modes / sizeof *modes);
	int want[sizeof modes / sizeof *modes];
	for (int i = 0; i < nmodes; i++)
		want[i] = !modes[i].hz || ((!modes[i].perf || have_perf) &&
					   (!only || (unsigned)atoi(only) == modes[i].hz));
	double la0[3] = { -1, -1, -1 }, la1[3] = { -1, -1, -1 };
	getloadavg(la0, 3);
	for (int k = 0; k < reps; k++)
		for (int j = 0; j < nmodes; j++) {
			int i = (j + k) % nmodes;
			if (!want[i])
				continue;
			char *const *pre = modes[i].hz ? modes[i].argv : NULL;
			measure(pre, work, n, modes[i].hz ? out : NULL, modes[i].perf, &modes[i].runs[k]);
			if (gaps)
				measure_gaps(pre, gaps, modes[i].hz ? out : NULL, &modes[i].runs[k]);
		}
	getloadavg(la1, 3);
	unlink(out);

	double base_v[MAX_REPS], v[MAX_REPS];
	int nb = 0;
	for (int k = 0; k < reps; k++)
		if (modes[0].runs[k].ok)
			base_v[nb++] = modes[0].runs[k].cpu;
	if (!nb) {
		bench_cannot("the unsampled program", "'%s' does not run, or prints no \"work ...\" line", work);
		return 1;
	}
	double blo, bhi, base = median(base_v, nb, &blo, &bhi);
	for (int k = nb = 0; k < reps; k++)
		if (modes[0].runs[k].ok)
			base_v[nb++] = modes[0].runs[k].work;
	double base_wall = median(base_v, nb, NULL, NULL);
	printf("the program unsampled: %.3f s of CPU (median of %d, %.3f-%.3f), %.3f s wall\n", base, nb, blo,
	       bhi, base_wall);
	double base_share = 0;
	if (gaps) {
		int c = 0;
		for (int k = 0; k < reps; k++)
			if (modes[0].runs[k].gap_ok)
				v[c++] = modes[0].runs[k].gap_share;
		base_share = c ? median(v, c, NULL, NULL) : 0;
		for (int k = c = 0; k < reps; k++)
			if (modes[0].runs[k].gap_ok)
				v[c++] = (double)modes[0].runs[k].gaps;
		if (c)
			printf("the gap probe unsampled: %.0f interruptions of 0.5-200 us in %s s of CPU, %.2f%% of it "
			       "(medians)\n", median(v, c, NULL, NULL), gap_seconds(), base_share * 100);
	}
	printf("load average %.2f %.2f %.2f before, %.2f %.2f %.2f after (%ld CPUs), %d rounds\n\n", la0[0], la0[1],
	       la0[2], la1[0], la1[1], la1[2], sysconf(_SC_NPROCESSORS_ONLN), reps);
	printf("%-41s %18s %5s %5s %7s %5s %8s %9s %22s %6s\n", "recorder (medians of the rounds)",
	       "CPU ratio [spread]", "wall", "icsw", "samples", "lost", "rec/smp", "B/sample",
	       "program us/smp [spread]", "share");
	double pf_bytes[2] = { 0 }, perf_dwarf_bytes[2] = { 0 };
	for (int i = 1; i < nmodes; i++) {
		if (!want[i]) {
			if (modes[i].perf && !have_perf && (!only || (unsigned)atoi(only) == modes[i].hz))
				bench_cannot(modes[i].name, "perf is not installed (Debian: linux-perf)");
			continue;
		}
		struct run *rs = modes[i].runs;
		int m = 0, ran = 0;
		for (int k = 0; k < reps; k++) {
			ran += rs[k].ok;
			if (rs[k].ok && rs[k].samples)
				v[m++] = rs[k].cpu / base;
		}
		if (!m) {
			if (!ran)
				bench_cannot(modes[i].name, "the program did not run under it (perf_event_open refused?)");
			else if (modes[i].perf)
				bench_cannot(modes[i].name, "'perf report --stats' lists no SAMPLE events");
			else
				bench_cannot(modes[i].name, "its traces hold no sample");
			continue;
		}
		double lo, hi, ratio = median(v, m, &lo, &hi);
		double med[7];
		for (int f = 0; f < 7; f++) {
			int c = 0;
			for (int k = 0; k < reps; k++) {
				const struct run *r = &rs[k];
				if (!r->ok || !r->samples)
					continue;
				double x[7] = { r->work / base_wall, (double)r->icsw, (double)r->samples, (double)r->lost,
						r->rec_cpu * 1e6 / (double)r->samples,
						(double)r->bytes / (double)r->samples, 0 };
				v[c++] = x[f];
			}
			med[f] = median(v, c, NULL, NULL);
		}
		char cr[40], gr[40] = "-", gs[16] = "-";
		snprintf(cr, sizeof cr, "%.3fx [%.3f-%.3f]", ratio, lo, hi);
		int c = 0;
		for (int k = 0; k < reps; k++)
			if (rs[k].gap_ok)
				v[c++] = (rs[k].gap_share - base_share) / modes[i].hz * 1e6;
		if (gaps && !c)
			bench_cannot(modes[i].name, "the gap probe printed no \"gaps ...\" line under it");
		if (c) {
			double glo, ghi, g = median(v, c, &glo, &ghi);
			snprintf(gr, sizeof gr, "%.2f [%.2f-%.2f]", g, glo, ghi);
			for (int k = c = 0; k < reps; k++)
				if (rs[k].gap_ok)
					v[c++] = rs[k].gap_share;
			snprintf(gs, sizeof gs, "%.3f", median(v, c, NULL, NULL));
		}
		printf("%-41s %18s %4.2fx %5.0f %7.0f %5.0f %6.2fus %9.1f %22s %6s\n", modes[i].name, cr, med[0],
		       med[1], med[2], med[3], med[4], med[5], gr, gs);
		int hz10 = modes[i].hz == 10000;
		if (!modes[i].perf && strstr(modes[i].name, "DWARF"))
			pf_bytes[hz10] = med[5];
		if (strstr(modes[i].name, "dwarf"))
			perf_dwarf_bytes[hz10] = med[5];
	}
	printf("(CPU ratio: the program's CPU time against the unsampled median, its least and greatest over the\n"
	       " rounds; icsw: its involuntary context switches; rec/smp: the recorder's CPU time per sample;\n"
	       " program us/smp: the program's time per sample by the gap probe, the share of its CPU time lost\n"
	       " to interruptions (share) beyond the unsampled probe's, over the sampling rate)\n");
	printf("\npfrec against perf in the same round (median [least-greatest], <= 1 meets the goal):\n");
	printf("  %-41s   %-38s %22s %22s\n", "", "", "program CPU", "program us/sample");
	for (int i = 1; i < nmodes; i++) {
		int j = modes[i].pair;
		if (j < 0 || !want[i] || !want[j])
			continue;
		char cpu_r[40] = "-", gap_r[40] = "-";
		int m = 0;
		for (int k = 0; k < reps; k++)
			if (modes[i].runs[k].ok && modes[j].runs[k].ok && modes[i].runs[k].samples &&
			    modes[j].runs[k].samples)
				v[m++] = modes[i].runs[k].cpu / modes[j].runs[k].cpu;
		if (m) {
			double lo, hi, r = median(v, m, &lo, &hi);
			snprintf(cpu_r, sizeof cpu_r, "%.3f [%.3f-%.3f]", r, lo, hi);
		}
		m = 0;
		for (int k = 0; k < reps; k++)
			if (modes[i].runs[k].gap_ok && modes[j].runs[k].gap_ok && modes[0].runs[k].gap_ok &&
			    modes[j].runs[k].gap_share > modes[0].runs[k].gap_share)
				v[m++] = (modes[i].runs[k].gap_share - modes[0].runs[k].gap_share) /
					 (modes[j].runs[k].gap_share - modes[0].runs[k].gap_share);
		if (m) {
			double lo, hi, r = median(v, m, &lo, &hi);
			snprintf(gap_r, sizeof gap_r, "%.3f [%.3f-%.3f]", r, lo, hi);
		}
		printf("  %-41s / %-38s %22s %22s\n", modes[i].name, modes[j].name, cpu_r, gap_r);
	}
	for (int k = 0; k < 2; k++)
		if (pf_bytes[k] > 0 && perf_dwarf_bytes[k] > 0)
			printf("bytes per sample at %s: pfrec's are 1/%.0f of perf.data's with DWARF stacks (goal <= 1/8)\n",
			       k ? "10 kHz" : "1 kHz", perf_dwarf_bytes[k] / pf_bytes[k]);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = bench_recorders(argc, argv);
	if (!rc && !getenv("PROFEV_BENCH_SAMPLE_HZ"))
		bench_unwind();
	return rc || bench_status();
}
