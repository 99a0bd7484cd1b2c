/*
 * sym/sym_file.c - one file's struct profev_symbolizer, below the
 * pieces that read it: made empty, its ELF opened, and all it holds freed.
 * A module's symbolizer (symbolizer.c), its supplementary file and the
 * .dwo and .dwp files of its split units (split_dwarf.c) are each one.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "sym/sym_internal.h"

struct profev_symbolizer *sym_alloc(struct profev_error *err)
{
	struct profev_symbolizer *s = calloc(1, sizeof(*s));
	if (!s && err) {
		memset(err, 0, sizeof(*err));
		err->code = PROFEV_E_NOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
	}
	if (s) {
		s->fd = -1;
		s->sfd = -1;
		u64_map_init(&s->warned, 8);
	}
	return s;
}

int sym_open_elf(struct profev_symbolizer *s, const char *path, int *fd, Elf **elf)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return sym_fail(s, PROFEV_E_IO, "unable to open '%s': %s", path, strerror(errno));
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF)
		return sym_fail(s, PROFEV_E_UNSUPPORTED, "'%s': not an ELF file", path);
	return 0;
}

void sym_close(struct profev_symbolizer *s)
{
	if (!s)
		return;
	info_release(s);
	sym_warnings_release(s);
	free(s->out);
	free(s->chain);
	symtab_release(&s->symtab);
	for (size_t i = 0; i < s->nbufs; i++)
		free(s->bufs[i]);
	free(s->bufs);
	if (s->selfp)
		elf_end(s->selfp);
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	if (s->demangler_handle)
		dlclose(s->demangler_handle);
	arena_free(&s->arena);
	free(s);
}
