/* pfdump: show or summarize a trace. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include "cmd.h"
#include "profev_dump.h"

static const char usage_text[] =
	"usage: pfdump [options] TRACE|-\n"
	"       pfdump --compare [options] BASE NEW\n"
	"\n"
	"Show a profev trace one event per line in time order, or summarize it,\n"
	"or compare two traces.\n"
	"\n"
	"  -j, --jsonl      one JSON object per event (for jq and scripts)\n"
	"      --from TIME  list from TIME after the trace's start (1.5s, 200ms)\n"
	"      --to TIME    list until TIME after the trace's start\n"
	"      --thread NAME|TID\n"
	"                   list only this thread's events\n"
	"      --window N   put the events in time order holding at most N events\n"
	"                   (default 1000000) and 64 MiB of texts: an event that\n"
	"                   comes later than that in the file is listed out of\n"
	"                   order, and a warning counts them; 0: file order\n"
	"  -s, --stats      totals per type and thread, bytes per event, top zones,\n"
	"                   frame times per frame set with the longest frames\n"
	"      --frames     every frame: start, number, duration (with --jsonl: JSON)\n"
	"      --color WHEN --stats draws frame times in colour and block characters:\n"
	"                   auto (on a terminal, the default), always or never\n"
	"      --no-color   the same as --color never\n"
	"  -l, --leaks      memory still allocated at the end, by callstack\n"
	"  -n, --top N      zones and sampled functions in the --stats tables (default 20)\n"
	"      --compare BASE NEW\n"
	"                   compare two traces: frame times, zones by name and by call\n"
	"                   site, allocations; each row slower, faster or no\n"
	"                   significant change (with --jsonl: one JSON object per row)\n"
	"      --sort KEY   --compare's row order: change (default), total or name\n"
	"      --threshold PCT\n"
	"                   smallest change --compare flags (default 5%)\n"
	"      --alpha A    --compare's significance level (default 0.05)\n"
	"      --min-count N\n"
	"                   fewer times than N on a side: too rare to test (default 20)\n"
	"      --fail-on-regression\n"
	"                   exit 3 when --compare finds a row slower\n"
	"  -h, --help       show this help\n"
	"      --version    show the version\n"
	"\n"
	"Exit status: 0 success, 1 corrupt or cut trace (after showing what was\n"
	"whole), 2 usage error or unreadable file, 3 --fail-on-regression found a\n"
	"slower row.\n";

/* --color auto: colour on a terminal that is not dumb, unless NO_COLOR
 * (no-color.org) is set; block characters on such a terminal when the
 * locale's characters are UTF-8. */
static void terminal_style(struct profev_stats_style *st)
{
	const char *term = getenv("TERM");
	if (!isatty(STDOUT_FILENO) || !term || !*term || strcmp(term, "dumb") == 0)
		return;
	const char *no_color = getenv("NO_COLOR");
	st->color = !no_color || !*no_color;
	const char *lc = getenv("LC_ALL");
	if (!lc || !*lc)
		lc = getenv("LC_CTYPE");
	if (!lc || !*lc)
		lc = getenv("LANG");
	st->unicode = lc && (strstr(lc, "UTF-8") || strstr(lc, "utf-8") || strstr(lc, "UTF8") || strstr(lc, "utf8"));
}

/* Opens PATH (or - for standard input) and a reader on it: EXIT_OK, or
 * the exit status after saying why (2 unreadable, 1 not a whole trace). */
static int open_trace(const char *path, FILE **in, struct profev_reader **r)
{
	*r = NULL;
	*in = cmd_open_input(path);
	if (!*in)
		return EXIT_USAGE;
	struct profev_error err;
	*r = profev_reader_new(*in, &err);
	if (!*r) {
		cmd_trace_error(path, &err);
		cmd_close_input(*in);
		return err.code == PROFEV_E_IO ? EXIT_USAGE : EXIT_TRACE;
	}
	return EXIT_OK;
}

/* Read one side of --compare; EXIT_OK, or the exit status after saying why. */
static int compare_side(const char *path, struct profev_compare_side **side)
{
	*side = NULL;
	FILE *in;
	struct profev_reader *r;
	int open_status = open_trace(path, &in, &r);
	if (open_status != EXIT_OK)
		return open_status;
	int rc = profev_compare_collect(r, side), status = EXIT_OK;
	if (rc < 0) {
		cmd_trace_error(path, profev_reader_error(r));
		status = EXIT_TRACE;
	}
	profev_reader_free(r);
	cmd_close_input(in);
	return *side ? status : EXIT_TRACE;
}

/* pfdump --compare BASE NEW: a cut trace is compared for what was whole
 * and exits 1; a regression with --fail-on-regression exits 3. */
