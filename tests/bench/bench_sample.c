/*
 * bench_sample - pfrec --sample against perf record on the same program,
 * in the same run, and the cost of pfrec's DWARF unwinding.
 *
 *   bench_sample PFREC WORK [N]     (tests/bench/sample.sh builds WORK)
 *
 * WORK (tests/bench/sample_work.c, -O2 -fomit-frame-pointer) does a fixed
 * amount of work about 20 frames deep and prints its own wall time for it
 * and its process's CPU time. Each way of recording runs it three times;
 * the table gives the least of each. The overhead is the program's CPU
 * time against the unsampled run's (the kernel's sampling and stack copies
 * are charged to the program; on a shared machine its wall time mostly
 * measures the neighbours), its wall time beside it; the recorder's own
 * CPU time (pfrec's or perf's, both its threads) per sample; bytes on disk
 * per sample. perf records the same event, cpu-clock in user space at the
 * same fixed period, with frame pointers (-g) and with --call-graph dwarf
 * (8 KiB copies, as pfrec's default). Last, dwarf_unwind() itself on a
 * stack 20 frames deep, copied in this process as the kernel copies one.
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
#include "profev_trace.h"
#include "rec/dwarf_unwind.h"

struct run {
	double work, cpu, rec_cpu;   /* program wall, program CPU, recorder CPU */
	uint64_t samples, lost, bytes;
	int ok;
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
	if (sscanf(buf, "work %lf cpu %lf", &r->work, &r->cpu) != 2)
		return -1;
	r->rec_cpu = tv(ru.ru_utime) + tv(ru.ru_stime) - r->cpu;
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

