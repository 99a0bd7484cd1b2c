/*
 * dwarf_unwind.c - walking a sampled user stack with the modules' call
 * frame information, for code without frame pointers (-fomit-frame-pointer,
 * the default at -O1 and above, and most of libc).
 *
 * The kernel copies the registers and the top of the user stack into each
 * sample (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER). Each module's
 * file is mapped read-only once, its tables found through PT_GNU_EH_FRAME
 * (.eh_frame_hdr and the .eh_frame it points to), else the section headers
 * (.eh_frame or .debug_frame, scanned into a sorted table). lib/unwind/cfi.c
 * decodes them, as it does for the client's unwinder, for x86-64 or
 * aarch64 as the file's ELF header says. The rule of each pc
 * met is kept in a fixed cache, so a walk through code seen before costs a
 * few loads per frame. Memory: the cache (fixed), one mapping and at most
 * one scanned table per module file, at most MAX_TABLES files.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rec/dwarf_unwind.h"
#include "unwind/cfi.h"

#define MAX_TABLES 4096
#define CACHE_SLOTS (1u << 15)    /* 32768 rules, 768 KiB */
#define MAX_SCANNED (1u << 22)    /* FDEs of one scanned section */

struct tables {
	const unsigned char *map;     /* the file's bytes (or the vdso's) */
	size_t len;
	int mapped;                   /* munmap at the end (not the vdso) */
	struct cfi_section hdr;       /* .eh_frame_hdr, size 0 if none */
	struct cfi_section frame;     /* .eh_frame or .debug_frame */
	struct cfi_fde *index;        /* without .eh_frame_hdr: sorted FDEs */
	size_t nindex;
	int arch;                     /* enum cfi_arch, by the ELF header */
};

struct slot {
	uint64_t addr;                /* module address + 1; 0 = empty */
	int32_t tables;
	uint8_t ok;
	struct cfi_rule r;
};

struct dwarf_unwinder {
	struct tables *t;
	uint32_t n, cap;
	struct slot *cache;
};

struct dwarf_unwinder *dwarf_unwinder_new(void)
{
	struct dwarf_unwinder *u = calloc(1, sizeof *u);
	if (u && !(u->cache = calloc(CACHE_SLOTS, sizeof *u->cache))) {
		free(u);
		u = NULL;
	}
	return u;
}

void dwarf_unwinder_free(struct dwarf_unwinder *u)
{
	if (!u)
		return;
	for (uint32_t i = 0; i < u->n; i++) {
		if (u->t[i].mapped)
			munmap((void *)u->t[i].map, u->t[i].len);
		free(u->t[i].index);
	}
	free(u->t);
	free(u->cache);
	free(u);
}

/* ---- finding the tables in an ELF image ------------------------------ */

/* The bytes of [vaddr, vaddr + want) through the load segment holding
 * vaddr, cut at the segment's end. */