static int run_compare(const char *base_path, const char *new_path, struct profev_compare_opts *o,
		       int fail_on_regression)
{
	if (strcmp(base_path, "-") == 0 && strcmp(new_path, "-") == 0)
		return cmd_usage_error("only one of BASE and NEW can be '-'");
	struct profev_compare_side *base, *new_;
	int sa = compare_side(base_path, &base);
	if (!base)
		return sa;
	int sb = compare_side(new_path, &new_);
	if (!new_) {
		profev_compare_side_free(base);
		return sb;
	}
	o->base_name = cmd_display_name(base_path);
	o->new_name = cmd_display_name(new_path);
	struct profev_compare_result res;
	errno = 0;
	int rc = profev_compare_write(base, new_, stdout, o, &res);
	int werr = errno;
	if (fflush(stdout) != 0)
		werr = errno;
	profev_compare_side_free(base);
	profev_compare_side_free(new_);
	if (ferror(stdout) || rc == PROFEV_E_IO) {
		cmd_error("unable to write '<stdout>': %s", werr ? strerror(werr) : "write error");
		return EXIT_TRACE;
	}
	if (rc < 0) {
		cmd_error("out of memory");
		return EXIT_TRACE;
	}
	if (sa != EXIT_OK || sb != EXIT_OK)
		return sa != EXIT_OK ? sa : sb;
	return fail_on_regression && res.slower ? EXIT_REGRESSION : EXIT_OK;
}

