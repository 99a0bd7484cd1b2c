/* pfconv to html: the report reads each trace several times (the
 * statistics of pfdump --stats, then a flame graph of each kind it holds),
 * each pass a call of the library, and hands the results to
 * profev_conv_report(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "profev_conv.h"
#include "profev_dump.h"


struct side {
	const char *path;
	FILE *in;
	struct profev_reader *r;
	struct profev_stats *st;
	struct cmd_membuf flame, samples, alloc, diff, folded;
};

/* One pass of path into m: format with flags added to o's. Trace errors
 * were told by the statistics' pass; only the others are told here.
 * @return EXIT_OK, EXIT_TRACE or EXIT_USAGE. */
static int pass(const char *path, const struct profev_conv_opts *o, int format, unsigned flags,
		struct cmd_membuf *m)
{
	FILE *in = cmd_open_input(path);
	if (!in)
		return EXIT_USAGE;
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(in, &err);
	if (!r) {
		cmd_close_input(in);
		return EXIT_TRACE;
	}
	struct profev_conv_opts po = *o;
	po.format = format;
	po.flags |= flags;
	po.warn = NULL;
	po.progress = NULL;
	struct profev_conv_sink sink = { NULL, cmd_membuf_write, NULL, m };
	int rc = profev_conv_run(r, &po, &sink, NULL, &err);
	profev_reader_free(r);
	cmd_close_input(in);
	if (rc == PROFEV_E_IO || rc == PROFEV_E_NOMEM) {
		cmd_error("'%s': out of memory for its flame graph", cmd_display_name(path));
		return EXIT_TRACE;
	}
	return rc < 0 ? EXIT_TRACE : EXIT_OK;
}

/* The statistics of s->path, kept with their reader. */
static int side_stats(struct side *s)
{
	s->in = cmd_open_input(s->path);
	if (!s->in)
		return EXIT_USAGE;
	struct profev_error err;
	s->r = profev_reader_new(s->in, &err);
	if (!s->r) {
		cmd_trace_error(s->path, &err);
		return EXIT_TRACE;
	}
	int rc = profev_stats_collect(s->r, &s->st);
	if (!s->st) {
		cmd_error("out of memory");
		return EXIT_TRACE;
	}
	if (rc < 0) {
		cmd_trace_error(s->path, profev_reader_error(s->r));
		cmd_error("'%s': the report shows what was read before that", cmd_display_name(s->path));
		return EXIT_TRACE;
	}
	return EXIT_OK;
}

static int side_graphs(struct side *s, const struct profev_conv_opts *o)
{
	unsigned base = PROFEV_CONV_SVG_EMBED;
	int rc = pass(s->path, o, PROFEV_CONV_SVG, base, &s->flame);
	if (rc == EXIT_OK && s->st->samples)
		rc = pass(s->path, o, PROFEV_CONV_SVG, base | PROFEV_CONV_SAMPLES, &s->samples);
	if (rc == EXIT_OK && s->st->by_type[PROFEV_EV_MEM_ALLOC])
		rc = pass(s->path, o, PROFEV_CONV_SVG, base | PROFEV_CONV_ALLOC, &s->alloc);
	return rc == EXIT_TRACE ? EXIT_OK : rc; /* a cut trace: the stats' pass said so */
}

static void side_free(struct side *s)
{
	profev_stats_free(s->st);
	profev_reader_free(s->r);
	if (s->in)
		cmd_close_input(s->in);
	free(s->flame.p);
	free(s->samples.p);
	free(s->alloc.p);
	free(s->diff.p);
	free(s->folded.p);
}

struct fd_sink {
	const char *path;
	int fd, err;
};

static int fd_open(void *ctx, unsigned part)
{
	struct fd_sink *o = ctx;
	(void)part;
	if (strcmp(o->path, "-") == 0) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	o->fd = cmd_open_output(o->path);
	return o->fd < 0 ? (o->err = -1) : 0;
}

static int fd_write(void *ctx, const void *data, size_t len)
{
	struct fd_sink *o = ctx;
	return (o->err = cmd_write_all(o->fd, data, len)) != 0 ? -1 : 0;
}

static int fd_close(void *ctx, unsigned part)
{
	struct fd_sink *o = ctx;
	(void)part;
	if (o->fd < 0 || o->fd == STDOUT_FILENO)
		return 0;
	int rc = close(o->fd);
	o->fd = -1;
	if (rc < 0) {
		o->err = errno;
		return -1;
	}
	return 0;
}

int cmd_conv_report(const struct profev_conv_opts *opts, const char *input, const char *output,
		    const char *base)
{
	struct side sides[2] = { { .path = base }, { .path = input } };
	struct side *first = base ? &sides[0] : &sides[1];
	int rc = EXIT_OK, bad = 0;
	struct profev_conv_opts o = *opts;
	if (base)
		o.flags |= PROFEV_CONV_THREAD_NAMES; /* two runs' TIDs differ */
	for (struct side *s = first; s <= &sides[1] && rc != EXIT_USAGE; s++) {
		int r = side_stats(s);
		if (r == EXIT_TRACE && s->st)
			bad = 1, r = EXIT_OK;
		if (r == EXIT_OK)
			r = side_graphs(s, &o);
		if (r != EXIT_OK)
			rc = r;
	}
	/* The differential graph: the new run against the base's stacks. */
	if (rc == EXIT_OK && base) {
		rc = pass(base, &o, PROFEV_CONV_FOLDED, 0, &sides[0].folded);
		if (rc == EXIT_TRACE)
			rc = EXIT_OK;
		o.diff_base = sides[0].folded.p ? sides[0].folded.p : "";
		o.diff_base_len = sides[0].folded.n;
		if (rc == EXIT_OK)
			rc = pass(input, &o, PROFEV_CONV_SVG, PROFEV_CONV_SVG_EMBED, &sides[1].diff);
		if (rc == EXIT_TRACE)
			rc = EXIT_OK;
	}
	if (rc == EXIT_OK) {
		struct profev_report_run runs[2];
		unsigned n = 0;
		for (struct side *s = first; s <= &sides[1]; s++)
			runs[n++] = (struct profev_report_run){
				.name = cmd_display_name(s->path), .stats = s->st, .r = s->r,
				.flame = s->flame.p, .flame_len = s->flame.n,
				.samples = s->samples.p, .samples_len = s->samples.n,
				.alloc = s->alloc.p, .alloc_len = s->alloc.n,
			};
		struct fd_sink out = { output, -1, 0 };
		struct profev_conv_sink sink = { fd_open, fd_write, fd_close, &out };
		struct profev_error err;
		int crc = profev_conv_report(runs, n, base ? sides[1].diff.p : NULL, sides[1].diff.n, &sink, &err);
		fd_close(&out, 0);
		if (crc == PROFEV_E_IO && out.err > 0)
			cmd_error("unable to write '%s': %s", output, strerror(out.err));
		else if (crc == PROFEV_E_IO && out.err < 0)
			; /* cmd_open_output() said why */
		else if (crc < 0)
			cmd_error("%s", err.message);
		if (crc < 0)
			rc = EXIT_TRACE;
		else if (bad)
			rc = EXIT_TRACE;
	}
	side_free(&sides[0]);
	side_free(&sides[1]);
	return rc;
}
