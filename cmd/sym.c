/* pfsym: symbolize a trace's callstacks offline (lib/sym/rewrite.c does the
 * work). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"
#include "profev_sym.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [--debug-dir DIR]... [--debuginfod URL]... [--offline]\n"
		"       [--debuginfod-max-size SIZE] [--debuginfod-max-time SECONDS] [-o OUT|-] [-q] TRACE|-\n"
		"\n"
		"Adds function, file and line (with inline chains) for every callstack\n"
		"address of TRACE. Without -o a trace file is rewritten in place and\n"
		"standard input goes to standard output.\n"
		"\n"
		"  -d, --debug-dir DIR   look for debug files in DIR (DIR/.build-id/xx/rest.debug,\n"
		"                        DIR/<debuglink name>, split DWARF's DIR/<module>.dwp and\n"
		"                        .dwo files); repeatable, searched in order\n"
		"      --debuginfod URL  fetch debug files not found here from this debuginfod\n"
		"                        server, by build-id; repeatable (default: the servers\n"
		"                        of $DEBUGINFOD_URLS; none: no fetching)\n"
		"      --offline         ask no debuginfod server (files already in the\n"
		"                        debuginfod cache are still used)\n"
		"      --debuginfod-max-size SIZE  largest debug file to download, in bytes or\n"
		"                        with K, M, G (default $DEBUGINFOD_MAXSIZE, else 1G)\n"
		"      --debuginfod-max-time SECONDS  longest one download may take (default\n"
		"                        $DEBUGINFOD_MAXTIME, else 120); all downloads of a run\n"
		"                        take at most twice that\n"
		"  -o, --output OUT      write the symbolized trace to OUT ('-': standard output)\n"
		"  -q, --quiet           do not print the per-module report\n"
		"  -h, --help            show this help\n"
		"      --version         show the version\n"
		"\n"
		"Environment: DEBUGINFOD_URLS (servers, space-separated), DEBUGINFOD_CACHE_PATH\n"
		"(default ~/.cache/debuginfod_client, shared with gdb and perf),\n"
		"DEBUGINFOD_TIMEOUT (seconds without progress before a server is given up, 90),\n"
		"DEBUGINFOD_MAXSIZE and DEBUGINFOD_MAXTIME (as the options).\n",
		cmd_name);
}

static void print_report(const struct profev_symtrace_report *rep)
{
	for (unsigned i = 0; i < rep->nmodules; i++) {
		const struct profev_symtrace_module *m = &rep->modules[i];
		for (unsigned j = 0; j < m->nwarnings; j++)
			cmd_warn("%s", m->warnings[j]);
		if (!m->addresses)
			continue;
		char kept[64] = "";
		if (m->kept)
			snprintf(kept, sizeof(kept), ", %llu already symbolized",
				 (unsigned long long)m->kept);
		char from[1100] = "";
		if (m->debuginfod == 1)
			snprintf(from, sizeof(from), ", downloaded from %s", m->server);
		else if (m->debuginfod == 2)
			snprintf(from, sizeof(from), ", from the debuginfod cache");
		if (m->debug_file)
			fprintf(stderr, "%s: '%s': %llu resolved, %llu unresolved%s, using '%s'%s%s%s%s\n",
				cmd_name, m->path, (unsigned long long)m->resolved,
				(unsigned long long)m->unresolved, kept, m->debug_file,
				m->sup_file ? " with '" : "", m->sup_file ? m->sup_file : "",
				m->sup_file ? "'" : "", from);
		else if (m->resolved + m->unresolved)
			fprintf(stderr, "%s: '%s': no debug info found, %llu unresolved%s\n",
				cmd_name, m->path, (unsigned long long)m->unresolved, kept);
		else
			fprintf(stderr, "%s: '%s': all %llu addresses already symbolized\n",
				cmd_name, m->path, (unsigned long long)m->kept);
	}
	if (rep->nomodule_frames)
		fprintf(stderr, "%s: %llu frames outside every module left as addresses\n",
			cmd_name, (unsigned long long)rep->nomodule_frames);
}

/* Downloads on a terminal: one line, rewritten in place. */
static void show_progress(void *ctx, const struct profev_debuginfod_progress *p)
{
	int *shown = ctx;
	if (p->finished) {
		if (*shown)
			fputs("\r\033[K", stderr);
		*shown = 0;
		return;
	}
	char done[32], total[32] = "";
	snprintf(done, sizeof(done), "%.1f KiB", p->done / 1024.0);
	if (p->total)
		snprintf(total, sizeof(total), " of %.1f KiB", p->total / 1024.0);
	if (p->server)
		fprintf(stderr, "\r\033[K%s: downloading debug info for '%s' from %s: %s%s", cmd_name,
			p->module, p->server, done, total);
	else
		fprintf(stderr, "\r\033[K%s: asking debuginfod for '%s' (build-id %s)", cmd_name,
			p->module, p->build_id);
	*shown = 1;
}

