/* lib/rec/dwarf_unwind.c on aarch64 (and the same on x86-64): this
 * program's own registers and stack, taken inside a known call chain as
 * the kernel takes a sample's (pc, sp, the frame pointer, aarch64's link
 * register, the stack from sp up), walked with the modules' .eh_frame as
 * pfrec walks them. The chain main -> a -> b -> c mixes the rules: a keeps
 * a frame pointer, b's variable-length array makes its CFA the frame
 * pointer's, c has none. Each function notes its own return address, so
 * the walk must give exactly c's pc, then those return addresses (in b, a,
 * main), then main's callers to the outermost frame. A leaf (the return
 * address still in x30, or on top of the stack on x86-64) and a pc without
 * tables start the walk one frame further in. Built by make ARCH=aarch64
 * and run under qemu-aarch64, which cannot sample (no perf_event_open)
 * but runs the unwinder on stacks as real as a sample's. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "rec/dwarf_unwind.h"

#if defined(__x86_64__) || defined(__aarch64__)

struct mod {
	uint64_t lo, hi, bias;
	int32_t tables;
};
static struct mod mods[64];
static int nmods, nloaded;
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
	int32_t tables = -2;
	for (int i = 0; i < info->dlpi_phnum && nmods < 64; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		if (tables == -2) {
			tables = dwarf_unwinder_load(uw, path);
			nloaded += tables >= 0;
		}
		mods[nmods++] = (struct mod){ info->dlpi_addr + p->p_vaddr,
					      info->dlpi_addr + p->p_vaddr + p->p_memsz,
					      info->dlpi_addr, tables };
	}
	return 0;
}

static int find(void *ctx, uint64_t pc, int32_t *tables, uint64_t *bias)
{
	(void)ctx;
	for (int i = 0; i < nmods; i++)
		if (pc >= mods[i].lo && pc < mods[i].hi && mods[i].tables >= 0) {
			*tables = mods[i].tables;
			*bias = mods[i].bias;
			return 0;
		}
	return -1;
}

static uintptr_t stack_top;
/* 8 bytes before the copy, for a leaf's return address on x86-64 */
static unsigned char copy_buf[8 + (256 << 10)];
static unsigned char *const stack_copy = copy_buf + 8;
static size_t copy_size;
static struct dwarf_regs regs;              /* c's, where it copies */
static uint64_t ra_a, ra_b, ra_c, ra_leaf;  /* each function's return address */
volatile int sink;

/* gcc's per-function frame-pointer choice (clang keeps its own) */
#if defined(__clang__)
#define OMIT_FP __attribute__((noinline))
#define KEEP_FP __attribute__((noinline))
#else
#define OMIT_FP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))
#define KEEP_FP __attribute__((noinline, noclone, optimize("no-omit-frame-pointer")))
#endif

/* Other frames' bytes, redzones included: ASan need not see this. */
__attribute__((noinline, no_sanitize_address)) static void copy_stack(uint64_t from)
{
	copy_size = stack_top - from < sizeof copy_buf - 8 ? stack_top - from : sizeof copy_buf - 8;
	for (size_t i = 0; i < copy_size; i++)
		stack_copy[i] = ((volatile const unsigned char *)(uintptr_t)from)[i];
}

/* A leaf: no frame, its return address in x30 (on top of the stack on
 * x86-64) for its whole body. */
