/*
 * lib/sym/sym_file.c: an empty symbolizer holds no file; opening a file
 * that is missing or not ELF says so; sym_close() takes NULL and a
 * symbolizer with its ELF open.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "sym/sym_internal.h"

int main(void)
{
	struct profev_symbolizer *s = sym_alloc(NULL);
	CHECK(s != NULL);
	if (!s)
		return CHECK_DONE();
	CHECK_EQ(s->fd, -1);
	CHECK_EQ(s->sfd, -1);
	elf_version(EV_CURRENT);
	int fd;
	Elf *elf = NULL;
	CHECK_EQ(sym_open_elf(s, "/nonexistent/x", &fd, &elf), PROFEV_E_IO);
	CHECK(strstr(s->err.message, "unable to open '/nonexistent/x'") != NULL);

	char path[] = "/tmp/t_sym_file.XXXXXX";
	int tfd = mkstemp(path);
	CHECK(tfd >= 0 && write(tfd, "hello\n", 6) == 6);
	close(tfd);
	CHECK_EQ(sym_open_elf(s, path, &s->sfd, &s->selfp), PROFEV_E_UNSUPPORTED);
	CHECK(strstr(s->err.message, "not an ELF file") != NULL);
	unlink(path);

	char self[4096];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(k > 0);
	self[k > 0 ? k : 0] = '\0';
	CHECK_EQ(sym_open_elf(s, self, &s->fd, &s->elf), 0);
	sym_close(s);
	sym_close(NULL);
	return CHECK_DONE();
}
