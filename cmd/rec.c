/* pfrec: run a program instrumented with <profev.h> and record its trace.
 * The work is in lib/rec/; this file parses options, passes signals on
 * and prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <libgen.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"
#include "profev_record.h"

static struct profev_recorder *recorder;
static int progress_shown;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pfrec [-o FILE|-] [--categories LIST] [--drop] [--zstd-level N]\n"
		"             [--buffer SIZE] [--pipe] [-q]\n"
		"             [--sample[=HZ]] [--sched] [--sample-buffer SIZE] [--sample-stack SIZE]\n"
		"             [--sample-fp-chain] [--duration TIME] [--max-size SIZE] [--kill-at-end]\n"
		"             [--ring TIME|SIZE [--after TIME] [--min-interval TIME] [--ring-discard-at-exit]]\n"
		"             [--] PROGRAM [ARGS...]\n"
		"       pfrec --attach PID [-o FILE|-] [--zstd-level N] [--duration TIME]\n"
		"             [--max-size SIZE] [--ring TIME|SIZE ...] [-q]\n"
		"       pfrec --snapshot PID\n"
		"       pfrec --list\n\n"
		"Run PROGRAM, which links the profev client, and record its trace. With\n"
		"--sample or --sched any program can be recorded, client or not.\n"
		"--attach records a running program that listens (PROFEV_ON_DEMAND=1 or\n"
		"profev_listen()) until Ctrl-C or its exit, then detaches; it runs on.\n\n"
		"  -o, --output FILE      write the trace to FILE, '-' for stdout (default trace.bin);\n"
		"                         an existing FILE is replaced once PROGRAM has started\n"
		"      --categories LIST  enable or disable categories: 'render,-audio'\n"
		"      --drop             drop events rather than slow the program down\n"
		"      --zstd-level N     trace compression level (default 1)\n"
		"      --buffer SIZE      per-thread client buffer (default 1M)\n"
		"      --pipe             send the events through the pipe, not shared memory\n"
		"      --sample[=HZ]      cpu-clock samples with callstacks of every thread,\n"
		"                         HZ per second of CPU time (default 1000)\n"
		"      --sched            context switches: off CPU and back, preempted or blocked\n"
		"      --sample-buffer SIZE  kernel ring per CPU for both (default 1M)\n"
		"      --sample-stack SIZE   user stack copied per sample and unwound with the\n"
		"                         modules' .eh_frame (default 8K, at most 65000);\n"
		"                         0 walks frame pointers only\n"
		"      --sample-fp-chain  with stack copies, the kernel's frame-pointer chain\n"
		"                         too: for stacks deeper than the copy and code\n"
		"                         without unwind tables (about 1 us more per sample)\n"
		"      --duration TIME    stop recording after TIME ('10s', '2min'); the trace is\n"
		"                         finished there and PROGRAM runs on unrecorded\n"
		"      --max-size SIZE    stop recording once the trace has SIZE bytes ('1G')\n"
		"      --kill-at-end      when a limit stops the recording, end PROGRAM (SIGTERM)\n"
		"      --ring TIME|SIZE   flight recorder: keep the newest TIME ('30s') or SIZE\n"
		"                         ('256M') of the trace in memory and write nothing until a\n"
		"                         trigger (SIGUSR1, pfrec --snapshot, the program's\n"
		"                         PROFEV_TRIGGER, pfrec's end), then a\n"
		"                         snapshot FILE-001.bin, FILE-002.bin... (FILE: -o less .bin)\n"
		"      --after TIME       keep recording TIME past a trigger before the snapshot\n"
		"      --min-interval TIME  at most one snapshot per TIME (default 10s): a later\n"
		"                         trigger joins the one that waits, or writes none\n"
		"      --ring-discard-at-exit  no snapshot at pfrec's end\n"
		"      --snapshot PID     ask the pfrec --ring of that pid for a snapshot\n"
		"      --attach PID       record the running program PID (same user or root);\n"
		"                         events it makes faster than pfrec reads are dropped\n"
		"      --list             list the programs that --attach can record\n"
		"  -q, --quiet            no progress line\n"
		"  -h, --help             show this help\n"
		"      --version          show the version\n\n"
		"pfrec exits with the program's status (128+N if signal N killed it),\n"
		"127 or 126 if it could not be started, 1 if the trace could not be\n"
		"written, 2 on a usage error. With --attach: 0, or 1 if the program\n"
		"could not be attached to or the trace could not be written.\n");
}

/* Signals from the terminal reach the program's process group already;
 * ones sent to pfrec alone (kill, a supervisor) are passed on. */