static int at_vaddr(const unsigned char *map, size_t len, const Elf64_Phdr *ph, unsigned nph,
		    uint64_t vaddr, struct cfi_section *out)
{
	for (unsigned i = 0; i < nph; i++) {
		if (ph[i].p_type != PT_LOAD || vaddr < ph[i].p_vaddr ||
		    vaddr - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		uint64_t off = ph[i].p_offset + (vaddr - ph[i].p_vaddr);
		uint64_t end = ph[i].p_offset + ph[i].p_filesz;
		if (off >= len || end > len || end < off)
			return -1;
		*out = (struct cfi_section){ map + off, (size_t)(end - off), vaddr, 0 };
		return 0;
	}
	return -1;
}

static int by_start(const void *a, const void *b)
{
	const struct cfi_fde *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* A section scanned into a sorted table. */
static int scan(struct tables *t, const struct cfi_section *sec)
{
	size_t n = cfi_scan(sec, NULL, 0);
	if (!n || n > MAX_SCANNED || !(t->index = malloc(n * sizeof *t->index)))
		return -1;
	t->nindex = cfi_scan(sec, t->index, n);
	qsort(t->index, t->nindex, sizeof *t->index, by_start);
	t->frame = *sec;
	return 0;
}

/* .eh_frame or .debug_frame by the section headers. */
static int sections(struct tables *t, const Elf64_Ehdr *eh)
{
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > t->len ||
	    eh->e_shnum > (t->len - eh->e_shoff) / sizeof(Elf64_Shdr) || eh->e_shstrndx >= eh->e_shnum)
		return -1;
	Elf64_Shdr sh, str;
	memcpy(&str, t->map + eh->e_shoff + eh->e_shstrndx * sizeof sh, sizeof str);
	if (str.sh_offset > t->len || str.sh_size > t->len - str.sh_offset)
		return -1;
	const char *names = (const char *)t->map + str.sh_offset;
	for (int pass = 0; pass < 2; pass++) {
		const char *want = pass ? ".debug_frame" : ".eh_frame";
		for (unsigned i = 0; i < eh->e_shnum; i++) {
			memcpy(&sh, t->map + eh->e_shoff + i * sizeof sh, sizeof sh);
			if (sh.sh_type == SHT_NOBITS || sh.sh_name >= str.sh_size ||
			    strncmp(names + sh.sh_name, want, str.sh_size - sh.sh_name) != 0 ||
			    sh.sh_offset > t->len || sh.sh_size > t->len - sh.sh_offset ||
			    (sh.sh_flags & SHF_COMPRESSED))
				continue;
			/* .debug_frame's pointers are absolute: its address
			 * is no base. */
			struct cfi_section s = { t->map + sh.sh_offset, (size_t)sh.sh_size,
						 pass ? 0 : sh.sh_addr, pass, t->arch };
			if (scan(t, &s) == 0)
				return 0;
		}
	}
	return -1;
}

static int image(struct tables *t)
{
	Elf64_Ehdr eh;
	if (t->len < sizeof eh)
		return -1;
	memcpy(&eh, t->map, sizeof eh);
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256 || eh.e_phoff > t->len ||
	    eh.e_phnum * sizeof(Elf64_Phdr) > t->len - eh.e_phoff)
		return -1;
	t->arch = eh.e_machine == EM_AARCH64 ? CFI_AARCH64 : CFI_X86_64;
	Elf64_Phdr ph[256];
	memcpy(ph, t->map + eh.e_phoff, eh.e_phnum * sizeof *ph);
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_GNU_EH_FRAME)
			continue;
		uint64_t frame;
		if (at_vaddr(t->map, t->len, ph, eh.e_phnum, ph[i].p_vaddr, &t->hdr) == 0 &&
		    cfi_hdr_frame(&t->hdr, &frame) == 0 &&
		    at_vaddr(t->map, t->len, ph, eh.e_phnum, frame, &t->frame) == 0) {
			t->hdr.arch = t->frame.arch = t->arch;
			return 0;
		}
		memset(&t->hdr, 0, sizeof t->hdr);
	}
	return sections(t, &eh);
}

int32_t dwarf_unwinder_load(struct dwarf_unwinder *u, const char *path)
{
	if (u->n == MAX_TABLES)
		return -1;
	struct tables t = { 0 };
	if (strcmp(path, "[vdso]") == 0) {
		/* Every process maps the kernel's one vdso image. */
		const unsigned char *v = (const void *)getauxval(AT_SYSINFO_EHDR);
		Elf64_Ehdr eh;
		if (!v)
			return -1;
		memcpy(&eh, v, sizeof eh);
		if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
		    eh.e_phnum > 64)
			return -1;
		size_t len = 0;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			memcpy(&ph, v + eh.e_phoff + i * sizeof ph, sizeof ph);
			if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > len)
				len = ph.p_offset + ph.p_filesz;
		}
		t.map = v;
		t.len = len;
	} else {
		/* non-blocking: a FIFO at a module's path must not stop pfrec */
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return -1;
		struct stat st;
		void *m = MAP_FAILED;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
			m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return -1;
		t.map = m;
		t.len = (size_t)st.st_size;
		t.mapped = 1;
	}
	if (u->n == u->cap) {
		void *grown = realloc(u->t, (u->cap ? 2 * u->cap : 16) * sizeof *u->t);
		if (grown) {
			u->t = grown;
			u->cap = u->cap ? 2 * u->cap : 16;
		}
	}
	if (u->n == u->cap || image(&t) < 0) {
		if (t.mapped)
			munmap((void *)t.map, t.len);
		free(t.index);
		return -1;
	}
	u->t[u->n] = t;
	return (int32_t)u->n++;
}

/* ---- rules ------------------------------------------------------------- */

static int lookup(const struct tables *t, uint64_t addr, struct cfi_rule *r)
{
	uint64_t fde;
	if (t->hdr.size) {
		if (cfi_hdr_lookup(&t->hdr, addr, &fde) < 0)
			return -1;
	} else {
		size_t lo = 0, hi = t->nindex;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->index[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || addr >= t->index[lo - 1].end)
			return -1;
		fde = t->index[lo - 1].fde;
	}
	return cfi_rule_at(&t->frame, fde, addr, r);
}

