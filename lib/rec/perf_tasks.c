/*
 * What the sampler knows of the program (rec_internal.h): its processes
 * and their executable mappings, the files mapped (ELF headers and unwind
 * tables, read once), the modules written to the trace and the threads
 * with their names. Memory: one module table per live process, one entry
 * per file and module, and the threads alive.
 */
#include <stdlib.h>
#include <string.h>
#include "rec/rec_internal.h"

static uint64_t path_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* ---- processes and their modules ------------------------------------- */

struct perf_process *process_get(struct perf_sampler *s, uint32_t pid)
{
	struct perf_process *p = process_find(s, pid);
	if (p || s->processes.count == MAX_PROCS)
		return p;
	return u64_map_insert(&s->processes, (uint64_t)pid + 1, NULL);
}

void process_drop(struct perf_sampler *s, uint32_t pid)
{
	struct perf_process *p = process_find(s, pid);
	if (!p)
		return;
	module_map_free(&p->mods);
	u64_map_remove(&s->processes, p);
}

void process_fork(struct perf_sampler *s, uint32_t parent, uint32_t child)
{
	struct perf_process *c = process_get(s, child);
	const struct perf_process *pp = process_find(s, parent); /* after process_get moved it */
	if (!pp || !c || c->mods.n || !pp->mods.n)
		return;
	module_map_copy(&c->mods, &pp->mods);
}

const struct module_file *module_file_get(struct perf_sampler *s, const char *path)
{
	uint64_t h = path_hash(path);
	for (uint32_t i = 0; i < s->nfiles; i++)
		if (s->files[i].path_hash == h)
			return &s->files[i];
	if (s->nfiles == MAX_FILES ||
	    array_grow((void **)&s->files, &s->capfiles, sizeof *s->files, s->nfiles + 1))
		return NULL;
	struct module_file *f = &s->files[s->nfiles++];
	f->path_hash = h;
	f->ok = path[0] == '/' && elf_file_read(path, &f->elf) == 0;
	f->tables = -2;
	f->path = strdup(path);
	return f;
}

int64_t module_written(struct perf_sampler *s, const char *path, uint64_t bias, uint64_t size,
		       const uint8_t *kernel_id, uint32_t kernel_id_len, const struct module_file *f)
{
	uint64_t h = path_hash(path);
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
	s->wmods[s->nwmods++] = (struct written_module){ h, bias, size, (uint32_t)index };
	return index;
}

int dwarf_tables_of(void *ctx, uint64_t pc, int32_t *tables, uint64_t *bias)
{
	struct perf_sampler *s = ctx;
	const struct module_range *m = s->walking ? module_map_find(&s->walking->mods, pc) : NULL;
	if (!m || m->file >= s->nfiles)
		return -1;
	struct module_file *f = &s->files[m->file];
	if (f->tables == -2)
		f->tables = f->path ? dwarf_unwinder_load(s->uw, f->path) : -1;
	if (f->tables < 0)
		return -1;
	*tables = f->tables;
	*bias = m->bias;
	return 0;
}

/* ---- threads ----------------------------------------------------------- */

struct perf_task *task_get(struct perf_sampler *s, uint32_t tid, uint32_t pid)
{
	int added;
	struct perf_task *t = u64_map_insert(&s->tasks, (uint64_t)tid + 1, &added);
	if (t && added) {
		t->tid = tid;
		t->pid = pid;
	}
	return t;
}

void task_first_seen(struct perf_sampler *s, uint32_t tid, uint32_t pid)
{
	struct perf_task *t = task_get(s, tid, pid);
	if (t && !t->named) {
		t->named = 1;
		const struct perf_task *main = t->comm[0] ? NULL : task_find(s, pid);
		if (main)
			memcpy(t->comm, main->comm, sizeof t->comm);
		if (s->h.thread)
			s->h.thread(s->h.ctx, tid, pid, t->comm[0] ? t->comm : NULL);
	}
}

void perf_tables_free(struct perf_sampler *s)
{
	for (struct perf_process *p = NULL; (p = u64_map_next(&s->processes, p));)
		module_map_free(&p->mods);
	u64_map_free(&s->processes);
	free(s->wmods);
	for (uint32_t i = 0; i < s->nfiles; i++)
		free(s->files[i].path);
	free(s->files);
	u64_map_free(&s->tasks);
}