static int attaching;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* Attached, Ctrl-C ends the recording and the program runs on. */
	if (si->si_code != SI_KERNEL || attaching)
		profev_recorder_signal(recorder, sig);
}

static void pass_signals_on(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	static const int pass_on[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	for (size_t i = 0; i < sizeof pass_on / sizeof pass_on[0]; i++)
		sigaction(pass_on[i], &sa, NULL);
}

/* --list: pid, user, name of each program that listens. */
static int list_attachable(void)
{
	struct profev_attachable *v;
	struct profev_error err = { 0 };
	long n = profev_attachable(&v, &err);
	if (n < 0) {
		cmd_error("%s", err.message);
		return EXIT_TRACE;
	}
	printf("%8s %-12s %s\n", "PID", "USER", "NAME");
	for (long i = 0; i < n; i++) {
		struct passwd *pw = getpwuid(v[i].uid);
		char uid[16];
		snprintf(uid, sizeof uid, "%u", v[i].uid);
		printf("%8d %-12s %s\n", v[i].pid, pw ? pw->pw_name : uid, v[i].name);
	}
	free(v);
	return EXIT_OK;
}

static void clear_progress(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = 0;
	}
}

static void on_progress(void *ctx, const struct profev_record_stats *s)
{
	(void)ctx;
	double secs = (double)s->elapsed_ns / 1e9;
	fprintf(stderr, "\r%s: %llu events, %.1f MiB written, %.2fM events/s, %u threads\033[K",
		cmd_name, (unsigned long long)s->events, (double)s->bytes / (1 << 20),
		secs > 0 ? (double)s->events / secs / 1e6 : 0.0, s->threads);
	progress_shown = 1;
}

/* "'a', 'b'" from "a,b" */
static void warn_unmatched(const char *list, const char *program)
{
	char names[512];
	size_t at = 0;
	for (const char *s = list; *s && at + 8 < sizeof names;) {
		size_t n = strcspn(s, ",");
		int k = snprintf(names + at, sizeof names - at, "%s'%.*s'", at ? ", " : "", (int)n, s);
		at += k > 0 ? (size_t)k : 0;
		s += n + (s[n] == ',');
	}
	if (at >= sizeof names)
		at = sizeof names - 1;
	names[at] = 0;
	cmd_warn("--categories: %s matched no category that '%s' used", names, program);
}

static const char *trace_name;

/* A limit stopped the recording: one line says so, and what comes next. */
static void on_stopped(void *ctx, int why, const struct profev_record_stats *s)
{
	const struct profev_record_opts *o = ctx;
	clear_progress();
	char size[32];
	snprintf(size, sizeof size, "%.1f MiB", (double)s->bytes / (1 << 20));
	fprintf(stderr, "%s: stopped recording after %.1f s (%s): '%s' is complete, %llu events, %s; %s\n",
		cmd_name, (double)s->elapsed_ns / 1e9, why == PROFEV_STOP_DURATION ? "--duration" : "--max-size",
		trace_name, (unsigned long long)s->events, size,
		o->kill_at_end ? "ending the program (--kill-at-end)" : "the program runs on unrecorded");
}

static void on_snapshot(void *ctx, const char *path)
{
	(void)ctx;
	clear_progress();
	fprintf(stderr, "%s: snapshot '%s' written\n", cmd_name, path);
}

/* SIGUSR1: a snapshot, written by the recording loop. */
static void on_usr1(int sig)
{
	(void)sig;
	profev_recorder_snapshot(recorder);
}

/* pfrec --snapshot PID: SIGUSR1 to a pfrec, after checking it is one. */
static int snapshot_of(const char *arg)
{
	char *end;
	long pid = strtol(arg, &end, 10);
	if (*end || end == arg || pid <= 0)
		return cmd_usage_error("invalid pid '%s'", arg);
	char path[64], cmdline[256] = "";
	snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(cmdline, 1, sizeof cmdline - 1, f) : 0;
	if (f)
		fclose(f);
	cmdline[n] = 0;
	const char *base = strrchr(cmdline, '/');
	base = base ? base + 1 : cmdline;
	if (!f) {
		cmd_error("no process %ld", pid);
		return EXIT_TRACE;
	}
	if (strcmp(base, "pfrec") != 0 && strcmp(base, "profev") != 0) {
		cmd_error("process %ld is '%s', not pfrec", pid, base);
		return EXIT_TRACE;
	}
	if (kill((pid_t)pid, SIGUSR1) < 0) {
		cmd_error("unable to signal process %ld: %s", pid, strerror(errno));
		return EXIT_TRACE;
	}
	return EXIT_OK;
}

