/* A trace written into memory; see tracemem.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracemem.h"

int tracemem_write(struct tracemem *m, int (*fill)(struct profev_writer *),
		   const struct profev_writer_opts *opts, struct profev_error *err)
{
	m->data = NULL;
	m->len = 0;
	FILE *tmp = tmpfile();
	if (!tmp) {
		*err = (struct profev_error){ .code = PROFEV_E_IO, .message = "no temporary file" };
		return -1;
	}
	struct profev_writer *w = profev_writer_new(fileno(tmp), opts, err);
	if (!w) {
		fclose(tmp);
		return -1;
	}
	int rc = fill(w);
	if (rc)
		*err = *profev_writer_error(w);
	profev_writer_free(w);
	off_t size = lseek(fileno(tmp), 0, SEEK_END);
	if (size > 0 && (m->data = malloc((size_t)size)) &&
	    pread(fileno(tmp), m->data, (size_t)size, 0) == size)
		m->len = (size_t)size;
	fclose(tmp);
	return rc;
}

struct profev_reader *tracemem_reader(const void *data, size_t len, FILE **f, struct profev_error *err)
{
	/* fmemopen refuses a zero-length buffer; an empty file is /dev/null. */
	*f = len ? fmemopen((void *)data, len, "rb") : fopen("/dev/null", "rb");
	return profev_reader_new(*f, err);
}