int cmd_dump(int argc, char **argv)
{
	enum { O_FROM = 256, O_TO, O_THREAD, O_WINDOW, O_FRAMES, O_COLOR, O_NO_COLOR, O_COMPARE, O_SORT,
	       O_THRESHOLD, O_ALPHA, O_MIN_COUNT, O_FAIL };
	static const struct option options[] = {
		{ "from", required_argument, NULL, O_FROM },
		{ "to", required_argument, NULL, O_TO },
		{ "thread", required_argument, NULL, O_THREAD },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "frames", no_argument, NULL, O_FRAMES },
		{ "color", required_argument, NULL, O_COLOR },
		{ "no-color", no_argument, NULL, O_NO_COLOR },
		{ "compare", no_argument, NULL, O_COMPARE },
		{ "sort", required_argument, NULL, O_SORT },
		{ "threshold", required_argument, NULL, O_THRESHOLD },
		{ "alpha", required_argument, NULL, O_ALPHA },
		{ "min-count", required_argument, NULL, O_MIN_COUNT },
		{ "fail-on-regression", no_argument, NULL, O_FAIL },
		{ "jsonl", no_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 's' },
		{ "leaks", no_argument, NULL, 'l' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int jsonl = 0, stats = 0, leaks = 0, frames = 0, listing_only = 0, opt;
	int color = -1; /* -1 auto, 0 never, 1 always */
	unsigned top = 20;
	char *end;
	unsigned long long v;
	struct profev_dump_opts list;
	profev_dump_opts_init(&list, PROFEV_DUMP_TEXT);
	struct profev_compare_opts cmp;
	profev_compare_opts_init(&cmp);
	int compare = 0, compare_only = 0, fail_on_regression = 0;
	double d;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jsln:h", options, NULL)) != -1) {
		switch (opt) {
		case 'j': jsonl = 1; break;
		case 's': stats = 1; break;
		case 'l': leaks = 1; break;
		case 'n':
			top = (unsigned)strtoul(optarg, &end, 10);
			if (*end || !*optarg)
				return cmd_usage_error("--top takes a number, not '%s'", optarg);
			break;
		case O_FROM:
		case O_TO:
			if (cmd_parse_duration(optarg, &v))
				return cmd_usage_error("invalid time '%s' (try 1.5s, 200ms, 30us)", optarg);
			*(opt == O_FROM ? &list.from_ns : &list.to_ns) = v;
			listing_only = opt;
			break;
		case O_THREAD:
			if (!*optarg)
				return cmd_usage_error("--thread needs a name or a TID");
			list.thread = optarg;
			listing_only = opt;
			break;
		case O_WINDOW:
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (*end || !*optarg || *optarg == '-' || errno)
				return cmd_usage_error("--window takes a number of events, not '%s'", optarg);
			list.window = v;
			listing_only = opt;
			break;
		case O_FRAMES: frames = 1; break;
		case O_COLOR:
			if (strcmp(optarg, "auto") == 0)
				color = -1;
			else if (strcmp(optarg, "always") == 0)
				color = 1;
			else if (strcmp(optarg, "never") == 0)
				color = 0;
			else
				return cmd_usage_error("--color takes auto, always or never, not '%s'", optarg);
			break;
		case O_NO_COLOR: color = 0; break;
		case O_COMPARE: compare = 1; break;
		case O_SORT:
			if (strcmp(optarg, "change") == 0)
				cmp.sort = PROFEV_COMPARE_BY_CHANGE;
			else if (strcmp(optarg, "total") == 0)
				cmp.sort = PROFEV_COMPARE_BY_TOTAL;
			else if (strcmp(optarg, "name") == 0)
				cmp.sort = PROFEV_COMPARE_BY_NAME;
			else
				return cmd_usage_error("--sort takes change, total or name, not '%s'", optarg);
			compare_only = opt;
			break;
		case O_THRESHOLD:
			d = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%") != 0) || !(d >= 0 && d < 1000))
				return cmd_usage_error("--threshold takes a percentage (5%%, 0.5), not '%s'", optarg);
			cmp.threshold = d / 100;
			compare_only = opt;
			break;
		case O_ALPHA:
			d = strtod(optarg, &end);
			if (end == optarg || *end || !(d > 0 && d < 1))
				return cmd_usage_error("--alpha takes a number between 0 and 1 (0.05), not '%s'", optarg);
			cmp.alpha = d;
			compare_only = opt;
			break;
		case O_MIN_COUNT:
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (*end || !*optarg || *optarg == '-' || errno || v < 2)
				return cmd_usage_error("--min-count takes a number of times, 2 or more, not '%s'", optarg);
			cmp.min_count = v;
			compare_only = opt;
			break;
		case O_FAIL: fail_on_regression = 1; compare_only = opt; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case 'V': cmd_print_version(); return EXIT_OK;
		case ':': return cmd_usage_error("option '%s' needs a value", argv[optind - 1]);
		default: return cmd_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (compare_only && !compare)
		return cmd_usage_error("--%s applies to --compare",
				       compare_only == O_SORT ? "sort" : compare_only == O_THRESHOLD ? "threshold"
				       : compare_only == O_ALPHA ? "alpha" : compare_only == O_MIN_COUNT ? "min-count"
				       : "fail-on-regression");
	if (compare) {
		if (stats || leaks || frames || listing_only)
			return cmd_usage_error("--compare takes no --stats, --leaks, --frames or listing options");
		if (argc - optind != 2)
			return cmd_usage_error("--compare needs two traces, BASE and NEW");
		cmp.format = jsonl ? PROFEV_DUMP_JSONL : PROFEV_DUMP_TEXT;
		return run_compare(argv[optind], argv[optind + 1], &cmp, fail_on_regression);
	}
	if (optind != argc - 1)
		return cmd_usage_error(optind == argc ? "no trace given" : "more than one trace given");
	if (stats + leaks + frames > 1 || (jsonl && (stats || leaks)))
		return cmd_usage_error("choose one of --jsonl, --stats, --leaks and --frames (--frames may have --jsonl)");
	if (listing_only && (stats || leaks || frames))
		return cmd_usage_error("--%s applies to the event listing, not to --%s",
				       listing_only == O_FROM ? "from" : listing_only == O_TO ? "to"
				       : listing_only == O_THREAD ? "thread" : "window",
				       stats ? "stats" : leaks ? "leaks" : "frames");
	if (list.from_ns > list.to_ns)
		return cmd_usage_error("--to comes before --from");
	const char *path = argv[optind];
	FILE *in;
	struct profev_reader *r;
	int open_status = open_trace(path, &in, &r);
	if (open_status != EXIT_OK)
		return open_status;
	int rc;
	uint64_t late = 0;
	errno = 0;
	if (stats || leaks || frames) {
		struct profev_stats *s;
		rc = profev_stats_collect(r, &s);
		if (s && stats) {
			struct profev_stats_style style = { top, color > 0, color > 0 };
			if (color < 0)
				terminal_style(&style);
			profev_stats_print(s, r, stdout, &style);
		}
		if (s && leaks)
			profev_leaks_write(s, r, stdout);
		if (s && frames) {
			int frc = profev_frames_write(s, r, stdout, jsonl ? PROFEV_DUMP_JSONL : PROFEV_DUMP_TEXT);
			if (frc == PROFEV_E_NOMEM && rc >= 0)
				rc = frc;
		}
		profev_stats_free(s);
	} else {
		struct profev_dump_result res;
		list.format = jsonl ? PROFEV_DUMP_JSONL : PROFEV_DUMP_TEXT;
		rc = profev_dump_list(r, stdout, &list, &res);
		late = res.late;
	}
	int status = EXIT_OK;
	int werr = errno; /* of the write that failed, if one did */
	if (fflush(stdout) != 0)
		werr = errno;
	if (ferror(stdout)) {
		cmd_error("unable to write '<stdout>': %s", werr ? strerror(werr) : "write error");
		status = EXIT_TRACE;
	} else if (rc < 0) {
		const struct profev_error *e = profev_reader_error(r);
		if (rc == PROFEV_E_IO && !e->message[0])
			cmd_error("unable to write '<stdout>'");
		else
			cmd_trace_error(path, e);
		status = EXIT_TRACE;
	}
	if (late && list.window && status == EXIT_OK)
		cmd_warn("'%s': %" PRIu64 " events listed out of time order: they came past the merge "
			 "window of %llu events or 64 MiB (--window)", cmd_display_name(path), late,
			 (unsigned long long)list.window);
	profev_reader_free(r);
	cmd_close_input(in);
	return status;
}
