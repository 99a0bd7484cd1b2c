/* pfconv: convert a trace for Perfetto, Chrome JSON viewers or flame graphs.
 * Options and files only; the conversion is profev_conv_run() in lib/. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"
#include "profev_conv.h"

static const char usage_text[] =
	"usage: pfconv to perfetto|chrome|folded|svg [options] TRACE|-\n"
	"       pfconv to png -o DIR [options] TRACE|-\n"
	"       pfconv to html [--compare BASE] [-o OUT] TRACE\n"
	"\n"
	"  -o, --output OUT     write OUT ('-': standard output); default: beside\n"
	"                       TRACE with the format's extension, or standard\n"
	"                       output when TRACE is '-'; png: the directory\n"
	"                       (made if missing) for DIR/frame-NNNNNN.png\n"
	"      --from TIME      start at TIME after the trace's start (1.5s, 200ms)\n"
	"      --to TIME        end at TIME after the trace's start\n"
	"      --thread NAME|TID\n"
	"                       only this thread's zones, instants and messages\n"
	"      --split-size SIZE\n"
	"                       write complete files of at most about SIZE bytes\n"
	"                       (64M, 1G): OUT's name gets .000, .001... before its\n"
	"                       extension\n"
	"      --merge-threads  folded, svg: one profile for all threads\n"
	"      --samples        folded, svg: the samples' callstacks, one per unit of weight\n"
	"      --gpu            folded, svg: GPU time by zone path, one root per GPU context\n"
	"      --alloc[=live]   folded, svg: bytes allocated by callstack (live: those\n"
	"                       still allocated at the end)\n"
	"      --diff BASE      svg: a differential flame graph against the trace BASE\n"
	"                       (red: more time than in BASE, blue: less)\n"
	"      --compare BASE   html: BASE and TRACE side by side, and the differential\n"
	"                       flame graph\n"
	"      --begin-end      chrome: B/E event pairs instead of X events\n"
	"      --no-images      perfetto, chrome: leave the frame images out\n"
	"      --compress       perfetto: deflated packets (compressed_packets), about\n"
	"                       a fifth of the size, written several times slower\n"
	"  -q, --quiet          no warnings and no progress line\n"
	"  -h, --help           show this help\n"
	"      --version        show the version\n";

#define MIN_SPLIT 4096

struct out {
	const char *path;     /* -o, or the default name; "-" for stdout */
	const char *ext;      /* the format's extension, for part names */
	int split;            /* name parts */
	int fd;
	char *part_path;      /* the file being written */
	int err;              /* errno of the failed write, open or close */
	uint64_t part_bytes;  /* written to part_path */
	uint64_t largest;     /* bytes of the largest part */
	char *largest_path;   /* its name */
};

/* chrome://tracing parses the whole file as one JavaScript string, and V8
 * refuses strings from 2^28 characters (256 MiB) on: past that the page
 * fails to load the trace. */
#define CHROME_TRACING_MAX (256ull << 20)

struct ui {
	int quiet;
	int progress;         /* stderr is a terminal */
	int line;             /* a progress line is showing */
	uint64_t in_size;     /* input bytes when known, for a percentage */
};

static char *part_name(const struct out *o, unsigned part, const char *ext)
{
	size_t n = strlen(o->path), e = strlen(ext);
	char *s = malloc(n + 16);
	if (!s)
		return NULL;
	if (!o->split) {
		memcpy(s, o->path, n + 1);
		return s;
	}
	/* game.pftrace -> game.000.pftrace; other names get the number last */
	if (n > e && strcmp(o->path + n - e, ext) == 0)
		snprintf(s, n + 16, "%.*s.%03u%s", (int)(n - e), o->path, part, ext);
	else
		snprintf(s, n + 16, "%s.%03u", o->path, part);
	return s;
}

static int out_open(void *ctx, unsigned part)
{
	struct out *o = ctx;
	free(o->part_path);
	o->part_path = part_name(o, part, o->ext);
	if (!o->part_path) {
		o->err = ENOMEM;
		return -1;
	}
	o->part_bytes = 0;
	if (strcmp(o->part_path, "-") == 0) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	o->fd = cmd_open_output(o->part_path);
	if (o->fd < 0) {
		o->err = -1; /* cmd_open_output() said why */
		return -1;
	}
	return 0;
}