static const struct cfi_rule *rule(struct dwarf_unwinder *u, int32_t tables, uint64_t addr, int arch)
{
	uint64_t h = (addr ^ (addr >> 15) ^ ((uint64_t)tables * 0x9e3779b97f4a7c15ull)) *
		     0xff51afd7ed558ccdull;
	struct slot *s = &u->cache[(h >> 40) & (CACHE_SLOTS - 1)];
	if (s->addr != addr + 1 || s->tables != tables) {
		s->addr = addr + 1;
		s->tables = tables;
		s->ok = tables >= 0 && (uint32_t)tables < u->n && u->t[tables].arch == arch &&
			lookup(&u->t[tables], addr, &s->r) == 0;
	}
	return s->ok ? &s->r : NULL;
}

/* ---- the walk ---------------------------------------------------------- */

/* A signed return address (aarch64's pointer authentication) carries its
 * signature in the bits above the virtual address: Linux's user addresses
 * are below 2^48 unless a program asks for more, so those bits are
 * cleared. Under a kernel of 39-bit addresses (some Android devices) the
 * signature reaches lower: the pc then lies in no module and the walk
 * stops there. */
#define SIGNED_RA_MASK ((1ull << 48) - 1)

/* 8 bytes at where lie within the copy [lo, hi), with no wrapping. */
static int in_copy(uint64_t where, uint64_t lo, uint64_t hi)
{
	return where >= lo && where <= hi && hi - where >= 8;
}

unsigned dwarf_unwind(struct dwarf_unwinder *u, const struct dwarf_regs *regs,
		      const unsigned char *stack, uint64_t size, dwarf_find_fn find, void *ctx,
		      uint64_t *pcs, unsigned max, int *complete)
{
	uint64_t ip = regs->ip, sp = regs->sp, fp = regs->fp;
	const uint64_t lo = regs->sp, hi = regs->sp + size;
	/* The innermost frame may be code without tables (a PLT stub's are
	 * expressions): the state at a function's entry, the return address
	 * on top of the stack (x86-64) or in x30 (aarch64). */
	struct cfi_rule entry = { 0 };
	if (regs->arch == CFI_AARCH64) {
		entry.ra_saved = 0;
	} else {
		entry.cfa_off = 8;
		entry.ra_saved = 1;
		entry.ra_off = -8;
	}
	unsigned n = 0;
	*complete = 0;
	if (hi < lo)
		return 0;
	while (n < max) {
		pcs[n++] = ip;
		/* A return address is after its call: the call's rule is the
		 * one of the byte before. */
		uint64_t at = n == 1 ? ip : ip - 1, bias;
		int32_t tables;
		const struct cfi_rule *r = NULL;
		if (find(ctx, at, &tables, &bias) == 0)
			r = rule(u, tables, at - bias, regs->arch);
		if (!r) {
			if (n > 1)
				break;
			r = &entry;
		}
		if (r->end) {
			*complete = 1;
			break;
		}
		uint64_t cfa = (r->cfa_fp ? fp : sp) + (uint64_t)(int64_t)r->cfa_off;
		if (cfa < sp || cfa > hi)
			break;
		uint64_t ra;
		if (r->ra_saved) {
			uint64_t where = cfa + (uint64_t)(int64_t)r->ra_off;
			if (cfa == sp || !in_copy(where, lo, hi))
				break;
			memcpy(&ra, stack + (where - lo), 8);
		} else {
			/* Still in the link register: only the sampled
			 * registers hold it, and a caller's frame never
			 * keeps its return address in a register across a
			 * call. */
			if (n > 1)
				break;
			ra = regs->lr;
		}
		if (r->ra_signed)
			ra &= SIGNED_RA_MASK;
		if (r->fp_saved) {
			/* In an epilogue GCC's tables still say saved after
			 * the pop: a slot below sp is no longer the frame's,
			 * and the register holds the caller's value again. */
			uint64_t where = cfa + (uint64_t)(int64_t)r->fp_off;
			if (where >= sp) {
				if (!in_copy(where, lo, hi))
					break;
				memcpy(&fp, stack + (where - lo), 8);
			}
		}
		sp = cfa;
		ip = ra;
		if (!ip) {
			*complete = 1;
			break;
		}
	}
	return n;
}
