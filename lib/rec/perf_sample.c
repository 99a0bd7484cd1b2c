/*
 * perf_sample.c - cpu-clock samples and context switches of the recorded
 * program, from the kernel through perf_event_open.
 *
 * One event per CPU, bound to the program's process and inherited by every
 * thread and child it creates. A per-task event that is inherited cannot
 * be mapped with cpu = -1 (the kernel refuses: every thread would write one
 * ring), so it is per CPU with the process as filter, which
 * perf_event_paranoid 2 allows for a process of our own. The events start
 * disabled and the kernel enables them when the program calls exec, so
 * pfrec's own fork-to-exec code is never sampled. Times are CLOCK_MONOTONIC
 * (use_clockid), the clock of the trace.
 *
 * The rings are read by pfrec's recording thread (record.c polls their
 * descriptors). Each ring is in time order, but a thread that moves from
 * one CPU to another leaves its switch-out in one ring and its switch-in
 * in another, so events wait in a pending list, sorted, until no ring can
 * still hold an earlier one. Memory: the rings, the pending events of a
 * few milliseconds, one module table per live process and the threads
 * alive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "common/common.h"
#include "rec/dwarf_unwind.h"
#include "rec/elf_file.h"
#include "rec/perf_sample.h"

#define MAX_FRAMES 127            /* the kernel's default perf_event_max_stack */
#define HOLD_NS 4000000ull        /* how long events wait for other rings */
#define MAX_PROCS 1024
#define MAX_MODS_PER_PROC 4096
#define MAX_FILES 4096            /* files whose headers are cached */
/* The user registers a sample copies for DWARF unwinding, in the kernel's
 * order (asm/perf_regs.h): bp, sp, ip. The rules followed need no other. */
#define MAX_STACK_BYTES 65000u   /* a record's size is 16 bits */
#define MIN_RING_BYTES (64u << 10) /* and room for 4 stack copies at least */
#define REGS_MASK ((1ull << 6) | (1ull << 7) | (1ull << 8))

/* A mapped module of one process, by absolute address range. */
struct pmod {
	uint64_t lo, hi;              /* hi excluded */
	uint64_t bias;
	uint32_t index;               /* the writer's module index */
	uint32_t file;                /* in files, UINT32_MAX if none */
};

struct proc {
	uint32_t pid;
	uint32_t nmods, cap;
	struct pmod *mods;            /* sorted by lo, none overlapping */
};

/* A module as written to the trace: the same file at the same place is
 * written once, whichever process maps it. */
struct wmod {
	uint64_t path_hash, bias, size;
	uint32_t index;
};

struct file {
	uint64_t path_hash;
	struct elf_file elf;
	int ok;
	int32_t tables;               /* the unwinder's, -1 none, -2 not loaded */
	char *path;
};

struct thread {
	uint32_t tid, pid;
	int named;
	int on_cpu;                   /* its last switch was in */
	char comm[16];
};

struct ring {
	int fd;
	unsigned char *map;           /* control page, then the data */
	size_t data_size;
	uint64_t head;                /* data_head when this drain began */
};

struct perf_sampler {
	struct perf_sample_opts o;
	struct perf_sample_host h;
	uint32_t pid;
	size_t page;
	struct ring *rings;
	int nrings;
	uint32_t asked_ring_bytes;    /* o.ring_bytes before the locked-memory limit cut it */
	unsigned char rec[1u << 16];  /* a record that wraps the ring's end */
	struct dwarf_unwinder *uw;    /* NULL without stack copies */
	const struct proc *walking;   /* the process of the sample unwound */

	struct proc *procs;
	uint32_t nprocs, capprocs;
	struct wmod *wmods;
	uint32_t nwmods, capwmods;
	struct file *files;
	uint32_t nfiles, capfiles;
	struct thread *threads;
	uint32_t nthreads, capthreads;

	struct profev_event *pending;
	uint32_t npending, cappending;
	uint64_t emitted_ts;          /* the latest event handed over */
	int failed;

