/*
 * The kernel's records (rec_internal.h): samples with their callstacks,
 * context switches, lost samples, and the side-band records later samples
 * depend on (mappings, thread names, forks and exits). Samples taken with
 * a copy of the user stack are unwound here by DWARF (dwarf_unwind.c).
 * Events wait in s->pending for perf_drain.c to put them in time order.
 */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include "rec/rec_internal.h"

static int pending_add(struct perf_sampler *s, const struct profev_event *ev)
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

static int id_tail_read(const unsigned char *rec, uint32_t size, uint32_t body, struct id_tail *t)
{
	if (size < body + sizeof *t)
		return -1;
	memcpy(t, rec + size - sizeof *t, sizeof *t);
	return 0;
}

/* Frames of pcs: the first is where the thread was, the rest return
 * addresses. */
static unsigned frames_of(const struct perf_process *pr, const uint64_t *pcs, unsigned n,
			  struct profev_frame *f)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t flags = i ? PROFEV_FRAMEF_RETURN : 0;
		f[i] = module_map_frame(pr ? &pr->mods : NULL, pcs[i], flags);
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
static unsigned choose_walk(struct perf_sampler *s, uint64_t *d, unsigned nd, int complete,
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
		for (unsigned i = at + 1; i < nk && k < PERF_MAX_FRAMES; i++)
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
	 * (abi, PERF_NREGS registers) and STACK_USER (size, bytes, dyn_size) */
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
	uint64_t kc[PERF_MAX_FRAMES], d[PERF_MAX_FRAMES];
	unsigned nk = 0, nd = 0;
	for (uint64_t i = 0; i < nr && nk < PERF_MAX_FRAMES; i++) {
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
	const struct perf_process *pr = process_find(s, pid);
	const uint64_t *pcs = kc;
	unsigned n = nk;
#ifdef PERF_REGS_MASK
	if (s->uw) {
		const unsigned char *q = ips + 8 * nr, *end = rec + size;
		uint64_t abi = 0, regs[PERF_NREGS], ssize = 0, dyn = 0;
		if (end - q >= 8)
			memcpy(&abi, q, 8);
		q += 8;
		if (abi && end - q >= (ptrdiff_t)sizeof regs + 8) {
			memcpy(regs, q, sizeof regs);
			q += sizeof regs;
			memcpy(&ssize, q, 8);
			q += 8;
			if (ssize <= (uint64_t)(end - q) && (uint64_t)(end - q) - ssize >= 8)
				memcpy(&dyn, q + ssize, 8);
			if (dyn > ssize)
				dyn = 0;
		}
		if (dyn) {
			struct dwarf_regs r = perf_regs_of(regs);
			int complete;
			s->walking = pr;
			nd = dwarf_unwind(s->uw, &r, q, dyn, dwarf_tables_of, s, d, PERF_MAX_FRAMES, &complete);
			s->walking = NULL;
			n = choose_walk(s, d, nd, complete, kc, nk);
			pcs = d;
		} else {
			s->n.frame_pointers++;
		}
	}
#endif
	struct profev_frame f[PERF_MAX_FRAMES];
	frames_of(pr, pcs, n, f);
	struct profev_event ev = { 0 };
	ev.ts = time;
	ev.tid = tid;
	ev.type = PROFEV_EV_SAMPLE;
	ev.payload = cpu;
	if (n && !(ev.stack = profev_writer_stack(s->h.w, f, n)))
		return -1;
	task_first_seen(s, tid, pid);
	s->n.samples++;
	return pending_add(s, &ev);
}

static int on_mmap2(struct perf_sampler *s, const struct perf_event_header *hd,
		    const unsigned char *rec, uint32_t size)
{
	/* pid, tid, addr, len, pgoff, 24 bytes of device or build-id, prot,
	 * flags, filename */
	const uint32_t head = 8 + 8 + 8 + 8 + 8 + 24 + 4 + 4;
	struct id_tail t;
	if (size <= head || id_tail_read(rec, size, head, &t))
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
	const struct module_file *f = module_file_get(s, path);
	uint64_t bias = f && f->ok ? elf_file_bias(&f->elf, addr, pgoff) : addr - pgoff;
	int64_t index = module_written(s, path, bias, len, kid, kid_len, f);
	if (index < 0)
		return -1;
	struct perf_process *p = process_get(s, pid);
	struct module_range m = { addr, addr + len, bias, (uint32_t)index,
				  f ? (uint32_t)(f - s->files) : UINT32_MAX };
	return p && module_map_add(&p->mods, &m, MAX_MODS_PER_PROC) < 0 ? PROFEV_E_NOMEM : 0;
}

static int on_switch(struct perf_sampler *s, const struct perf_event_header *hd,
		     const unsigned char *rec, uint32_t size)
{
	struct id_tail t;
	if (id_tail_read(rec, size, 8, &t))
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
	task_first_seen(s, t.tid, t.pid);
	struct perf_task *th = task_find(s, t.tid);
	if (th)
		th->on_cpu = ev.type == PROFEV_EV_SWITCH_IN;
	s->n.switches++;
	return pending_add(s, &ev);
}

static int on_lost(struct perf_sampler *s, unsigned type, const unsigned char *rec, uint32_t size)
{
	/* LOST: id, lost; LOST_SAMPLES: lost */
	uint32_t body = type == PERF_RECORD_LOST ? 24 : 16;
	struct id_tail t;
	if (id_tail_read(rec, size, body, &t))
		return 0;
	uint64_t lost;
	memcpy(&lost, rec + body - 8, 8);
	struct profev_event ev = { 0 };
	ev.ts = t.time;
	ev.tid = s->pid;
	ev.type = PROFEV_EV_SAMPLE_LOST;
	ev.payload = lost;
	s->n.lost += lost;
	return pending_add(s, &ev);
}

static void on_comm(struct perf_sampler *s, const struct perf_event_header *hd,
		    const unsigned char *rec, uint32_t size)
{
	uint32_t pid, tid;
	if (size < 8 + 8 + 1 + sizeof(struct id_tail))
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&tid, rec + 12, 4);
	struct perf_task *t = task_get(s, tid, pid);
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
		struct perf_task *parent = task_find(s, ptid);
		char comm[16] = "";
		if (parent)
			memcpy(comm, parent->comm, sizeof comm);
		struct perf_task *t = task_get(s, tid, pid);
		if (t && !t->comm[0])
			memcpy(t->comm, comm, sizeof comm);
		if (pid != ppid && pid == tid)
			process_fork(s, ppid, pid);
		return 0;
	}
	/* EXIT. The kernel reports no switch out of a thread that ends: it
	 * leaves its CPU here, for good. */
	struct perf_task *t = task_find(s, tid);
	struct id_tail it;
	int rc = 0;
	if (t && t->on_cpu && s->o.sched && !id_tail_read(rec, size, 8 + 24, &it)) {
		struct profev_event ev = { 0 };
		memcpy(&ev.ts, rec + 24, 8);
		ev.tid = tid;
		ev.type = PROFEV_EV_SWITCH_OUT;
		ev.payload = it.cpu;
		s->n.switches++;
		rc = pending_add(s, &ev);
	}
	if (t)
		u64_map_remove(&s->tasks, t);
	if (pid == tid && pid != s->pid)
		process_drop(s, pid);
	return rc;
}

/* Side-band records that later samples depend on (where modules are, what
 * threads are called): read from every ring before any sample, since a
 * mapping reported on one CPU is used by samples on all. */
static int is_sideband(unsigned type)
{
	return type == PERF_RECORD_MMAP2 || type == PERF_RECORD_COMM || type == PERF_RECORD_FORK;
}

int perf_record_decode(struct perf_sampler *s, const unsigned char *rec, uint32_t size,
		       int sideband)
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

