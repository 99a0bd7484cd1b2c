/*
 * Symbolization fixture: a -g -O2 program that captures its own callstacks
 * (_Unwind_Backtrace), finds its modules (dl_iterate_phdr: path, load bias,
 * size, GNU build-id), loads a C++ library with dlopen and writes a trace
 * with the profev_writer API, one ZONE_BEGIN/END pair per captured stack.
 * Inlined functions, a cold split part and a dlopen'ed module give pfsym
 * inline chains, symbol table renames and a module added late; a call
 * through hand-written assembly (asm_call.S, no DWARF) and the start-up
 * code below main give frames only a symbol table names.
 *
 * usage: prog TRACE LIBFIX.so [FRAMES-OUT]
 * FRAMES-OUT lists "module-index offset flags" per distinct frame.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>
#include "profev_trace.h"

struct mod {
	char path[4096];
	uint64_t bias, lo, hi;
	uint8_t id[64];
	unsigned idlen;
	int index;
};

static struct mod mods[128];
static int nmods;
static struct profev_writer *w;
static uint32_t zone_name;
static volatile int sink;

static int known(const char *path, uint64_t bias)
{
	for (int i = 0; i < nmods; i++)
		if (mods[i].bias == bias && strcmp(mods[i].path, path) == 0)
			return 1;
	return 0;
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	char path[4096];
	if (!info->dlpi_name || !info->dlpi_name[0]) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (n < 0)
			return 0;
		path[n] = '\0';
	} else {
		snprintf(path, sizeof(path), "%s", info->dlpi_name);
	}
	if (known(path, info->dlpi_addr) || nmods == 128)
		return 0;
	struct mod *m = &mods[nmods];
	memset(m, 0, sizeof(*m));
	snprintf(m->path, sizeof(m->path), "%s", path);
	m->bias = info->dlpi_addr;
	m->lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			if (ph->p_vaddr < m->lo)
				m->lo = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > m->hi)
				m->hi = ph->p_vaddr + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !m->idlen) {
			const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
			const char *end = p + ph->p_memsz;
			while (p + sizeof(ElfW(Nhdr)) <= end) {
				const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
				const char *name = p + sizeof(*nh);
				const char *desc = name + ((nh->n_namesz + 3) & ~3u);
				if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
				    memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= sizeof(m->id)) {
					memcpy(m->id, desc, nh->n_descsz);
					m->idlen = nh->n_descsz;
					break;
				}
				p = desc + ((nh->n_descsz + 3) & ~3u);
			}
		}
	}
	if (m->lo == UINT64_MAX)
		return 0;
	struct profev_module pm = { m->path, m->idlen ? m->id : NULL, m->idlen, m->bias, m->hi - m->lo };
	m->index = profev_writer_module(w, &pm);
	if (m->index < 0)
		return 0;
	nmods++;
	return 0;
}

struct bt {
	uintptr_t pc[64];
	int signal[64];
	int n;
};

static _Unwind_Reason_Code bt_cb(struct _Unwind_Context *ctx, void *arg)
{
	struct bt *b = arg;
	int before = 0;
	uintptr_t pc = _Unwind_GetIPInfo(ctx, &before);
	if (!pc || b->n == 64)
		return _URC_END_OF_STACK;
	b->pc[b->n] = pc;
	b->signal[b->n] = before;
	b->n++;
	return _URC_NO_REASON;
}

static FILE *frames_out;

static struct mod *module_of(uintptr_t pc)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < nmods; i++)
			if (pc >= mods[i].bias + mods[i].lo && pc < mods[i].bias + mods[i].hi)
				return &mods[i];
		/* a module loaded since the last scan (dlopen) */
		dl_iterate_phdr(phdr_cb, NULL);
	}
	return NULL;
}