	struct perf_sample_counts n;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* ---- processes and their modules ------------------------------------- */

static struct proc *proc_find(struct perf_sampler *s, uint32_t pid)
{
	for (uint32_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static struct proc *proc_get(struct perf_sampler *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid);
	if (p || s->nprocs == MAX_PROCS)
		return p;
	if (array_grow((void **)&s->procs, &s->capprocs, sizeof *s->procs, s->nprocs + 1))
		return NULL;
	p = &s->procs[s->nprocs++];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	return p;
}

static void proc_drop(struct perf_sampler *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid);
	if (!p)
		return;
	free(p->mods);
	*p = s->procs[--s->nprocs];
}

/* A forked process starts with its parent's mappings. */
static void proc_fork(struct perf_sampler *s, uint32_t parent, uint32_t child)
{
	struct proc *pp = proc_find(s, parent);
	struct proc *c = proc_get(s, child);
	pp = proc_find(s, parent); /* proc_get may have moved it */
	if (!pp || !c || c->nmods || !pp->nmods)
		return;
	if (!(c->mods = malloc(pp->nmods * sizeof *c->mods)))
		return;
	memcpy(c->mods, pp->mods, pp->nmods * sizeof *c->mods);
	c->nmods = c->cap = pp->nmods;
}

static const struct file *file_get(struct perf_sampler *s, const char *path)
{
	uint64_t h = hash(path);
	for (uint32_t i = 0; i < s->nfiles; i++)
		if (s->files[i].path_hash == h)
			return &s->files[i];
	if (s->nfiles == MAX_FILES ||
	    array_grow((void **)&s->files, &s->capfiles, sizeof *s->files, s->nfiles + 1))
		return NULL;
	struct file *f = &s->files[s->nfiles++];
	f->path_hash = h;
	f->ok = path[0] == '/' && elf_file_read(path, &f->elf) == 0;
	f->tables = -2;
	f->path = strdup(path);
	return f;
}

/* The writer's index of the module, writing it the first time. <0 on error. */
static int64_t module_index(struct perf_sampler *s, const char *path, uint64_t bias, uint64_t size,
			    const uint8_t *kernel_id, uint32_t kernel_id_len, const struct file *f)
{
	uint64_t h = hash(path);
	for (uint32_t i = 0; i < s->nwmods; i++)
		if (s->wmods[i].path_hash == h && s->wmods[i].bias == bias && s->wmods[i].size == size)
			return s->wmods[i].index;
	if (array_grow((void **)&s->wmods, &s->capwmods, sizeof *s->wmods, s->nwmods + 1))
		return PROFEV_E_NOMEM;
	struct profev_module m = { path, NULL, 0, bias, size, 0, 0, 0 };
	const struct elf_segment *x = f && f->ok ? elf_file_exec(&f->elf) : NULL;
	if (x && x->memsz) {
		m.exec_vaddr = x->vaddr;
		m.exec_offset = x->offset;
		m.exec_size = x->memsz;
	}
	if (kernel_id_len) {
		m.build_id = kernel_id;
		m.build_id_len = kernel_id_len;
	} else if (f && f->ok && f->elf.build_id_len) {
		m.build_id = f->elf.build_id;
		m.build_id_len = f->elf.build_id_len;
	}
	int index = profev_writer_module(s->h.w, &m);
	if (index < 0)
		return index;
	s->wmods[s->nwmods++] = (struct wmod){ h, bias, size, (uint32_t)index };
	return index;
}

/* A mapping replaces whatever it overlaps (an unmapped library's place
 * reused). */
static int proc_map(struct proc *p, const struct pmod *add)
{
	uint32_t out = 0;
	for (uint32_t i = 0; i < p->nmods; i++)
		if (p->mods[i].hi <= add->lo || p->mods[i].lo >= add->hi)
			p->mods[out++] = p->mods[i];
	p->nmods = out;
	if (p->nmods == MAX_MODS_PER_PROC)
		return 0;
	if (array_grow((void **)&p->mods, &p->cap, sizeof *p->mods, p->nmods + 1))
		return -1;
	uint32_t k = 0;
	while (k < p->nmods && p->mods[k].lo < add->lo)
		k++;
	memmove(p->mods + k + 1, p->mods + k, (p->nmods - k) * sizeof *p->mods);
	p->mods[k] = *add;
	p->nmods++;
	return 0;
}

static const struct pmod *module_of(const struct proc *p, uint64_t pc)
{
	uint32_t lo = 0, hi = p->nmods;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->mods[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nmods && pc >= p->mods[lo].lo ? &p->mods[lo] : NULL;
}

/* dwarf_unwind's callback: the module of pc in the process walked, its
 * tables loaded the first time. */
static int find_tables(void *ctx, uint64_t pc, int32_t *tables, uint64_t *bias)
{
	struct perf_sampler *s = ctx;
	const struct pmod *m = s->walking ? module_of(s->walking, pc) : NULL;
	if (!m || m->file >= s->nfiles)
		return -1;
	struct file *f = &s->files[m->file];
	if (f->tables == -2)
		f->tables = f->path ? dwarf_unwinder_load(s->uw, f->path) : -1;
	if (f->tables < 0)
		return -1;
	*tables = f->tables;
	*bias = m->bias;
	return 0;
}

/* ---- threads ----------------------------------------------------------- */

static struct thread *thread_find(struct perf_sampler *s, uint32_t tid)
{
	for (uint32_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	return NULL;
}

static struct thread *thread_get(struct perf_sampler *s, uint32_t tid, uint32_t pid)
{
	struct thread *t = thread_find(s, tid);
	if (t)
		return t;
	if (array_grow((void **)&s->threads, &s->capthreads, sizeof *s->threads, s->nthreads + 1))
		return NULL;
	t = &s->threads[s->nthreads++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->pid = pid;
	return t;
}

/* The first event of a thread names it, with the name the kernel knows,
 * for the program that has no client to name it. */
static void thread_seen(struct perf_sampler *s, uint32_t tid, uint32_t pid)
{
	struct thread *t = thread_get(s, tid, pid);
	if (t && !t->named) {
		t->named = 1;
		const struct thread *main = t->comm[0] ? NULL : thread_find(s, pid);
		if (main)
			memcpy(t->comm, main->comm, sizeof t->comm);
		if (s->h.thread)
			s->h.thread(s->h.ctx, tid, pid, t->comm[0] ? t->comm : NULL);
	}
}

/* ---- events ------------------------------------------------------------ */

static int pend(struct perf_sampler *s, const struct profev_event *ev)
{
	if (array_grow((void **)&s->pending, &s->cappending, sizeof *s->pending, s->npending + 1))
		return PROFEV_E_NOMEM;
	s->pending[s->npending++] = *ev;
	return 0;
}

/* The fields sample_id_all appends to other records: TID, TIME, CPU. */
struct id_tail {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

static int tail(const unsigned char *rec, uint32_t size, uint32_t body, struct id_tail *t)
{
	if (size < body + sizeof *t)
		return -1;
	memcpy(t, rec + size - sizeof *t, sizeof *t);
	return 0;
}

/* Frames of pcs: the first is where the thread was, the rest return
 * addresses. */
static unsigned frames_of(const struct proc *pr, const uint64_t *pcs, unsigned n,
			  struct profev_frame *f)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t flags = i ? PROFEV_FRAMEF_RETURN : 0;
		const struct pmod *m = pr ? module_of(pr, pcs[i]) : NULL;
		if (m)
			f[i] = (struct profev_frame){ m->index, flags, pcs[i] - m->bias };
		else
			f[i] = (struct profev_frame){ 0, flags | PROFEV_FRAMEF_NOMODULE, pcs[i] };
	}
	return n;
}

/*
 * Which walk a sample keeps. The DWARF walk of the stack copy is right
 * where frame pointers are missing (rbp then holds anything, and the
 * kernel's chain is cut or wrong), so it wins when it reaches the
 * outermost frame. With the kernel's chain as well (fp_chain): when the
 * copy ends first (a deep stack), the chain goes on from the last frame
 * both found, if they meet; when the DWARF walk stops for want of a rule
 * (code without tables), the longer of the two is kept. Without it the
 * chain is the sample's ip alone and the DWARF walk is kept.
 */
static unsigned choose(struct perf_sampler *s, uint64_t *d, unsigned nd, int complete,
		       const uint64_t *kc, unsigned nk)
{
	if (complete) {
		s->n.dwarf++;
		return nd;
	}
	/* Where the chain holds the walk's last frame: at the same depth
	 * where both agree frame for frame, a frame or two before where code
	 * without frame pointers made the chain skip one. A recursion repeats
	 * the pc: of its places, the one nearest that depth. */
	unsigned at = 0, want = nd - 1;
	for (unsigned j = 1; nd > 1 && j < nk; j++)
		if (kc[j] == d[nd - 1] &&
		    (!at || (j > want ? j - want : want - j) < (at > want ? at - want : want - at)))
			at = j;
	if (at) {
		unsigned k = nd;
		for (unsigned i = at + 1; i < nk && k < MAX_FRAMES; i++)
			d[k++] = kc[i];
		s->n.spliced++;
		return k;
	}
	if (nk > nd) {
		memcpy(d, kc, nk * sizeof *d);
		s->n.frame_pointers++;
		return nk;
	}
	s->n.dwarf++;
	return nd;
}

static int on_sample(struct perf_sampler *s, const unsigned char *rec, uint32_t size)
{
	/* IP, TID, TIME, CPU, CALLCHAIN, then with stack copies REGS_USER
	 * (abi, bp, sp, ip) and STACK_USER (size, bytes, dyn_size) */
	const uint32_t fixed = 8 + 8 + 8 + 8 + 8 + 8;
	if (size < fixed)
		return 0;
	uint64_t ip, time, nr;
	uint32_t pid, tid, cpu;
	const unsigned char *p = rec + 8;
	memcpy(&ip, p, 8);
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	memcpy(&time, p + 16, 8);
	memcpy(&cpu, p + 24, 4);
	memcpy(&nr, p + 32, 8);
	if (nr > (size - fixed) / 8)
		return 0;
	const unsigned char *ips = p + 40;
	uint64_t kc[MAX_FRAMES], d[MAX_FRAMES];
	unsigned nk = 0, nd = 0;
	for (uint64_t i = 0; i < nr && nk < MAX_FRAMES; i++) {
		uint64_t pc;
		memcpy(&pc, ips + 8 * i, 8);
		if (pc >= (uint64_t)PERF_CONTEXT_MAX)
			continue; /* PERF_CONTEXT_USER and the like */
		if (pc == 0)
			break;
		kc[nk++] = pc;
	}
	if (!nk && ip)
		kc[nk++] = ip;
	const struct proc *pr = proc_find(s, pid);
	const uint64_t *pcs = kc;
	unsigned n = nk;
	if (s->uw) {
		const unsigned char *q = ips + 8 * nr, *end = rec + size;
		uint64_t abi = 0, regs[3], ssize = 0, dyn = 0;
		if (end - q >= 8)
			memcpy(&abi, q, 8);
		q += 8;
		if (abi && end - q >= 24 + 8) {
			memcpy(regs, q, 24);
			q += 24;
			memcpy(&ssize, q, 8);
			q += 8;
			if (ssize <= (uint64_t)(end - q) && (uint64_t)(end - q) - ssize >= 8)
				memcpy(&dyn, q + ssize, 8);
			if (dyn > ssize)
				dyn = 0;
		}
		if (dyn) {
			struct dwarf_regs r = { regs[2], regs[1], regs[0] };
			int complete;
			s->walking = pr;
			nd = dwarf_unwind(s->uw, &r, q, dyn, find_tables, s, d, MAX_FRAMES, &complete);
			s->walking = NULL;
			n = choose(s, d, nd, complete, kc, nk);
			pcs = d;
		} else {
			s->n.frame_pointers++;
		}
	}
	struct profev_frame f[MAX_FRAMES];
	frames_of(pr, pcs, n, f);
	struct profev_event ev = { 0 };
	ev.ts = time;
	ev.tid = tid;
	ev.type = PROFEV_EV_SAMPLE;
	ev.payload = cpu;
	if (n && !(ev.stack = profev_writer_stack(s->h.w, f, n)))
		return -1;
	thread_seen(s, tid, pid);
	s->n.samples++;
	return pend(s, &ev);
}

static int on_mmap2(struct perf_sampler *s, const struct perf_event_header *hd,
		    const unsigned char *rec, uint32_t size)
{
	/* pid, tid, addr, len, pgoff, 24 bytes of device or build-id, prot,
	 * flags, filename */
	const uint32_t head = 8 + 8 + 8 + 8 + 8 + 24 + 4 + 4;
	struct id_tail t;
	if (size <= head || tail(rec, size, head, &t))
		return 0;
	uint32_t pid, prot;
	uint64_t addr, len, pgoff;
	memcpy(&pid, rec + 8, 4);
	memcpy(&addr, rec + 16, 8);
	memcpy(&len, rec + 24, 8);
	memcpy(&pgoff, rec + 32, 8);
	memcpy(&prot, rec + 64, 4);
	if (!(prot & PROT_EXEC) || !len || addr + len < addr)
		return 0;
	char path[4096];
	size_t room = size - sizeof t - head;
	size_t plen = strnlen((const char *)rec + head, room < sizeof path ? room : sizeof path - 1);
	memcpy(path, rec + head, plen);
	path[plen] = 0;
	uint8_t kid[20];
	uint32_t kid_len = 0;
	if (hd->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		kid_len = rec[40] <= sizeof kid ? rec[40] : 0;
		memcpy(kid, rec + 44, kid_len);
	}
	const struct file *f = file_get(s, path);
	uint64_t bias = f && f->ok ? elf_file_bias(&f->elf, addr, pgoff) : addr - pgoff;
	int64_t index = module_index(s, path, bias, len, kid, kid_len, f);
	if (index < 0)
		return -1;
	struct proc *p = proc_get(s, pid);
	struct pmod m = { addr, addr + len, bias, (uint32_t)index,
			  f ? (uint32_t)(f - s->files) : UINT32_MAX };
	return p && proc_map(p, &m) < 0 ? PROFEV_E_NOMEM : 0;
}

static int on_switch(struct perf_sampler *s, const struct perf_event_header *hd,
		     const unsigned char *rec, uint32_t size)
{
	struct id_tail t;
	if (tail(rec, size, 8, &t))
		return 0;
	struct profev_event ev = { 0 };
	ev.ts = t.time;
	ev.tid = t.tid;
	ev.payload = t.cpu;
	if (hd->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		ev.type = PROFEV_EV_SWITCH_OUT;
		if (hd->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
			ev.payload |= PROFEV_SWITCH_PREEMPTED;
	} else {
		ev.type = PROFEV_EV_SWITCH_IN;
	}
	thread_seen(s, t.tid, t.pid);
	struct thread *th = thread_find(s, t.tid);
	if (th)
		th->on_cpu = ev.type == PROFEV_EV_SWITCH_IN;
	s->n.switches++;
	return pend(s, &ev);
}

static int on_lost(struct perf_sampler *s, unsigned type, const unsigned char *rec, uint32_t size)
{
	/* LOST: id, lost; LOST_SAMPLES: lost */
	uint32_t body = type == PERF_RECORD_LOST ? 24 : 16;
	struct id_tail t;
	if (tail(rec, size, body, &t))
		return 0;
	uint64_t lost;
	memcpy(&lost, rec + body - 8, 8);
	struct profev_event ev = { 0 };
	ev.ts = t.time;
	ev.tid = s->pid;
	ev.type = PROFEV_EV_SAMPLE_LOST;
	ev.payload = lost;
	s->n.lost += lost;
	return pend(s, &ev);
}

static void on_comm(struct perf_sampler *s, const struct perf_event_header *hd,
		    const unsigned char *rec, uint32_t size)
{
	uint32_t pid, tid;
	if (size < 8 + 8 + 1 + sizeof(struct id_tail))
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&tid, rec + 12, 4);
	struct thread *t = thread_get(s, tid, pid);
	if (!t)
		return;
	size_t room = size - 16 - sizeof(struct id_tail);
	size_t n = strnlen((const char *)rec + 16, room < sizeof t->comm ? room : sizeof t->comm - 1);
	memcpy(t->comm, rec + 16, n);
	t->comm[n] = 0;
	/* A new name after the first event is passed on too. */
	if (t->named && s->h.thread)
		s->h.thread(s->h.ctx, tid, pid, t->comm);
	/* An exec's new mappings replace the old ones they overlap; the table
	 * is not cleared, as samples from before the exec may come later. */
	(void)hd;
}

static int on_task(struct perf_sampler *s, unsigned type, const unsigned char *rec, uint32_t size)
{
	/* pid, ppid, tid, ptid, time */
	if (size < 8 + 24)
		return 0;
	uint32_t pid, ppid, tid, ptid;
	memcpy(&pid, rec + 8, 4);
	memcpy(&ppid, rec + 12, 4);
	memcpy(&tid, rec + 16, 4);
	memcpy(&ptid, rec + 20, 4);
	if (type == PERF_RECORD_FORK) {
		struct thread *parent = thread_find(s, ptid);
		char comm[16] = "";
		if (parent)
			memcpy(comm, parent->comm, sizeof comm);
		struct thread *t = thread_get(s, tid, pid);
		if (t && !t->comm[0])
			memcpy(t->comm, comm, sizeof comm);
		if (pid != ppid && pid == tid)
			proc_fork(s, ppid, pid);
		return 0;
	}
	/* EXIT. The kernel reports no switch out of a thread that ends: it
	 * leaves its CPU here, for good. */
	struct thread *t = thread_find(s, tid);
	struct id_tail it;
	int rc = 0;
	if (t && t->on_cpu && s->o.sched && !tail(rec, size, 8 + 24, &it)) {
		struct profev_event ev = { 0 };
		memcpy(&ev.ts, rec + 24, 8);
		ev.tid = tid;
		ev.type = PROFEV_EV_SWITCH_OUT;
		ev.payload = it.cpu;
		s->n.switches++;
		rc = pend(s, &ev);
	}
	if (t)
		*t = s->threads[--s->nthreads];
	if (pid == tid && pid != s->pid)
		proc_drop(s, pid);
	return rc;
}

/* Side-band records that later samples depend on (where modules are, what
 * threads are called): read from every ring before any sample, since a
 * mapping reported on one CPU is used by samples on all. */
static int is_sideband(unsigned type)
{
	return type == PERF_RECORD_MMAP2 || type == PERF_RECORD_COMM || type == PERF_RECORD_FORK;
}

static int record(struct perf_sampler *s, const unsigned char *rec, uint32_t size, int sideband)
{
	struct perf_event_header hd;
	memcpy(&hd, rec, sizeof hd);
	if (is_sideband(hd.type) != sideband)
		return 0;
	switch (hd.type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(s, rec, size);
	case PERF_RECORD_MMAP2:
		return on_mmap2(s, &hd, rec, size);
	case PERF_RECORD_SWITCH:
		return on_switch(s, &hd, rec, size);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return on_lost(s, hd.type, rec, size);
	case PERF_RECORD_COMM:
		on_comm(s, &hd, rec, size);
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return on_task(s, hd.type, rec, size);
	default:
		return 0; /* throttling and records not asked for */
	}
}

/* The records of ring r up to head: the side-band ones or the others. */
static int ring_read(struct perf_sampler *s, struct ring *r, uint64_t head, int sideband)
{
	struct perf_event_mmap_page *pg = (void *)r->map;
	const unsigned char *data = r->map + s->page;
	uint64_t pos = pg->data_tail;
	int rc = 0;
	while (pos + sizeof(struct perf_event_header) <= head && rc >= 0) {
		size_t at = (size_t)(pos & (r->data_size - 1));
		struct perf_event_header hd;
		if (at + sizeof hd <= r->data_size) {
			memcpy(&hd, data + at, sizeof hd);
		} else {
			size_t k = r->data_size - at;
			memcpy(&hd, data + at, k);
			memcpy((unsigned char *)&hd + k, data, sizeof hd - k);
		}
		if (hd.size < sizeof hd || hd.size > head - pos)
			break; /* never from a sane kernel; stop rather than loop */
		const unsigned char *rec = data + at;
		if (at + hd.size > r->data_size) {
			size_t k = r->data_size - at;
			memcpy(s->rec, data + at, k);
			memcpy(s->rec + k, data, hd.size - k);
			rec = s->rec;
		}
		rc = record(s, rec, hd.size, sideband);
		pos += hd.size;
	}
	if (!sideband)
		__atomic_store_n(&pg->data_tail, pos, __ATOMIC_RELEASE);
	return rc;
}

static int by_ts(const void *a, const void *b)
{
	const struct profev_event *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* A switch out sorts before a switch in at the same ns. */
	return (x->type > y->type) - (x->type < y->type);
}

int perf_sampler_drain(struct perf_sampler *s, int final)
{
	if (s->failed)
		return -1;
	uint64_t now = mono_ns();
	for (int i = 0; i < s->nrings; i++) {
		struct perf_event_mmap_page *pg = (void *)s->rings[i].map;
		s->rings[i].head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	}
	for (int pass = 1; pass >= 0; pass--)
		for (int i = 0; i < s->nrings; i++)
			if (ring_read(s, &s->rings[i], s->rings[i].head, pass) < 0) {
				s->failed = 1;
				return -1;
			}
	if (!s->npending)
		return 0;
	qsort(s->pending, s->npending, sizeof *s->pending, by_ts);
	uint32_t k = 0;
	for (; k < s->npending; k++) {
		struct profev_event *ev = &s->pending[k];
		if (!final && ev->ts + HOLD_NS > now)
			break;
		if (ev->ts < s->emitted_ts)
			ev->ts = s->emitted_ts; /* held back too little: keep the order */
		s->emitted_ts = ev->ts;
		if (s->h.emit(s->h.ctx, ev) < 0) {
			s->failed = 1;
			return -1;
		}
	}
	memmove(s->pending, s->pending + k, (s->npending - k) * sizeof *s->pending);
	s->npending -= k;
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

static long perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static void attr_init(struct perf_event_attr *a, const struct perf_sampler *s, int build_id)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	if (s->o.hz) {
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		/* cpu-clock counts ns: a fixed period makes every sample
		 * the same share of CPU time */
		a->sample_period = 1000000000ull / s->o.hz;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
		a->mmap2 = 1;
		a->mmap = 1;
		a->build_id = (unsigned)build_id;
		a->sample_max_stack = MAX_FRAMES;
		if (s->o.stack_bytes) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = REGS_MASK;
			a->sample_stack_user = s->o.stack_bytes;
			/* The kernel's walk of rbp costs the program about a
			 * microsecond per sample (more where rbp is not a frame
			 * pointer and the walk faults), for frames the copy
			 * mostly holds: taken only when asked for, as perf
			 * record --call-graph dwarf does not take it. */
			a->exclude_callchain_user = s->o.fp_chain ? 0 : 1;
		}
	} else {
		a->config = PERF_COUNT_SW_DUMMY;
		a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	}
	a->context_switch = s->o.sched ? 1 : 0;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(s->o.ring_bytes / 4);
}

/* Every ring's mapping and event closed; none left open. */
static void rings_close(struct perf_sampler *s)
{
	for (int i = 0; i < s->nrings; i++) {
		if (s->rings[i].map)
			munmap(s->rings[i].map, s->page + s->rings[i].data_size);
		close(s->rings[i].fd);
	}
	memset(s->rings, 0, (size_t)s->nrings * sizeof *s->rings);
	s->nrings = 0;
}

uint32_t perf_sampler_ring_bytes(const struct perf_sampler *s, uint32_t *asked)
{
	if (asked)
		*asked = s->asked_ring_bytes;
	return s->o.ring_bytes;
}

static const char *refusal(int e)
{
	static char buf[160];
	if (e == EACCES || e == EPERM) {
		int level = 0;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
		if (f) {
			if (fscanf(f, "%d", &level) != 1)
				level = 0;
			fclose(f);
		}
		if (level > 2) {
			snprintf(buf, sizeof buf, "%s (perf_event_paranoid is %d)", strerror(e), level);
			return buf;
		}
	}
	return strerror(e);
}

struct perf_sampler *perf_sampler_open(pid_t pid, const struct perf_sample_opts *o,
				       const struct perf_sample_host *host, char *why, size_t whylen)
{
	struct perf_sampler *s = calloc(1, sizeof *s);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (!s || ncpu < 1 || !(s->rings = calloc((size_t)ncpu, sizeof *s->rings))) {
		free(s);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	s->o = *o;
	s->h = *host;
	s->pid = (uint32_t)pid;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
#ifndef __x86_64__
	s->o.stack_bytes = 0; /* the registers and rules are x86-64's */
#endif
	s->o.stack_bytes &= ~7u;
	if (s->o.stack_bytes > MAX_STACK_BYTES)
		s->o.stack_bytes = MAX_STACK_BYTES;
	if (s->o.hz && s->o.stack_bytes && !(s->uw = dwarf_unwinder_new())) {
		free(s->rings);
		free(s);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (s->o.ring_bytes < 2 * s->page || (s->o.ring_bytes & (s->o.ring_bytes - 1)))
		s->o.ring_bytes = 1u << 20;
	s->asked_ring_bytes = s->o.ring_bytes;
	uint32_t min_ring = MIN_RING_BYTES;
	while (min_ring < 4 * (s->o.stack_bytes + 512) || min_ring < 2 * s->page)
		min_ring *= 2;
	int build_id = 1, first_errno = 0;
again:
	for (long cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr a;
		attr_init(&a, s, build_id);
		long fd = perf_event_open(&a, pid, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL && build_id) {
			/* a kernel before 5.12: the build-id comes from the file */
			build_id = 0;
			attr_init(&a, s, 0);
			fd = perf_event_open(&a, pid, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			if (errno == ENODEV || errno == ENXIO)
				continue; /* an offline CPU */
			first_errno = errno;
			break;
		}
		struct ring *r = &s->rings[s->nrings++];
		r->fd = (int)fd;
		r->data_size = s->o.ring_bytes;
		void *m = mmap(NULL, s->page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			       r->fd, 0);
		if (m == MAP_FAILED) {
			first_errno = errno;
			break;
		}
		r->map = m;
	}
	/* Past the locked-memory allowance (perf_event_mlock_kb per user, then
	 * RLIMIT_MEMLOCK), which a ring per CPU of a large machine soon is:
	 * smaller rings, as perf record takes, rather than no samples. */
	if ((first_errno == EPERM || first_errno == ENOMEM) && s->nrings &&
	    !s->rings[s->nrings - 1].map && s->o.ring_bytes / 2 >= min_ring) {
		rings_close(s);
		s->o.ring_bytes /= 2;
		first_errno = 0;
		goto again;
	}
	if (first_errno == EPERM && s->nrings && !s->rings[s->nrings - 1].map) {
		snprintf(why, whylen, "%s: rings of %u KiB per CPU are past the locked-memory limit "
			 "(perf_event_mlock_kb, ulimit -l)", strerror(first_errno), s->o.ring_bytes >> 10);
		perf_sampler_free(s);
		return NULL;
	}
	if (first_errno || !s->nrings) {
		snprintf(why, whylen, "%s", first_errno ? refusal(first_errno) : "no CPU to sample");
		perf_sampler_free(s);
		return NULL;
	}
	return s;
}

int perf_sampler_pollfds(const struct perf_sampler *s, struct pollfd *p, int max)
{
	int n = 0;
	for (int i = 0; i < s->nrings && n < max; i++)
		p[n++] = (struct pollfd){ s->rings[i].fd, POLLIN, 0 };
	return n;
}

void perf_sampler_counts(const struct perf_sampler *s, struct perf_sample_counts *c)
{
	*c = s->n;
}

void perf_sampler_free(struct perf_sampler *s)
{
	if (!s)
		return;
	rings_close(s);
	free(s->rings);
	for (uint32_t i = 0; i < s->nprocs; i++)
		free(s->procs[i].mods);
	free(s->procs);
	free(s->wmods);
	for (uint32_t i = 0; i < s->nfiles; i++)
		free(s->files[i].path);
	free(s->files);
	dwarf_unwinder_free(s->uw);
	free(s->threads);
	free(s->pending);
	free(s);
}