/*
 * The file that replaces a trace in place gets the trace's owner and mode
 * (mkstemp() makes it 0600, the caller's): owner first, since a change of
 * owner clears the set-id bits. Only root may give a file away, others
 * may give it a group they belong to; what cannot be kept is warned about.
 */
static void keep_owner_and_mode(int out, int in, const char *input)
{
	struct stat st, now;
	if (fstat(in, &st) != 0 || fstat(out, &now) != 0)
		return;
	if ((st.st_uid != now.st_uid || st.st_gid != now.st_gid) &&
	    fchown(out, st.st_uid, st.st_gid) != 0) {
		int e = errno;
		int group = st.st_gid == now.st_gid || fchown(out, (uid_t)-1, st.st_gid) == 0;
		if (st.st_uid != now.st_uid || !group)
			cmd_warn("'%s': its %s not kept (%s)", input,
				 !group && st.st_uid != now.st_uid ? "owner and group are"
				 : group ? "owner is" : "group is", strerror(e));
	}
	if (fchmod(out, st.st_mode & 07777) != 0)
		cmd_warn("'%s': its mode %04o is not kept: %s", input, (unsigned)(st.st_mode & 07777),
			 strerror(errno));
}

/*
 * SIGINT or SIGTERM: a download under way stops within a second (the
 * library sees stop_signal; libdebuginfod then removes its partial file
 * from the cache), the output's temporary file is removed and the signal
 * taken, as soon as the run ends or two seconds later, whichever is first.
 */
static volatile sig_atomic_t stop_signal;
static char stop_tmp[PATH_MAX];   /* set before the handlers are */

static void on_stop(int sig)
{
	if (!stop_signal)
		alarm(2);
	stop_signal = sig;
}

static void on_stop_late(int sig)
{
	(void)sig;
	if (stop_tmp[0])
		unlink(stop_tmp);
	signal(stop_signal, SIG_DFL);
	raise(stop_signal);
}

