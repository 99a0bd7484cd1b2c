/* A trace written into memory, for tests that read the same bytes back in
 * many ways (whole, cut, flipped). */
#ifndef PROFEV_TRACEMEM_H
#define PROFEV_TRACEMEM_H
#include <stdint.h>
#include <stdio.h>
#include "profev_trace.h"

struct tracemem {
	uint8_t *data; /* malloc'ed */
	size_t len;
};

/* Runs fill() on a writer with opts (NULL: the defaults) over a temporary
 * file; fill writes and closes the trace. Whatever fill returns, *m holds
 * the bytes written (free m->data). 0, or fill's code with the writer's
 * message in *err (or -1 if the writer could not be made). */
int tracemem_write(struct tracemem *m, int (*fill)(struct profev_writer *),
		   const struct profev_writer_opts *opts, struct profev_error *err);

/* A reader over len bytes at data; fclose(*f) after freeing the reader.
 * An empty buffer reads as an empty file. NULL with *err on failure. */
struct profev_reader *tracemem_reader(const void *data, size_t len, FILE **f, struct profev_error *err);
#endif
