/* lib/rec/dwarf_unwind.c: this thread's own stack, copied as the kernel
 * copies a sample's, walked with the modules' .eh_frame: the same return
 * addresses as glibc's backtrace(), to the outermost frame; a copy cut
 * short stops the walk early, inside the copy; hostile files load no
 * tables. */
#define _GNU_SOURCE
#include <execinfo.h>
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
		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		mods[nmods++] = (struct mod){ info->dlpi_addr + p->p_vaddr,
					      info->dlpi_addr + p->p_vaddr + p->p_memsz,
					      info->dlpi_addr, dwarf_unwinder_load(uw, path) };
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

/* Other frames' bytes, redzones included: ASan need not see this. */
__attribute__((no_sanitize_address)) static void copy_stack(unsigned char *to, uintptr_t from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = ((volatile const unsigned char *)from)[i];
}

static unsigned char stack_copy[1 << 16];

struct capture {
	struct dwarf_regs regs;
	size_t size;
	void *bt[64];
	int nbt;
};

__attribute__((noinline)) static void capture(struct capture *c)
{
	uint64_t ip, sp, fp;
#if defined(__x86_64__)
	__asm__ __volatile__("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2"
			     : "=r"(ip), "=r"(sp), "=r"(fp));
	c->regs = (struct dwarf_regs){ ip, sp, fp };
#else
	uint64_t lr;
	__asm__ __volatile__("adr %0, .\n\tmov %1, sp\n\tmov %2, x29\n\tmov %3, x30"
			     : "=r"(ip), "=r"(sp), "=r"(fp), "=r"(lr));
	c->regs = (struct dwarf_regs){ ip, sp, fp, lr, CFI_AARCH64 };
#endif
	c->size = stack_top - sp < sizeof stack_copy ? stack_top - sp : sizeof stack_copy;
	copy_stack(stack_copy, sp, c->size);
	c->nbt = backtrace(c->bt, 64);
}

volatile int sink;

__attribute__((noinline)) static void deep(int n, struct capture *c)
{
	volatile char pad[24];
	pad[n % 24] = (char)n;
	if (n)
		deep(n - 1, c);
	else
		capture(c);
	sink += pad[n % 24];
}

static void test_walk(void)
{
	struct capture c;
	deep(20, &c);
	uint64_t pcs[128];
	int complete = 0;
	unsigned n = dwarf_unwind(uw, &c.regs, stack_copy, c.size, find, NULL, pcs, 128, &complete);
	CHECK_EQ(complete, 1);
	/* backtrace()'s first frame is in capture() after its call (under
	 * ASan, its interceptor's comes first); the rest are the same return
	 * addresses. */
	int j = 0;
	while (j < 3 && j < c.nbt && (uint64_t)(uintptr_t)c.bt[j] != pcs[1])
		j++;
	CHECK(j < 3);
	CHECK(c.nbt - j >= 23);
	CHECK((unsigned)(c.nbt - j) <= n - 1);
	int same = 0;
	for (int i = j; i < c.nbt && (unsigned)(i - j + 1) < n; i++)
		same += pcs[i - j + 1] == (uint64_t)(uintptr_t)c.bt[i];
	CHECK_EQ(same, c.nbt - j);
	if (same != c.nbt - j)
		for (int i = 0; i < c.nbt || (unsigned)i < n; i++)
			fprintf(stderr, "%2d %16llx %16llx\n", i, i < (int)n ? (unsigned long long)pcs[i] : 0ull,
				i < c.nbt ? (unsigned long long)(uintptr_t)c.bt[i] : 0ull);
	/* the same again, from the rule cache */
	uint64_t again[128];
	int complete2 = 0;
	CHECK_EQ(dwarf_unwind(uw, &c.regs, stack_copy, c.size, find, NULL, again, 128, &complete2), n);
	CHECK(complete2 && memcmp(pcs, again, n * sizeof *pcs) == 0);
	/* at most max frames */
	CHECK_EQ(dwarf_unwind(uw, &c.regs, stack_copy, c.size, find, NULL, again, 5, &complete2), 5);
	CHECK_EQ(complete2, 0);

	/* A copy of 512 bytes: a few frames, then the walk stops. */
	unsigned cut = dwarf_unwind(uw, &c.regs, stack_copy, 512, find, NULL, again, 128, &complete2);
	CHECK_EQ(complete2, 0);
	CHECK(cut >= 2 && cut < n);
	CHECK(memcmp(pcs, again, cut * sizeof *pcs) == 0);
	/* No copy at all: the sampled pc alone. */
	CHECK_EQ(dwarf_unwind(uw, &c.regs, stack_copy, 0, find, NULL, again, 128, &complete2), 1);
	/* Garbage on the stack: frames end, no read outside the copy. */
	unsigned char *junk = malloc(4096);
	srand(3);
	for (int k = 0; k < 200; k++) {
		for (int i = 0; i < 4096; i++)
			junk[i] = (unsigned char)(k & 1 ? rand() : stack_copy[i] ^ (rand() % 5 == 0));
		struct dwarf_regs r = c.regs;
		if (k & 2)
			r.fp = c.regs.sp + (uint64_t)(rand() % 5000);
		(void)dwarf_unwind(uw, &r, junk, 4096, find, NULL, again, 128, &complete2);
	}
	free(junk);
}

static void test_bad_files(void)
{
	CHECK_EQ(dwarf_unwinder_load(uw, "/nonexistent"), -1);
	CHECK_EQ(dwarf_unwinder_load(uw, "/proc/self/status"), -1); /* not a regular file with size */
	char path[] = "/tmp/t_dwarf_unwind.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	unsigned char b[256] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	for (int k = 0; k < 3; k++) {
		if (k == 1) /* an ELF header claiming program headers past the end */
			memset(b + 32, 0xff, 8);
		if (k == 2)
			for (size_t i = 16; i < sizeof b; i++)
				b[i] = (unsigned char)(i * 37);
		CHECK(pwrite(fd, b, sizeof b, 0) == (ssize_t)sizeof b);
		CHECK_EQ(dwarf_unwinder_load(uw, path), -1);
	}
	close(fd);
	unlink(path);
}

int main(void)
{
	/* The copy reaches above main's frame, to the stack's end. */
	pthread_attr_t a;
	void *lo;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &a) || pthread_attr_getstack(&a, &lo, &size))
		return 1;
	pthread_attr_destroy(&a);
	stack_top = (uintptr_t)lo + size;
	uw = dwarf_unwinder_new();
	CHECK(uw != NULL);
	dl_iterate_phdr(add_module, NULL);
	test_walk();
	test_bad_files();
	dwarf_unwinder_free(uw);
	dwarf_unwinder_free(NULL);
	return CHECK_DONE();
}

#else

int main(void)
{
	fprintf(stderr, "SKIP: DWARF unwinding of samples is for x86-64 and aarch64\n");
	return 77;
}

#endif
