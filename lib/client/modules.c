/*
 * modules.c - the loaded modules (the program and its shared objects), as
 * dl_iterate_phdr sees them: reported to pfrec at start, and again when a
 * captured pc falls outside every module reported so far (a dlopen). pfrec
 * needs them to turn program counters into (module, offset).
 *
 * The table of known address ranges is append-only: an entry is written,
 * then published by a release store of the count, and never changes, so
 * capturing threads read it without a lock. Scans take scan_lock (and the
 * loader's own lock, inside dl_iterate_phdr); they happen at start and
 * after a miss, never on the hot path of a program that loads nothing.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include "client.h"

#define MAX_MODULES 1024

struct range {
	uint64_t lo, hi;          /* absolute addresses, hi excluded */
	uint64_t bias;
	uint64_t path_hash;
};

static struct range ranges[MAX_MODULES];
static unsigned nranges;         /* published with release */
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long seen_adds; /* dlpi_adds at the last scan */
static char exe_path[4096];

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The GNU build-id from a PT_NOTE segment, when the note lies inside a
 * loaded segment (the only memory that can be read safely). */
static uint32_t build_id(const struct dl_phdr_info *info, const ElfW(Phdr) *note,
			 unsigned char *out)
{
	uint64_t start = note->p_vaddr, end = note->p_vaddr + note->p_memsz;
	int mapped = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && start >= ph->p_vaddr &&
		    end <= ph->p_vaddr + ph->p_filesz)
			mapped = 1;
	}
	if (!mapped)
		return 0;
	uint64_t align = note->p_align == 8 ? 8 : 4;
	const unsigned char *p = (const unsigned char *)(uintptr_t)(info->dlpi_addr + start);
	const unsigned char *e = (const unsigned char *)(uintptr_t)(info->dlpi_addr + end);
	while ((size_t)(e - p) >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) nh;
		memcpy(&nh, p, sizeof nh);
		uint64_t name_sz = (nh.n_namesz + align - 1) & ~(align - 1);
		uint64_t desc_sz = (nh.n_descsz + align - 1) & ~(align - 1);
		if (name_sz + desc_sz > (uint64_t)(e - p) - sizeof nh)
			return 0;
		const unsigned char *name = p + sizeof nh, *desc = name + name_sz;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= PFW_MAX_BUILD_ID) {
			memcpy(out, desc, nh.n_descsz);
			return nh.n_descsz;
		}
		p = desc + desc_sz;
	}
	return 0;
}

static int known(uint64_t lo, uint64_t hi, uint64_t bias, uint64_t h)
{
	unsigned n = ATOMIC_LOAD(&nranges);
	for (unsigned i = 0; i < n; i++)
		if (ranges[i].lo == lo && ranges[i].hi == hi && ranges[i].bias == bias &&
		    ranges[i].path_hash == h)
			return 1;
	return 0;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)arg;
	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
		seen_adds = info->dlpi_adds;
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : exe_path;
	uint64_t lo = UINT64_MAX, hi = 0;
	const ElfW(Phdr) *note[8];
	int nnotes = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			if (ph->p_vaddr < lo)
				lo = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > hi)
				hi = ph->p_vaddr + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && nnotes < 8) {
			note[nnotes++] = ph;
		}
	}
	if (lo >= hi)
		return 0;
	uint64_t bias = info->dlpi_addr, h = hash(path);
	unsigned n = ATOMIC_LOAD(&nranges);
	if (known(bias + lo, bias + hi, bias, h) || n == MAX_MODULES)
		return 0;
	unsigned char id[PFW_MAX_BUILD_ID];
	uint32_t idlen = 0;
	for (int i = 0; i < nnotes && !idlen; i++)
		idlen = build_id(info, note[i], id);
	struct pfw_module m = { bias, lo, hi, idlen, (uint32_t)strlen(path) };
	/* Queued before the range is published: a record whose pcs this range
	 * covers is written after, so pfrec has the module first. */
	defs_append(PFW_MODULE, &m, sizeof m, id, idlen, path, m.path_len);
	ranges[n] = (struct range){ bias + lo, bias + hi, bias, h };
	ATOMIC_STORE(&nranges, n + 1);
	return 0;
}

static void scan(void)
{
	in_client++;
	pthread_mutex_lock(&scan_lock);
	dl_iterate_phdr(scan_one, NULL);
	pthread_mutex_unlock(&scan_lock);
	in_client--;
}

void modules_init(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
	exe_path[n > 0 ? n : 0] = 0;
	scan();
}

static int read_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
		*(unsigned long long *)arg = info->dlpi_adds;
	return 1; /* the counters are the same in every entry */
}

void modules_check(const uint64_t *pc, unsigned n)
{
	unsigned nr = ATOMIC_LOAD(&nranges), last = 0;
	for (unsigned i = 0; i < n; i++) {
		if (nr && pc[i] >= ranges[last].lo && pc[i] < ranges[last].hi)
			continue;
		unsigned k = nr;
		while (k-- > 0)
			if (pc[i] >= ranges[k].lo && pc[i] < ranges[k].hi)
				break;
		if (k < nr) {
			last = k;
			continue;
		}
		/* Unknown: rescan only if something was loaded since, so that
		 * code outside every module (a JIT) costs one loader lock, not
		 * a scan, per capture. */
		unsigned long long adds = 0;
		in_client++;
		dl_iterate_phdr(read_adds, &adds);
		in_client--;
		pthread_mutex_lock(&scan_lock);
		int changed = adds != seen_adds;
		pthread_mutex_unlock(&scan_lock);
		if (changed)
			scan();
		return;
	}
}