/* Captures the caller's stack and records it as a zone. */
__attribute__((noinline)) void fixture_capture(void)
{
	struct bt b = { .n = 0 };
	_Unwind_Backtrace(bt_cb, &b);
	struct profev_frame f[64];
	for (int i = 0; i < b.n; i++) {
		struct mod *m = module_of(b.pc[i]);
		uint32_t flags = b.signal[i] ? 0 : PROFEV_FRAMEF_RETURN;
		if (m) {
			f[i] = (struct profev_frame){ (uint32_t)m->index, flags, b.pc[i] - m->bias };
		} else {
			f[i] = (struct profev_frame){ 0, flags | PROFEV_FRAMEF_NOMODULE, b.pc[i] };
		}
		if (frames_out)
			fprintf(frames_out, "%u %llu %u\n", f[i].module,
				(unsigned long long)f[i].offset, f[i].flags);
	}
	uint32_t id = profev_writer_stack(w, f, (unsigned)b.n);
	struct profev_event ev = { .type = PROFEV_EV_ZONE_BEGIN, .tid = (uint32_t)getpid(),
				   .name = zone_name, .stack = id };
	static uint64_t ts;
	ev.ts = ++ts;
	profev_writer_event(w, &ev);
	ev.type = PROFEV_EV_ZONE_END;
	ev.stack = 0;
	ev.ts = ++ts;
	profev_writer_event(w, &ev);
}

/* Three levels of inlining into one out-of-line function. */
static inline __attribute__((always_inline)) void leaf(int x)
{
	if (x & 1)
		fixture_capture();
	sink += x;
}

static inline __attribute__((always_inline)) void middle(int x)
{
	sink ^= x;
	leaf(x + 1);
	sink -= x;
}

static inline __attribute__((always_inline)) void upper(int x)
{
	middle(x * 2);
	middle(x * 2 + 1);
}

__attribute__((noinline)) void work(int n)
{
	for (int i = 0; i < n; i++)
		upper(i);
}

static __attribute__((cold, noinline)) void rare_report(int i)
{
	sink += i * 7;
}

/* The branch calling a cold function goes to work_rare.cold, named so only
 * by the symbol table. */
__attribute__((noinline)) void work_rare(int n)
{
	for (int i = 0; i < n; i++) {
		if (sink == 12345 + i) {
			rare_report(i);
			fixture_capture();
			sink = 0;
		}
		sink += i;
	}
}

static __attribute__((noinline)) void recurse(int depth)
{
	if (depth == 0) {
		fixture_capture();
		return;
	}
	recurse(depth - 1);
	sink++;
}

/* asm_call.S: calls fn() from code that has no debug info */
void fixture_asm_call(void (*fn)(void));

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: prog TRACE LIBFIX.so [FRAMES-OUT]\n");
		return 2;
	}
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (argc > 3 && !(frames_out = fopen(argv[3], "w"))) {
		perror(argv[3]);
		return 1;
	}
	struct profev_error err;
	w = profev_writer_new(fd, NULL, &err);
	if (!w) {
		fprintf(stderr, "prog: %s\n", err.message);
		return 1;
	}
	profev_writer_thread(w, (uint32_t)getpid(), (uint32_t)getpid(), "main");
	zone_name = profev_writer_cstring(w, "captured");
	dl_iterate_phdr(phdr_cb, NULL);

	work(8);
	recurse(5);
	sink = 12345;
	work_rare(3);
	fixture_asm_call(fixture_capture);

	void *h = dlopen(argv[2], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "prog: %s\n", dlerror());
		return 1;
	}
	void (*entry)(void (*)(void), int) = (void (*)(void (*)(void), int))dlsym(h, "fixlib_entry");
	if (!entry) {
		fprintf(stderr, "prog: %s\n", dlerror());
		return 1;
	}
	entry(fixture_capture, 6);

	int rc = profev_writer_close(w);
	if (rc < 0)
		fprintf(stderr, "prog: %s\n", profev_writer_error(w)->message);
	profev_writer_free(w);
	close(fd);
	dlclose(h);
	if (frames_out)
		fclose(frames_out);
	return rc < 0;
}