static void on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	clear_progress();
	cmd_warn("%s", msg);
}

/*
 * The trace's file. An existing regular file is replaced only by a run
 * whose program started: the new trace is written beside it under a
 * temporary name (*tmp, to free) and renamed over it once the program has
 * started, so that "command not found" leaves the last trace alone. Where
 * no temporary file can be made beside it, the file is truncated as before.
 */
static int open_trace(const char *path, char **tmp)
{
	struct stat st;
	*tmp = NULL;
	if (strcmp(path, "-") == 0 || lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return cmd_open_output(path);
	char *d = strdup(path), *b = strdup(path);
	size_t n = strlen(path) + 32;
	char *t = malloc(n);
	int fd = -1;
	if (d && b && t) {
		snprintf(t, n, "%s/.%s.pfrec-XXXXXX", dirname(d), basename(b));
		fd = mkostemp(t, O_CLOEXEC);
	}
	free(d);
	free(b);
	if (fd < 0) {
		free(t);
		return cmd_open_output(path);
	}
	fchmod(fd, st.st_mode & 07777); /* what truncating it would have kept */
	*tmp = t;
	return fd;
}

/* pfrec --ring: nothing is written until a trigger. */
static int record_ring(struct profev_record_opts *o, const char *output, int quiet)
{
	size_t n = strlen(output);
	char *base = strdup(output);
	if (!base)
		return EXIT_TRACE;
	if (n > 4 && strcmp(base + n - 4, ".bin") == 0)
		base[n - 4] = 0;
	o->snapshot_base = base;
	o->out_fd = -1;
	o->warn = on_warn;
	o->snapshot = on_snapshot;
	o->stopped = NULL;
	o->ctx = o;
	if (!quiet && isatty(STDERR_FILENO)) {
		o->progress = on_progress;
		o->progress_ns = 250000000;
	}
	struct profev_error err = { 0 };
	recorder = profev_recorder_start(o, &err);
	if (!recorder) {
		cmd_error("%s", err.message[0] ? err.message : profev_strerror(err.code));
		free(base);
		return EXIT_TRACE;
	}
	pass_signals_on();
	struct sigaction su;
	memset(&su, 0, sizeof su);
	su.sa_handler = on_usr1;
	su.sa_flags = SA_RESTART;
	sigemptyset(&su.sa_mask);
	sigaction(SIGUSR1, &su, NULL);

	struct profev_record_result res;
	int rc = profev_recorder_run(recorder, &res);
	clear_progress();
	int status = res.status;
	if (res.exit_kind == PROFEV_EXIT_NOSTART && o->argv)
		cmd_error("unable to start '%s': %s", o->argv[0],
			  res.exit_code == ENOENT ? "command not found" : strerror(res.exit_code));
	if (rc < 0) {
		cmd_error("%s", profev_recorder_error(recorder)->message);
		status = EXIT_TRACE;
	} else if (o->attach_pid) {
		fprintf(stderr, "%s: %s\n", cmd_name,
			res.detached ? "detached, the program runs on" : "the program ended");
	}
	profev_recorder_free(recorder);
	recorder = NULL;
	free(base);
	return status;
}

int cmd_rec(int argc, char **argv)
{
	enum { OPT_CATEGORIES = 256, OPT_DROP, OPT_ZSTD, OPT_BUFFER, OPT_PIPE, OPT_VERSION,
	       OPT_SAMPLE, OPT_SCHED, OPT_SAMPLE_BUFFER, OPT_SAMPLE_STACK, OPT_SAMPLE_FP_CHAIN,
	       OPT_DURATION, OPT_MAX_SIZE, OPT_KILL_AT_END, OPT_RING, OPT_AFTER, OPT_MIN_INTERVAL,
	       OPT_RING_DISCARD, OPT_SNAPSHOT, OPT_ATTACH, OPT_LIST };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "categories", required_argument, NULL, OPT_CATEGORIES },
		{ "drop", no_argument, NULL, OPT_DROP },
		{ "zstd-level", required_argument, NULL, OPT_ZSTD },
		{ "buffer", required_argument, NULL, OPT_BUFFER },
		{ "pipe", no_argument, NULL, OPT_PIPE },
		{ "sample", optional_argument, NULL, OPT_SAMPLE },
		{ "sched", no_argument, NULL, OPT_SCHED },
		{ "sample-buffer", required_argument, NULL, OPT_SAMPLE_BUFFER },
		{ "sample-stack", required_argument, NULL, OPT_SAMPLE_STACK },
		{ "sample-fp-chain", no_argument, NULL, OPT_SAMPLE_FP_CHAIN },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "kill-at-end", no_argument, NULL, OPT_KILL_AT_END },
		{ "ring", required_argument, NULL, OPT_RING },
		{ "after", required_argument, NULL, OPT_AFTER },
		{ "min-interval", required_argument, NULL, OPT_MIN_INTERVAL },
		{ "ring-discard-at-exit", no_argument, NULL, OPT_RING_DISCARD },
		{ "snapshot", required_argument, NULL, OPT_SNAPSHOT },
		{ "attach", required_argument, NULL, OPT_ATTACH },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct profev_record_opts o = { 0 };
	o.sample_stack_bytes = 8192;
	const char *output = "trace.bin";
	int quiet = 0, c, min_interval_set = 0, list = 0, not_attached = 0;
	o.child_stdout = -1;

	opterr = 0;
	optind = 1;
	/* '+': options end at PROGRAM, whose own options stay its own. */
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_CATEGORIES:
			o.categories = optarg;
			break;
		case OPT_DROP:
			o.drop = 1;
			break;
		case OPT_ZSTD: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < -7 || v > 22)
				return cmd_usage_error("invalid zstd level '%s' (-7..22)", optarg);
			o.zstd_level = (int)v;
			break;
		}
		case OPT_BUFFER: {
			unsigned long long b;
			if (cmd_parse_size(optarg, &b) < 0 || b < (16u << 10) || b > (64u << 20))
				return cmd_usage_error("invalid buffer size '%s' (16K..64M)", optarg);
			o.buffer_bytes = (uint32_t)b;
			break;
		}
		case OPT_PIPE:
			o.pipe_only = 1;
			break;
		case OPT_SAMPLE: {
			o.sample_hz = 1000;
			if (optarg) {
				char *end;
				long v = strtol(optarg, &end, 10);
				if (*end || end == optarg || v < 1 || v > 100000)
					return cmd_usage_error("invalid sampling frequency '%s' (1..100000)",
							       optarg);
				o.sample_hz = (unsigned)v;
			}
			break;
		}
		case OPT_SCHED:
			o.sched = 1;
			break;
		case OPT_SAMPLE_BUFFER: {
			unsigned long long b;
			if (cmd_parse_size(optarg, &b) < 0 || b < (8u << 10) || b > (256u << 20) ||
			    (b & (b - 1)))
				return cmd_usage_error("invalid sample buffer '%s' (a power of two, 8K..256M)",
						       optarg);
			o.sample_ring_bytes = (uint32_t)b;
			break;
		}
		case OPT_SAMPLE_STACK: {
			unsigned long long b = 0;
			if (strcmp(optarg, "0") != 0 &&
			    (cmd_parse_size(optarg, &b) < 0 || b > 65000 || (b & 7)))
				return cmd_usage_error("invalid sample stack size '%s' (0..65000, a multiple of 8)",
						       optarg);
			o.sample_stack_bytes = strcmp(optarg, "0") ? (uint32_t)b : 0;
			break;
		}
		case OPT_SAMPLE_FP_CHAIN:
			o.sample_fp_chain = 1;
			break;
		case OPT_DURATION: {
			unsigned long long ns;
			if (cmd_parse_duration(optarg, &ns) < 0 || ns == 0)
				return cmd_usage_error("invalid duration '%s' (a time above 0: '10s', '500ms')",
						       optarg);
			o.duration_ns = ns;
			break;
		}
		case OPT_MAX_SIZE: {
			unsigned long long b;
			if (cmd_parse_size(optarg, &b) < 0 || b < 4096)
				return cmd_usage_error("invalid size '%s' (4K or more: '64M', '1G')", optarg);
			o.max_bytes = b;
			break;
		}
		case OPT_KILL_AT_END:
			o.kill_at_end = 1;
			break;
		case OPT_RING: {
			unsigned long long v;
			if (cmd_parse_duration(optarg, &v) == 0 && v > 0 && strpbrk(optarg, "sunm"))
				o.ring_ns = v;
			else if (cmd_parse_size(optarg, &v) == 0 && v >= (64u << 10))
				o.ring_bytes = v;
			else
				return cmd_usage_error("invalid ring '%s' (a time: '30s', or a size of 64K or more: '256M')",
						       optarg);
			break;
		}
		case OPT_AFTER:
		case OPT_MIN_INTERVAL: {
			unsigned long long ns;
			if (cmd_parse_duration(optarg, &ns) < 0)
				return cmd_usage_error("invalid time '%s' ('5s', '500ms')", optarg);
			if (c == OPT_AFTER)
				o.after_ns = ns;
			else
				o.min_interval_ns = ns, min_interval_set = 1;
			break;
		}
		case OPT_RING_DISCARD:
			o.ring_discard_at_exit = 1;
			break;
		case OPT_SNAPSHOT:
			return snapshot_of(optarg);
		case OPT_ATTACH: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 0x3fffffff)
				return cmd_usage_error("invalid process id '%s'", optarg);
			o.attach_pid = (int)v;
			break;
		}
		case OPT_LIST:
			list = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case OPT_VERSION:
			cmd_print_version();
			return EXIT_OK;
		default:
			if (optopt && optopt < 256)
				return cmd_usage_error("unknown option '-%c'", optopt);
			return cmd_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	/* What only a started program takes. */
	not_attached = o.categories || o.buffer_bytes || o.pipe_only || o.sample_hz ||
		       o.sched || o.sample_ring_bytes || o.sample_fp_chain || o.kill_at_end;
	if (list) {
		if (o.attach_pid || optind < argc)
			return cmd_usage_error("--list takes no other option or program");
		return list_attachable();
	}
	if (o.attach_pid && optind < argc)
		return cmd_usage_error("--attach records a running program: no PROGRAM to start");
	if (o.attach_pid && not_attached)
		return cmd_usage_error("--attach takes only -o, --zstd-level, --drop, --duration, "
				       "--max-size, the --ring options and -q");
	if (!o.attach_pid && optind >= argc)
		return cmd_usage_error("no program to record");
	o.argv = o.attach_pid ? NULL : argv + optind;
	int ring = o.ring_ns || o.ring_bytes;
	attaching = o.attach_pid != 0;
	if (!ring && (o.after_ns || min_interval_set || o.ring_discard_at_exit))
		return cmd_usage_error("--after, --min-interval and --ring-discard-at-exit need --ring");
	if (ring) {
		if (!min_interval_set)
			o.min_interval_ns = 10000000000ull;
		if (o.max_bytes && (!o.ring_bytes || o.max_bytes < o.ring_bytes))
			o.ring_bytes = o.max_bytes; /* --max-size caps the ring */
		o.max_bytes = 0;
		if (strcmp(output, "-") == 0)
			return cmd_usage_error("--ring writes snapshot files: -o FILE, not '-'");
		return record_ring(&o, output, quiet);
	}
	char what[32];
	snprintf(what, sizeof what, "process %d", o.attach_pid);
	const char *program = o.attach_pid ? what : o.argv[0];
	attaching = o.attach_pid != 0;

	int to_stdout = strcmp(output, "-") == 0;
	if (to_stdout && isatty(STDOUT_FILENO)) {
		cmd_error("refusing to write a binary trace to a terminal; use -o FILE");
		return EXIT_USAGE;
	}
	char *tmp, *kept = NULL;
	int fd = open_trace(output, &tmp);
	if (fd < 0)
		return EXIT_TRACE;
	const char *shown = to_stdout ? "<stdout>" : output;
	/* The trace owns stdout: the program's output goes to stderr. */
	if (to_stdout)
		o.child_stdout = STDERR_FILENO;
	o.out_fd = fd;
	o.warn = on_warn;
	o.stopped = on_stopped;
	o.ctx = &o;
	if (o.kill_at_end && !o.duration_ns && !o.max_bytes)
		return cmd_usage_error("--kill-at-end needs --duration or --max-size");
	if (!quiet && isatty(STDERR_FILENO)) {
		o.progress = on_progress;
		o.progress_ns = 250000000;
	}

	struct profev_error err = { 0 };
	recorder = profev_recorder_start(&o, &err);
	if (!recorder) {
		if (attaching)
			cmd_error("%s", err.message[0] ? err.message : profev_strerror(err.code));
		else
			cmd_error("'%s': %s", shown,
				  err.message[0] ? err.message : profev_strerror(err.code));
		if (!to_stdout)
			close(fd);
		if (tmp)
			unlink(tmp);
		free(tmp);
		return EXIT_TRACE;
	}
	trace_name = shown;
	if (tmp && profev_recorder_pid(recorder) > 0) {
		if (rename(tmp, output) < 0) {
			cmd_warn("unable to replace '%s' (%s); the trace goes to '%s'", output,
				 strerror(errno), tmp);
			shown = tmp;
			kept = tmp;
			trace_name = shown;
		} else {
			free(tmp);
		}
		tmp = NULL;
	}
	pass_signals_on();

	struct profev_record_result res;
	int rc = profev_recorder_run(recorder, &res);
	clear_progress();
	int status = res.status;
	/* The end --kill-at-end asked for is no failure of the program's. */
	int ended_by_us = res.stopped && o.kill_at_end && res.exit_kind == PROFEV_EXIT_SIGNALED &&
			  res.exit_code == SIGTERM;
	if (ended_by_us)
		status = EXIT_OK;
	if (res.exit_kind == PROFEV_EXIT_NOSTART) {
		cmd_error("unable to start '%s': %s", program,
			  res.exit_code == ENOENT ? "command not found" : strerror(res.exit_code));
		if (tmp)
			fprintf(stderr, "%s: '%s' left as it was\n", cmd_name, output);
	} else if (!res.client && rc == 0 && res.sampled) {
		cmd_warn("'%s' did not connect to the profev client; the trace holds only %s",
			 program, o.sample_hz && o.sched ? "samples and context switches"
				    : o.sample_hz ? "samples" : "context switches");
	} else if (!res.client && rc == 0) {
		cmd_warn("'%s' did not connect to the profev client (not linked with "
			 "-lprofev-client?); the trace has no events", program);
	}
	const char *unmatched = profev_recorder_unmatched_categories(recorder);
	if (res.client && *unmatched)
		warn_unmatched(unmatched, program);
	if (res.stats.lost_samples)
		cmd_warn("%llu samples or context switches were lost (the kernel's ring was full; "
			 "--sample-buffer)", (unsigned long long)res.stats.lost_samples);
	if (res.stats.lost)
		cmd_warn("%llu events were dropped (--drop); the trace marks where",
			 (unsigned long long)res.stats.lost);
	if (rc < 0) {
		cmd_trace_error(shown, profev_recorder_error(recorder));
		/* The trace is lost, not the program's own result: say it. */
		if (res.exit_kind == PROFEV_EXIT_EXITED)
			cmd_error("'%s' ran to its end unrecorded and exited with status %d",
				  program, res.exit_code);
		else if (res.exit_kind == PROFEV_EXIT_SIGNALED)
			cmd_error("'%s' ran on unrecorded and was killed by signal %d (%s)",
				  program, res.exit_code, strsignal(res.exit_code));
		status = EXIT_TRACE;
	}
	profev_recorder_free(recorder);
	recorder = NULL;
	if (!to_stdout && close(fd) < 0 && rc == 0) {
		cmd_error("'%s': %s", shown, strerror(errno));
		status = EXIT_TRACE;
	}
	if (tmp)
		unlink(tmp);
	free(tmp);
	/* As a shell says it, which it cannot here: pfrec is the one it ran. */
	if (rc == 0 && res.exit_kind == PROFEV_EXIT_SIGNALED && res.exit_code != SIGINT &&
	    res.exit_code != SIGPIPE && !res.stopped)
		fprintf(stderr, "%s: '%s' killed by signal %d (%s); trace '%s' holds everything "
			"up to it\n", cmd_name, program, res.exit_code, strsignal(res.exit_code),
			shown);
	if (attaching && rc == 0)
		fprintf(stderr, "%s: %s; trace '%s' holds %llu events\n", cmd_name,
			res.detached ? "detached, the program runs on" : "the program ended",
			shown, (unsigned long long)res.stats.events);
	else if (!quiet && (res.client || res.sampled) && rc == 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "%s: %llu events, %u threads, %.1f MiB in '%s'\n", cmd_name,
			(unsigned long long)res.stats.events, res.stats.threads,
			(double)res.stats.bytes / (1 << 20), shown);
	free(kept);
	return status;
}
