/*
 * One pfconv target (lib/conv/), chosen at build time with
 * -DFUZZ_FORMAT=PROFEV_CONV_PERFETTO, _CHROME or _FOLDED. The first input
 * byte picks the options, the rest is the trace:
 *   bits 0-1  time window: none, from, to, both (edges from bits 6-7)
 *   bits 2-3  thread filter: none, "main", TID 1, a thread that is not there
 *   bits 4-5  none, split into parts of 2 KiB, of 256 bytes, or the
 *             format's flag (folded: merged threads; Chrome: B/E pairs)
 * The output is counted, not kept; the converter's statistics must agree
 * with what reached the sink, and a Chrome part is framed as a JSON object.
 */
#include "fuzz.h"
#include "profev_conv.h"

#ifndef FUZZ_FORMAT
#error "build with -DFUZZ_FORMAT=PROFEV_CONV_..."
#endif

#define OUT_MAX (64u << 20) /* output bytes per input before the sink refuses */

struct sink {
	uint64_t bytes, part_bytes;
	unsigned opened, closed;
	char first, last[3];
};

static int s_open(void *ctx, unsigned part)
{
	struct sink *s = ctx;
	if (part != s->opened || s->opened != s->closed)
		abort(); /* parts are opened in order, one at a time */
	s->opened++;
	s->part_bytes = 0;
	return 0;
}

static int s_write(void *ctx, const void *data, size_t len)
{
	struct sink *s = ctx;
	if (s->opened != s->closed + 1)
		abort(); /* a write outside a part */
	if (!len)
		return 0;
	const char *p = data;
	if (!s->part_bytes)
		s->first = p[0];
	for (size_t i = len > 3 ? len - 3 : 0; i < len; i++) {
		memmove(s->last, s->last + 1, 2);
		s->last[2] = p[i];
	}
	s->bytes += len;
	s->part_bytes += len;
	return s->bytes > OUT_MAX ? -1 : 0;
}

static int s_close(void *ctx, unsigned part)
{
	struct sink *s = ctx;
	if (part + 1 != s->opened || s->opened != s->closed + 1)
		abort();
	s->closed++;
	if (FUZZ_FORMAT == PROFEV_CONV_CHROME && s->bytes <= OUT_MAX &&
	    (s->first != '{' || memcmp(s->last + 1, "}\n", 2) != 0))
		abort(); /* a Chrome part is one JSON object */
	return 0;
}

static void quiet(void *ctx, int kind, const char *message)
{
	(void)ctx;
	(void)kind;
	(void)fuzz_touch(message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned o = data[0];
	uint8_t *d = fuzz_trace(data + 1, size - 1);
	struct profev_conv_opts opts;
	profev_conv_opts_init(&opts, FUZZ_FORMAT);
	uint64_t edge = 1000ull << (4 * (o >> 6)); /* 1 us .. 4 ms */
	if (o & 1)
		opts.from_ns = edge;
	if (o & 2)
		opts.to_ns = (o & 1) ? 3 * edge : edge;
	static const char *const threads[] = { NULL, "main", "1", "no such thread" };
	opts.thread = threads[(o >> 2) & 3];
	switch ((o >> 4) & 3) {
	case 1: opts.split_size = 2048; break;
	case 2: opts.split_size = 256; break;
	case 3: opts.flags = FUZZ_FORMAT == PROFEV_CONV_CHROME	  ? PROFEV_CONV_CHROME_BE
			     : FUZZ_FORMAT == PROFEV_CONV_PERFETTO ? PROFEV_CONV_COMPRESS
								   : PROFEV_CONV_MERGE_THREADS;
		break;
	}
	opts.warn = quiet;

	FILE *f = fuzz_file(d, size - 1);
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(f, &err);
	if (r) {
		struct sink s = { 0 };
		struct profev_conv_sink sink = { s_open, s_write, s_close, &s };
		struct profev_conv_stats st;
		int rc = profev_conv_run(r, &opts, &sink, &st, &err);
		(void)fuzz_touch(err.message);
		if (rc != PROFEV_E_ARG && rc != PROFEV_E_IO && rc != PROFEV_E_NOMEM) {
			/* what the converter says it wrote is what arrived, in whole parts */
			if (st.bytes_out != s.bytes || st.parts != s.opened || s.opened != s.closed)
				abort();
		}
		if (rc == PROFEV_E_ARG && !(opts.split_size && FUZZ_FORMAT == PROFEV_CONV_FOLDED))
			abort(); /* the options are valid */
		profev_reader_free(r);
	}
	fclose(f);
	free(d);
	return 0;
}