int cmd_sym(int argc, char **argv)
{
	enum { OPT_VERSION = 256, OPT_DEBUGINFOD, OPT_OFFLINE, OPT_MAX_SIZE, OPT_MAX_TIME };
	static const struct option longopts[] = {
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "debuginfod-max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "debuginfod-max-time", required_argument, NULL, OPT_MAX_TIME },
		{ NULL, 0, NULL, 0 },
	};
	const char **dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	const char **urls = calloc((size_t)argc + 1, sizeof(*urls));
	unsigned ndirs = 0, nurls = 0;
	const char *output = NULL;
	int quiet = 0, offline = 0, c;
	unsigned long long max_size = 0, max_time = 0;
	if (!dirs || !urls) {
		free(dirs);
		free(urls);
		cmd_error("out of memory");
		return EXIT_TRACE;
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":d:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dirs[ndirs++] = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_DEBUGINFOD:
			if (!optarg[0])
				return free(dirs), free(urls), cmd_usage_error("--debuginfod needs a URL");
			urls[nurls++] = optarg;
			break;
		case OPT_OFFLINE:
			offline = 1;
			break;
		case OPT_MAX_SIZE:
			if (cmd_parse_size(optarg, &max_size) || max_size == 0)
				return free(dirs), free(urls),
				       cmd_usage_error("--debuginfod-max-size: '%s' is not a size (bytes, or with K, M, G)", optarg);
			break;
		case OPT_MAX_TIME: {
			char *end;
			errno = 0;
			max_time = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || max_time == 0 || max_time > 1u << 30)
				return free(dirs), free(urls),
				       cmd_usage_error("--debuginfod-max-time: '%s' is not a whole number of seconds", optarg);
			break;
		}
		case 'h':
			usage(stdout);
			free(dirs);
			free(urls);
			return EXIT_OK;
		case OPT_VERSION:
			cmd_print_version();
			free(dirs);
			free(urls);
			return EXIT_OK;
		case ':':
			free(dirs);
			free(urls);
			return cmd_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			free(dirs);
			free(urls);
			return cmd_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		free(dirs);
		free(urls);
		return cmd_usage_error(optind == argc ? "no trace given" : "more than one trace given");
	}
	const char *input = argv[optind];
	int in_place = !output && strcmp(input, "-") != 0;
	if (!output)
		output = "-";
	if (!in_place && strcmp(output, "-") == 0 && isatty(STDOUT_FILENO)) {
		free(dirs);
		free(urls);
		return cmd_usage_error("refusing to write a binary trace to a terminal; use -o");
	}

	FILE *in = cmd_open_input(input);
	if (!in) {
		free(dirs);
		free(urls);
		return EXIT_USAGE; /* as pfdump and pfconv: an unreadable file is the caller's */
	}
	/* A file (the trace in place, or OUT) is written beside itself and
	 * renamed over it once complete: a run that fails or is stopped
	 * leaves no empty or partial file, and an existing one as it was.
	 * Other outputs (standard output, a device, a pipe) are written. */
	char tmp[PATH_MAX];
	struct stat st;
	int had_output = !in_place && strcmp(output, "-") != 0 && stat(output, &st) == 0;
	int replace = in_place || (strcmp(output, "-") != 0 && (!had_output || S_ISREG(st.st_mode)));
	const char *target = in_place ? input : output;
	int out;
	if (replace) {
		snprintf(tmp, sizeof(tmp), "%s.pfsym-XXXXXX", target);
		out = mkstemp(tmp);
		if (out < 0) {
			cmd_error("unable to create '%s': %s", in_place ? tmp : output, strerror(errno));
		} else if (in_place) {
			keep_owner_and_mode(out, fileno(in), input);
		} else if (had_output) {
			int fd = open(output, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				keep_owner_and_mode(out, fd, output);
				close(fd);
			}
		} else {
			mode_t mask = umask(0);
			umask(mask);
			fchmod(out, 0644 & ~mask);   /* as open() would make it */
		}
	} else {
		out = cmd_open_output(output);
	}
	if (out < 0) {
		cmd_close_input(in);
		free(dirs);
		free(urls);
		return EXIT_TRACE;
	}

	struct profev_symtrace_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.debuginfo.debug_dirs = dirs;
	opts.debuginfo.ndebug_dirs = ndirs;
	opts.debuginfod.urls = urls;
	opts.debuginfod.nurls = nurls;
	opts.debuginfod.offline = offline;
	opts.debuginfod.max_size = max_size;
	opts.debuginfod.max_time = (unsigned)max_time;
	opts.debuginfod.stop = &stop_signal;
	if (replace)
		snprintf(stop_tmp, sizeof(stop_tmp), "%s", tmp);
	struct sigaction sa, old_int, old_term, old_alrm;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop_late;
	sigaction(SIGALRM, &sa, &old_alrm);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	int shown = 0;
	if (!quiet && isatty(STDERR_FILENO)) {
		opts.debuginfod.progress = show_progress;
		opts.debuginfod.progress_ctx = &shown;
	}
	struct profev_symtrace_report *rep = NULL;
	struct profev_error err;
	int rc = profev_symtrace(in, out, &opts, &rep, &err);
	if (rep && !quiet)
		print_report(rep);
	profev_symtrace_report_free(rep);
	if (rc < 0) {
		if (strncmp(err.message, "output: ", 8) == 0)
			cmd_error("'%s': %s", in_place ? tmp : cmd_display_name(output), err.message + 8);
		else
			cmd_trace_error(input, &err);
	}
	if (out != STDOUT_FILENO && close(out) != 0 && rc >= 0) {
		cmd_error("unable to write '%s': %s", in_place ? tmp : output, strerror(errno));
		rc = -1;
	}
	if (replace) {
		if (rc >= 0 && !stop_signal && rename(tmp, target) != 0) {
			cmd_error("unable to replace '%s': %s", target, strerror(errno));
			rc = -1;
		}
		if (rc < 0 || stop_signal) {
			unlink(tmp);
			if (in_place || had_output)
				cmd_error("'%s' is left as it was", target);
		}
	}
	cmd_close_input(in);
	free(dirs);
	free(urls);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (!stop_signal)
		sigaction(SIGALRM, &old_alrm, NULL);
	if (stop_signal) {
		alarm(0);
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return rc < 0 ? EXIT_TRACE : EXIT_OK;
}