OMIT_FP static uint64_t leaf(void)
{
	return (uint64_t)(uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}

/* No frame pointer: the CFA is sp plus the frame's size. */
OMIT_FP static void c(int n)
{
	ra_c = (uint64_t)(uintptr_t)__builtin_return_address(0);
	uint64_t pc, sp, fp;
#if defined(__x86_64__)
	__asm__ __volatile__("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2"
			     : "=r"(pc), "=r"(sp), "=r"(fp));
	regs = (struct dwarf_regs){ .ip = pc, .sp = sp, .fp = fp, .arch = CFI_X86_64 };
#else
	uint64_t lr;
	__asm__ __volatile__("adr %0, .\n\tmov %1, sp\n\tmov %2, x29\n\tmov %3, x30"
			     : "=r"(pc), "=r"(sp), "=r"(fp), "=r"(lr));
	regs = (struct dwarf_regs){ .ip = pc, .sp = sp, .fp = fp, .lr = lr, .arch = CFI_AARCH64 };
#endif
	copy_stack(sp);
	/* the same sp at the leaf's call: c's frame has a fixed size */
	ra_leaf = leaf();
	sink += n;
}

/* A variable-length array: the CFA is the frame pointer's. */
KEEP_FP static void b(int n)
{
	ra_b = (uint64_t)(uintptr_t)__builtin_return_address(0);
	volatile char vla[n];
	vla[n - 1] = (char)n;
	c(n + 1);
	sink += vla[n - 1];
}

/* A frame pointer kept, the CFA from sp. */
KEEP_FP static void a(int n)
{
	ra_a = (uint64_t)(uintptr_t)__builtin_return_address(0);
	b(n + 1);
	sink += n;
}

static void dump(const uint64_t *pcs, unsigned n)
{
	fprintf(stderr, "regs: ip %llx sp %llx fp %llx lr %llx; ra_c %llx ra_b %llx ra_a %llx ra_leaf %llx\n",
		(unsigned long long)regs.ip, (unsigned long long)regs.sp, (unsigned long long)regs.fp,
		(unsigned long long)regs.lr, (unsigned long long)ra_c, (unsigned long long)ra_b,
		(unsigned long long)ra_a, (unsigned long long)ra_leaf);
	for (unsigned i = 0; i < n; i++)
		fprintf(stderr, "%2u %16llx\n", i, (unsigned long long)pcs[i]);
}

/* pcs from `at` on: c's callers, then main's, to the outermost frame. */
static void check_callers(const uint64_t *pcs, unsigned n, unsigned at, int complete)
{
	CHECK(n >= at + 4);
	if (n < at + 4)
		return;
	CHECK_EQ_U64(pcs[at], ra_c);     /* in b */
	CHECK_EQ_U64(pcs[at + 1], ra_b); /* in a */
	CHECK_EQ_U64(pcs[at + 2], ra_a); /* in main */
	/* main's caller in libc, then its callers: __libc_start_main's, and
	 * _start, whose return address is undefined */
	CHECK(find(NULL, pcs[at + 3] - 1, &(int32_t){ 0 }, &(uint64_t){ 0 }) == 0);
	CHECK_EQ(complete, 1);
	CHECK(n <= at + 8);
}

static void test_chain(void)
{
	a(sink + 1);
	uint64_t pcs[64];
	int complete = 0;
	unsigned n = dwarf_unwind(uw, &regs, stack_copy, copy_size, find, NULL, pcs, 64, &complete);
	CHECK_EQ_U64(pcs[0], regs.ip);
	CHECK(regs.ip > (uint64_t)(uintptr_t)&c && regs.ip - (uint64_t)(uintptr_t)&c < 4096);
	unsigned fails = (unsigned)check_failures;
	check_callers(pcs, n, 1, complete);
	if ((unsigned)check_failures != fails)
		dump(pcs, n);

	/* The sampled pc at a leaf's first instruction: its return address
	 * is still in x30 (aarch64) or on top of the stack (x86-64). Then a
	 * pc without tables: the same state, as the walk assumes there. */
	for (int k = 0; k < 2; k++) {
		struct dwarf_regs r = regs;
		const unsigned char *copy = stack_copy;
		uint64_t size = copy_size;
		r.ip = k ? 0x1000 : (uint64_t)(uintptr_t)&leaf;
		if (r.arch == CFI_AARCH64) {
			r.lr = ra_leaf;
		} else {
			memcpy(copy_buf, &ra_leaf, 8);
			r.sp -= 8;
			copy -= 8;
			size += 8;
		}
		n = dwarf_unwind(uw, &r, copy, size, find, NULL, pcs, 64, &complete);
		fails = (unsigned)check_failures;
		CHECK_EQ_U64(pcs[0], r.ip);
		CHECK(n >= 2 && pcs[1] == ra_leaf); /* in c */
		check_callers(pcs, n, 2, complete);
		if ((unsigned)check_failures != fails)
			dump(pcs, n);
	}

	/* The link register is the innermost frame's only: a walk that
	 * starts in c takes c's saved return address, not x30's value. */
	struct dwarf_regs r = regs;
	r.lr = 0x1234;
	n = dwarf_unwind(uw, &r, stack_copy, copy_size, find, NULL, pcs, 64, &complete);
	CHECK(n >= 2 && pcs[1] == ra_c);

	/* A copy cut inside c's frame: the pc alone, or c's return address
	 * at most, and no read past the copy (ASan watches a copy of exact
	 * size). */
	unsigned char *cut = malloc(16);
	memcpy(cut, stack_copy, 16);
	n = dwarf_unwind(uw, &regs, cut, 16, find, NULL, pcs, 64, &complete);
	CHECK(n >= 1 && n <= 2 && !complete);
	free(cut);
}

int main(void)
{
	/* The copy reaches above main's frame, to the stack's end. */
	pthread_attr_t at;
	void *lo;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &at) || pthread_attr_getstack(&at, &lo, &size)) {
		fprintf(stderr, "pthread_getattr_np: no stack bounds\n");
		return 1;
	}
	pthread_attr_destroy(&at);
	stack_top = (uintptr_t)lo + size;
	uw = dwarf_unwinder_new();
	CHECK(uw != NULL);
	dl_iterate_phdr(add_module, NULL);
	CHECK(nloaded >= 2); /* the program and libc at least */
	test_chain();
	dwarf_unwinder_free(uw);
	return CHECK_DONE();
}

#else

int main(void)
{
	fprintf(stderr, "SKIP: DWARF unwinding of samples is for x86-64 and aarch64\n");
	return 77;
}

#endif