static int out_write(void *ctx, const void *data, size_t len)
{
	struct out *o = ctx;
	if ((o->err = cmd_write_all(o->fd, data, len)) != 0)
		return -1;
	o->part_bytes += len;
	return 0;
}

static int out_close(void *ctx, unsigned part)
{
	struct out *o = ctx;
	(void)part;
	if (o->part_bytes > o->largest && o->part_path) {
		char *s = strdup(o->part_path);
		if (s) {
			free(o->largest_path);
			o->largest_path = s;
			o->largest = o->part_bytes;
		}
	}
	o->part_bytes = 0;
	if (o->fd == STDOUT_FILENO || o->fd < 0)
		return 0;
	int rc = close(o->fd);
	o->fd = -1;
	if (rc < 0) {
		o->err = errno;
		return -1;
	}
	return 0;
}

static void clear_line(struct ui *u)
{
	if (u->line) {
		fputs("\r\033[K", stderr);
		u->line = 0;
	}
}

static void on_warn(void *ctx, int kind, const char *message)
{
	struct ui *u = ctx;
	(void)kind;
	if (u->quiet)
		return;
	clear_line(u);
	cmd_warn("%s", message);
}

static void on_progress(void *ctx, const struct profev_conv_stats *st)
{
	struct ui *u = ctx;
	if (u->quiet || !u->progress)
		return;
	if (u->in_size)
		fprintf(stderr, "\r%s: %" PRIu64 "M events, %u%% of the trace\033[K", cmd_name,
			st->events_in / 1000000, (unsigned)(st->bytes_in * 100 / u->in_size));
	else
		fprintf(stderr, "\r%s: %" PRIu64 "M events, %" PRIu64 " MiB read\033[K", cmd_name,
			st->events_in / 1000000, st->bytes_in >> 20);
	u->line = 1;
}

/* Outputs that are empty or too big without a failure: the conversion
 * succeeds (exit 0), but the user asked for something else. */
static void warn_output(const struct profev_conv_opts *opts, const struct profev_conv_stats *st,
			const struct out *o, const char *input, const char *dir)
{
	const char *in = cmd_display_name(input);
	if (opts->thread && !st->threads_selected)
		cmd_warn("--thread '%s' matched no thread of '%s'", opts->thread, in);
	if (opts->format == PROFEV_CONV_PNG && !st->images) {
		char lost[64] = "";
		if (st->lost_images)
			snprintf(lost, sizeof lost, " (%" PRIu64 " lost in recording)", st->lost_images);
		int window = opts->from_ns || opts->to_ns != UINT64_MAX;
		cmd_warn("no frame images in '%s'%s%s%s%s%s: nothing written to '%s'", in, lost,
			 window ? " within --from/--to" : "", opts->thread ? " of thread '" : "",
			 opts->thread ? opts->thread : "", opts->thread ? "'" : "", dir);
	}
	if (opts->format == PROFEV_CONV_CHROME && o->largest >= CHROME_TRACING_MAX)
		cmd_warn("'%s' has %" PRIu64 " MiB of JSON: chrome://tracing fails near %llu MiB; "
			 "try --split-size 200M, or 'pfconv to perfetto'",
			 strcmp(o->largest_path, "-") ? o->largest_path : "<stdout>", o->largest >> 20,
			 CHROME_TRACING_MAX >> 20);
}

/* "dir/run.bin" -> "dir/run" + ext: the extension of the last path part
 * goes, unless the name is only an extension (".trace"). */
static char *default_output(const char *in, const char *ext)
{
	const char *slash = strrchr(in, '/');
	const char *base = slash ? slash + 1 : in;
	const char *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - in) : strlen(in);
	char *s = malloc(stem + strlen(ext) + 1);
	if (s) {
		memcpy(s, in, stem);
		strcpy(s + stem, ext);
	}
	return s;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Read the base of --diff into m as folded stacks, with the conversion's
 * window and filters. @return EXIT_OK; EXIT_TRACE for a bad or cut base
 * (m holds what was whole; the message said where it stopped), or no
 * memory; EXIT_USAGE for an unreadable one. */
