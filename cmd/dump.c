/* pfdump: show or summarize a trace. */
#include <errno.h>
#include <string.h>
#include <getopt.h>
#include <stdlib.h>
#include "cmd.h"
#include "profev_dump.h"

static const char usage_text[] =
	"usage: pfdump [options] TRACE|-\n"
	"\n"
	"Show a profev trace one event per line, or summarize it.\n"
	"\n"
	"  -j, --jsonl      one JSON object per event (for jq and scripts)\n"
	"  -s, --stats      totals per type and thread, bytes per event, top zones\n"
	"  -l, --leaks      memory still allocated at the end, by callstack\n"
	"  -n, --top N      zones and sampled functions in the --stats tables (default 20)\n"
	"  -h, --help       show this help\n"
	"      --version    show the version\n"
	"\n"
	"Exit status: 0 success, 1 corrupt or cut trace (after showing what was\n"
	"whole), 2 usage error or unreadable file.\n";

int cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{ "jsonl", no_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 's' },
		{ "leaks", no_argument, NULL, 'l' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int jsonl = 0, stats = 0, leaks = 0, opt;
	unsigned top = 20;
	char *end;
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
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case 'V': cmd_print_version(); return EXIT_OK;
		case ':': return cmd_usage_error("option '%s' needs a value", argv[optind - 1]);
		default: return cmd_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(optind == argc ? "no trace given" : "more than one trace given");
	if (jsonl + stats + leaks > 1)
		return cmd_usage_error("choose one of --jsonl, --stats and --leaks");
	const char *path = argv[optind];
	FILE *in = cmd_open_input(path);
	if (!in)
		return EXIT_USAGE;
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(in, &err);
	if (!r) {
		cmd_trace_error(path, &err);
		cmd_close_input(in);
		return err.code == PROFEV_E_IO ? EXIT_USAGE : EXIT_TRACE;
	}
	int rc;
	errno = 0;
	if (stats || leaks) {
		struct profev_stats *s;
		rc = profev_stats_collect(r, &s);
		if (s && stats)
			profev_stats_write(s, r, stdout, top);
		if (s && leaks)
			profev_leaks_write(s, r, stdout);
		profev_stats_free(s);
	} else {
		rc = profev_dump_events(r, stdout, jsonl ? PROFEV_DUMP_JSONL : PROFEV_DUMP_TEXT);
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
	profev_reader_free(r);
	cmd_close_input(in);
	return status;
}
