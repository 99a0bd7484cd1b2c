/*
 * Shared by the libFuzzer targets of tests/fuzz/ (one per decoder entry
 * point; `make fuzz`). Mutated traces would mostly stop at a chunk's
 * checksum; fuzz_trace() recomputes every whole chunk's checksum first, so
 * mutations reach the body parsers (and a crash input, once fixed up by
 * tests/fuzz/fixsum, crashes the commands too).
 */
#ifndef PROFEV_FUZZ_H
#define PROFEV_FUZZ_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/trace_internal.h"
#include "profev_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rewrites the checksum of every chunk that lies whole in d[0..n). */
static inline void fuzz_fix_checksums(uint8_t *d, size_t n)
{
	size_t off = FILE_HEADER_SIZE;
	while (off + CHUNK_HEADER_SIZE <= n) {
		struct chunk_header h;
		chunk_header_decode(d + off, &h);
		if (h.stored_size > n - off - CHUNK_HEADER_SIZE)
			break;
		h.checksum = chunk_checksum(d + off, d + off + CHUNK_HEADER_SIZE, h.stored_size);
		chunk_header_encode(d + off, &h);
		off += CHUNK_HEADER_SIZE + (size_t)h.stored_size;
	}
}

/* A malloc'ed copy of the input with its checksums fixed. */
static inline uint8_t *fuzz_trace(const uint8_t *data, size_t size)
{
	uint8_t *d = malloc(size ? size : 1);
	if (!d)
		abort();
	memcpy(d, data, size);
	fuzz_fix_checksums(d, size);
	return d;
}

/* A FILE reading d[0..n); fmemopen refuses n = 0, an empty file is /dev/null. */
static inline FILE *fuzz_file(const uint8_t *d, size_t n)
{
	FILE *f = n ? fmemopen((void *)d, n, "rb") : fopen("/dev/null", "rb");
	if (!f)
		abort();
	return f;
}

/* Where listings go: written, formatted, and thrown away. */
static inline FILE *fuzz_sink(void)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	return null;
}

/* Reads the trace on f to its end: its events, *rc the end status (0: an
 * end chunk; <0: the reader's error, its message in why, which may be NULL). */
static inline uint64_t fuzz_count_events(FILE *f, int *rc, struct profev_error *why)
{
	uint64_t n = 0;
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(f, &err);
	if (!r) {
		*rc = err.code;
	} else {
		struct profev_event ev;
		struct profev_event_info in;
		while ((*rc = profev_reader_next_event(r, &ev, &in)) > 0)
			n++;
		err = *profev_reader_error(r);
		profev_reader_free(r);
	}
	if (why)
		*why = err;
	return n;
}

/* Touches every byte of s, so a pointer into freed or foreign memory shows. */
static inline size_t fuzz_touch(const char *s)
{
	return s ? strlen(s) : 0;
}
#endif