static int read_diff_base(const char *base, const struct profev_conv_opts *o, struct cmd_membuf *m)
{
	FILE *in = cmd_open_input(base);
	if (!in)
		return EXIT_USAGE;
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(in, &err);
	if (!r) {
		cmd_trace_error(base, &err);
		cmd_close_input(in);
		return EXIT_TRACE;
	}
	struct profev_conv_opts bo = *o;
	bo.format = PROFEV_CONV_FOLDED;
	bo.flags &= ~PROFEV_CONV_SVG_EMBED;
	bo.diff_base = NULL;
	bo.title = NULL;
	bo.progress = NULL;
	struct profev_conv_sink sink = { NULL, cmd_membuf_write, NULL, m };
	int rc = EXIT_OK, crc = profev_conv_run(r, &bo, &sink, NULL, &err);
	if (crc == PROFEV_E_IO) {
		cmd_error("'%s': out of memory for its stacks", cmd_display_name(base));
		rc = EXIT_TRACE;
	} else if (crc < 0) {
		cmd_trace_error(base, &err);
		cmd_error("'%s': the base is what was read before that", cmd_display_name(base));
		rc = EXIT_TRACE;
	}
	profev_reader_free(r);
	cmd_close_input(in);
	return rc;
}

/* Parse the options into *opts; operands land in operand[] (to FORMAT TRACE).
 * @return -1 to go on, or the exit code. */