static void measure(char *const *argv, const char *out, int is_perf, struct run *best)
{
	memset(best, 0, sizeof *best);
	for (int k = 0; k < 3; k++) {
		struct run r = { 0 };
		if (out)
			unlink(out);
		if (run_once(argv, &r) < 0)
			continue;
		if (out) {
			struct stat st;
			r.bytes = stat(out, &st) == 0 ? (uint64_t)st.st_size : 0;
			if (is_perf)
				perf_counts(out, &r);
			else
				pfrec_counts(out, &r);
		}
		if (!best->ok) {
			*best = r;
			best->ok = 1;
			continue;
		}
		if (r.work < best->work)
			best->work = r.work;
		if (r.cpu < best->cpu)
			best->cpu = r.cpu;
		if (r.rec_cpu < best->rec_cpu)
			best->rec_cpu = r.rec_cpu;
		best->samples = r.samples;
		best->lost = r.lost > best->lost ? r.lost : best->lost;
		best->bytes = r.bytes;
	}
	if (out)
		unlink(out);
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
static struct dwarf_regs regs;
volatile int sink;

__attribute__((noinline)) static void capture(void)
{
	uint64_t ip, sp, bp;
	__asm__ __volatile__("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2"
			     : "=r"(ip), "=r"(sp), "=r"(bp));
	regs = (struct dwarf_regs){ ip, sp, bp };
	memcpy(stack_copy, (const void *)(uintptr_t)sp, sizeof stack_copy);
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
	uw = dwarf_unwinder_new();
	if (!uw)
		return;
	double t0 = now();
	dl_iterate_phdr(add_module, NULL);
	double t_load = now() - t0;
	qsort(mods, (size_t)nmods, sizeof *mods, by_lo);
	/* 20 frames of the program: deep() 16 times under main, libc's two
	 * and _start. */
	deep(15);
	uint64_t pcs[128];
	int complete;
	t0 = now();
	unsigned n = dwarf_unwind(uw, &regs, stack_copy, sizeof stack_copy, find, NULL, pcs, 128, &complete);
	double t_first = now() - t0;
	double best = 1e9;
	for (int k = 0; k < 5; k++) {
		t0 = now();
		for (int i = 0; i < 100000; i++)
			n = dwarf_unwind(uw, &regs, stack_copy, sizeof stack_copy, find, NULL, pcs, 128,
					 &complete);
		double t = (now() - t0) / 100000;
		if (t < best)
			best = t;
	}
	printf("\ndwarf_unwind() on a copied stack of %u frames (%s):\n", n,
	       complete ? "to _start" : "cut short");
	printf("  tables of %d modules loaded in %.0f us; first walk (every rule decoded) %.2f us\n",
	       nmods, t_load * 1e6, t_first * 1e6);
	printf("  walk with the rules cached: %.3f us (%.1f ns per frame)   goal <= 5 us at depth 20\n",
	       best * 1e6, best * 1e9 / n);
	dwarf_unwinder_free(uw);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_sample PFREC WORK [N]\n");
		return 2;
	}
	char *pfrec = argv[1], *work = argv[2], *n = argc > 3 ? argv[3] : "200000";
	char out[] = "/tmp/profev-bench-sample.XXXXXX";
	int fd = mkstemp(out);
	if (fd < 0)
		return 1;
	close(fd);
	int have_perf = system("perf --version >/dev/null 2>&1") == 0;
	struct {
		const char *name;
		int perf;
		char *argv[16];
	} modes[] = {
		{ "unsampled", 0, { work, n, NULL } },
		{ "pfrec --sample=1000 (DWARF, 8K stacks)", 0,
		  { pfrec, "-q", "--sample=1000", "-o", out, "--", work, n, NULL } },
		{ "pfrec --sample=1000 --sample-stack=0", 0,
		  { pfrec, "-q", "--sample=1000", "--sample-stack=0", "-o", out, "--", work, n, NULL } },
		{ "perf record -c 1ms -g", 1,
		  { "perf", "record", "-q", "-e", "cpu-clock:u", "-c", "1000000", "-g", "-o", out, "--", work, n, NULL } },
		{ "perf record -c 1ms --call-graph dwarf", 1,
		  { "perf", "record", "-q", "-e", "cpu-clock:u", "-c", "1000000", "--call-graph", "dwarf", "-o", out,
		    "--", work, n, NULL } },
		{ "pfrec --sample=10000 (DWARF, 8K stacks)", 0,
		  { pfrec, "-q", "--sample=10000", "-o", out, "--", work, n, NULL } },
		{ "pfrec --sample=10000 --sample-stack=0", 0,
		  { pfrec, "-q", "--sample=10000", "--sample-stack=0", "-o", out, "--", work, n, NULL } },
		{ "perf record -c 100us -g", 1,
		  { "perf", "record", "-q", "-e", "cpu-clock:u", "-c", "100000", "-g", "-o", out, "--", work, n, NULL } },
		{ "perf record -c 100us --call-graph dwarf", 1,
		  { "perf", "record", "-q", "-e", "cpu-clock:u", "-c", "100000", "--call-graph", "dwarf", "-o", out,
		    "--", work, n, NULL } },
	};
	struct run base;
	measure(modes[0].argv, NULL, 0, &base);
	if (!base.ok) {
		fprintf(stderr, "bench_sample: '%s' does not run\n", work);
		return 1;
	}
	double la[3] = { 0 };
	if (getloadavg(la, 3) < 0)
		la[0] = -1;
	printf("the program: %.3f s of CPU, %.3f s wall (unsampled, least of 3); load average %.2f\n\n",
	       base.cpu, base.work, la[0]);
	printf("%-42s %10s %10s %9s %9s %11s %12s\n", "recorder", "CPU ratio", "wall ratio", "samples",
	       "lost", "rec us/smp", "bytes/sample");
	double pf_bytes[2] = { 0 }, perf_dwarf_bytes[2] = { 0 };
	for (size_t i = 1; i < sizeof modes / sizeof *modes; i++) {
		if (modes[i].perf && !have_perf) {
			printf("%-42s SKIP: perf is not installed\n", modes[i].name);
			continue;
		}
		struct run r;
		measure(modes[i].argv, out, modes[i].perf, &r);
		if (!r.ok || !r.samples) {
			printf("%-42s failed (perf_event_open refused?)\n", modes[i].name);
			continue;
		}
		double bps = (double)r.bytes / (double)r.samples;
		printf("%-42s %9.3fx %9.3fx %9llu %9llu %11.2f %12.1f\n", modes[i].name, r.cpu / base.cpu,
		       r.work / base.work, (unsigned long long)r.samples, (unsigned long long)r.lost,
		       r.rec_cpu * 1e6 / (double)r.samples, bps);
		int hz10 = strstr(modes[i].name, "10000") || strstr(modes[i].name, "100us");
		if (strstr(modes[i].name, "pfrec") && strstr(modes[i].name, "DWARF"))
			pf_bytes[hz10] = bps;
		if (strstr(modes[i].name, "dwarf"))
			perf_dwarf_bytes[hz10] = bps;
	}
	for (int k = 0; k < 2; k++)
		if (pf_bytes[k] > 0 && perf_dwarf_bytes[k] > 0)
			printf("bytes per sample at %s: pfrec's are 1/%.0f of perf.data's with DWARF stacks (goal <= 1/8)\n",
			       k ? "10 kHz" : "1 kHz", perf_dwarf_bytes[k] / pf_bytes[k]);
	unlink(out);
	bench_unwind();
	return 0;
}