static int parse(int argc, char **argv, struct profev_conv_opts *opts, struct ui *ui,
		 const char **output, const char *operand[3], const char **diff, int *html)
{
	enum { O_FROM = 256, O_TO, O_THREAD, O_SPLIT, O_MERGE, O_SAMPLES, O_GPU, O_BE, O_NOIMG, O_COMPRESS, O_VERSION,
	       O_ALLOC, O_DIFF, O_COMPARE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "from", required_argument, NULL, O_FROM },
		{ "to", required_argument, NULL, O_TO },
		{ "thread", required_argument, NULL, O_THREAD },
		{ "split-size", required_argument, NULL, O_SPLIT },
		{ "merge-threads", no_argument, NULL, O_MERGE },
		{ "samples", no_argument, NULL, O_SAMPLES },
		{ "gpu", no_argument, NULL, O_GPU },
		{ "alloc", optional_argument, NULL, O_ALLOC },
		{ "diff", required_argument, NULL, O_DIFF },
		{ "compare", required_argument, NULL, O_COMPARE },
		{ "begin-end", no_argument, NULL, O_BE },
		{ "no-images", no_argument, NULL, O_NOIMG },
		{ "compress", no_argument, NULL, O_COMPRESS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int c, compare = 0;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': *output = optarg; break;
		case 'q': ui->quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case O_VERSION: cmd_print_version(); return EXIT_OK;
		case O_FROM:
		case O_TO:
			if (cmd_parse_duration(optarg, &v))
				return cmd_usage_error("invalid time '%s' (try 1.5s, 200ms, 30us)", optarg);
			*(c == O_FROM ? &opts->from_ns : &opts->to_ns) = v;
			break;
		case O_THREAD:
			if (!*optarg)
				return cmd_usage_error("--thread needs a name or a TID");
			opts->thread = optarg;
			break;
		case O_SPLIT:
			if (cmd_parse_size(optarg, &v))
				return cmd_usage_error("invalid size '%s' (try 64M, 1G)", optarg);
			if (v < MIN_SPLIT)
				return cmd_usage_error("split size '%s' is below %d bytes", optarg, MIN_SPLIT);
			opts->split_size = v;
			break;
		case O_MERGE: opts->flags |= PROFEV_CONV_MERGE_THREADS; break;
		case O_SAMPLES: opts->flags |= PROFEV_CONV_SAMPLES; break;
		case O_GPU: opts->flags |= PROFEV_CONV_GPU; break;
		case O_ALLOC:
			if (optarg && strcmp(optarg, "live") != 0)
				return cmd_usage_error("--alloc takes 'live' or nothing, not '%s'", optarg);
			opts->flags |= PROFEV_CONV_ALLOC | (optarg ? PROFEV_CONV_LIVE : 0);
			break;
		case O_DIFF:
		case O_COMPARE:
			if (!*optarg)
				return cmd_usage_error("%s needs a base trace", argv[optind - 1]);
			*diff = optarg;
			compare = c == O_COMPARE;
			break;
		case O_BE: opts->flags |= PROFEV_CONV_CHROME_BE; break;
		case O_NOIMG: opts->flags |= PROFEV_CONV_NO_IMAGES; break;
		case O_COMPRESS: opts->flags |= PROFEV_CONV_COMPRESS; break;
		case ':':
			return cmd_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	int n = argc - optind;
	if (n == 0)
		return cmd_usage_error("what to do? 'to perfetto|chrome|folded|svg|png TRACE'");
	/* Each word is checked where it stands, so that a forgotten 'to' is
	 * named as such rather than as a missing trace. */
	const char *action = argv[optind];
	if (strcmp(action, "to") != 0) {
		if (profev_conv_format_from_name(action))
			return cmd_usage_error("unknown action '%s'; did you mean 'pfconv to %s'?", action,
					       action);
		return cmd_usage_error("unknown action '%s' (only 'to')", action);
	}
	if (n == 1)
		return cmd_usage_error("missing output format");
	*html = strcmp(argv[optind + 1], "html") == 0;
	opts->format = *html ? PROFEV_CONV_SVG : profev_conv_format_from_name(argv[optind + 1]);
	if (!opts->format)
		return cmd_usage_error("unknown format '%s' (perfetto, chrome, folded, svg, png or html)",
				       argv[optind + 1]);
	if (n == 2)
		return cmd_usage_error("missing trace");
	if (n > 3)
		return cmd_usage_error("too many arguments: '%s'", argv[optind + 3]);
	for (int i = 0; i < 3; i++)
		operand[i] = argv[optind + i];
	if (opts->from_ns > opts->to_ns)
		return cmd_usage_error("--to comes before --from");
	if (compare && !*html)
		return cmd_usage_error("--compare applies to html output only");
	if (*html && (opts->from_ns || opts->to_ns != UINT64_MAX || opts->thread))
		return cmd_usage_error("--from, --to and --thread do not apply to html output");
	if (*html && (opts->flags & (PROFEV_CONV_SAMPLES | PROFEV_CONV_GPU | PROFEV_CONV_ALLOC)))
		return cmd_usage_error("html output has a graph of each kind the trace holds: "
				       "no --samples, --gpu or --alloc");
	if (*html && strcmp(operand[2], "-") == 0)
		return cmd_usage_error("html output reads the trace several times: give a file, not '-'");
	int flame = opts->format == PROFEV_CONV_FOLDED || opts->format == PROFEV_CONV_SVG;
	if (opts->split_size && (flame || opts->format == PROFEV_CONV_PNG))
		return cmd_usage_error("--split-size does not apply to %s output", operand[1]);
	if ((opts->flags & PROFEV_CONV_NO_IMAGES) && opts->format != PROFEV_CONV_PERFETTO &&
	    opts->format != PROFEV_CONV_CHROME)
		return cmd_usage_error("--no-images applies to perfetto and chrome output only");
	if ((opts->flags & PROFEV_CONV_COMPRESS) && opts->format != PROFEV_CONV_PERFETTO)
		return cmd_usage_error("--compress applies to perfetto output only");
	if ((opts->flags & PROFEV_CONV_MERGE_THREADS) && !flame)
		return cmd_usage_error("--merge-threads applies to folded and svg output only");
	if ((opts->flags & PROFEV_CONV_SAMPLES) && !flame)
		return cmd_usage_error("--samples applies to folded and svg output only");
	if ((opts->flags & PROFEV_CONV_GPU) && !flame)
		return cmd_usage_error("--gpu applies to folded and svg output only");
	if ((opts->flags & PROFEV_CONV_ALLOC) && !flame)
		return cmd_usage_error("--alloc applies to folded and svg output only");
	unsigned kinds = opts->flags & (PROFEV_CONV_SAMPLES | PROFEV_CONV_GPU | PROFEV_CONV_ALLOC);
	if (kinds & (kinds - 1))
		return cmd_usage_error("--samples, --gpu and --alloc cannot go together");
	if (*diff && opts->format != PROFEV_CONV_SVG)
		return cmd_usage_error("--diff applies to svg output only");
	if (*diff && strcmp(*diff, "-") == 0 && strcmp(operand[2], "-") == 0)
		return cmd_usage_error("--diff - and the trace - cannot both be standard input");
	if ((opts->flags & PROFEV_CONV_CHROME_BE) && opts->format != PROFEV_CONV_CHROME)
		return cmd_usage_error("--begin-end applies to chrome output only");
	return -1;
}

int cmd_conv(int argc, char **argv)
{
	struct profev_conv_opts opts;
	struct ui ui = { 0 };
	const char *output = NULL, *output_dir = NULL, *operand[3] = { 0 }, *diff = NULL;
	struct cmd_membuf base = { 0 };
	int base_rc = EXIT_OK;
	profev_conv_opts_init(&opts, 0);
	int html = 0;
	int rc = parse(argc, argv, &opts, &ui, &output, operand, &diff, &html);
	if (rc >= 0)
		return rc;
	const char *input = operand[2];
	const char *ext = html ? ".html" : profev_conv_format_ext(opts.format);

	char *def = NULL;
	if (opts.format == PROFEV_CONV_PNG) {
		if (!output || strcmp(output, "-") == 0)
			return cmd_usage_error("png output needs a directory: -o DIR");
		if (mkdir(output, 0777) < 0 && errno != EEXIST) {
			cmd_error("unable to make the directory '%s': %s", output, strerror(errno));
			return EXIT_USAGE;
		}
		struct stat ds;
		if (stat(output, &ds) < 0 || !S_ISDIR(ds.st_mode))
			return cmd_usage_error("'%s' is not a directory", output);
		opts.image_dir = output_dir = output;
		output = "/dev/null"; /* the sink gets no bytes */
	}
	if (!output) {
		if (strcmp(input, "-") == 0) {
			output = "-";
		} else {
			if (!(def = default_output(input, ext))) {
				cmd_error("out of memory");
				return EXIT_TRACE;
			}
			output = def;
		}
	}
	rc = EXIT_USAGE;
	if (strcmp(output, "-") == 0 && opts.split_size) {
		cmd_usage_error("--split-size needs an output file, not standard output");
		goto out;
	}
	if (strcmp(output, "-") == 0 && opts.format == PROFEV_CONV_PERFETTO && isatty(STDOUT_FILENO)) {
		cmd_usage_error("refusing to write a binary trace to a terminal; use -o FILE");
		goto out;
	}
	if (strcmp(input, "-") != 0 && strcmp(output, "-") != 0 && !opts.split_size &&
	    (strcmp(input, output) == 0 || same_file(input, output))) {
		cmd_usage_error("'%s' would overwrite the trace; use -o", output);
		goto out;
	}

	if (html) {
		rc = cmd_conv_report(&opts, input, output, diff);
		goto out;
	}
	if (diff) {
		opts.flags |= PROFEV_CONV_THREAD_NAMES; /* two runs' TIDs differ */
		opts.warn = on_warn;
		opts.cb_ctx = &ui;
		base_rc = read_diff_base(diff, &opts, &base);
		if (base_rc == EXIT_USAGE) {
			rc = EXIT_USAGE;
			goto out;
		}
		opts.diff_base = base.p ? base.p : "";
		opts.diff_base_len = base.n;
	}

	FILE *in = cmd_open_input(input);
	if (!in) {
		rc = EXIT_USAGE; /* as pfdump: an unreadable file is the caller's */
		goto out;
	}
	struct stat st;
	if (fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode))
		ui.in_size = (uint64_t)st.st_size;
	ui.progress = isatty(STDERR_FILENO);

	struct profev_error err;
	struct profev_reader *r = profev_reader_new(in, &err);
	if (!r) {
		cmd_trace_error(input, &err);
		cmd_close_input(in);
		rc = EXIT_TRACE;
		goto out;
	}

	struct out o = { .path = output, .ext = ext, .split = opts.split_size != 0, .fd = -1 };
	struct profev_conv_sink sink = { out_open, out_write, out_close, &o };
	struct profev_conv_stats stats;
	opts.warn = on_warn;
	opts.progress = on_progress;
	opts.cb_ctx = &ui;
	int crc = profev_conv_run(r, &opts, &sink, &stats, &err);
	clear_line(&ui);
	out_close(&o, 0);

	rc = EXIT_OK;
	if (crc == PROFEV_E_IO && o.err) {
		if (o.err > 0)
			cmd_error("unable to write '%s': %s", o.part_path ? o.part_path : output,
				  strerror(o.err));
		rc = EXIT_TRACE;
	} else if (crc < 0) {
		cmd_trace_error(input, &err);
		if (stats.events_in)
			cmd_error("'%s': stopped after %" PRIu64 " events; those are converted",
				  cmd_display_name(input), stats.events_in);
		rc = EXIT_TRACE;
	}
	if (crc != PROFEV_E_IO && !ui.quiet)
		warn_output(&opts, &stats, &o, input, output_dir);
	if (rc == EXIT_OK)
		rc = base_rc;
	free(o.part_path);
	free(o.largest_path);
	profev_reader_free(r);
	cmd_close_input(in);
out:
	free(def);
	free(base.p);
	return rc;
}
