/* Shared pieces of the profev commands. Commands parse options, call
 * libprofev and print; they hold no format or conversion logic. */
#ifndef PROFEV_CMD_H
#define PROFEV_CMD_H
#include <stdio.h>
#include "profev_trace.h"

/* Exit codes shared by the commands (documented in each man page). */
enum { EXIT_OK = 0, EXIT_TRACE = 1, EXIT_USAGE = 2,
       EXIT_REGRESSION = 3 /* pfdump --compare --fail-on-regression */ };

/* Name the command was invoked as ("pfdump"), for messages. */
extern const char *cmd_name;

int cmd_rec(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_sym(int argc, char **argv);
int cmd_conv(int argc, char **argv);
/* pfconv to html (conv_report.c): the report of input (against base if
 * not NULL) into output. @return the exit code; the messages are said. */
struct profev_conv_opts;
int cmd_conv_report(const struct profev_conv_opts *opts, const char *input, const char *output,
		    const char *base);

/* "pfdump: message\n" on stderr, printf-style. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "pfdump: warning: message\n" on stderr. */
void cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "pfdump: 'file': <libprofev error with chunk and offset>". */
void cmd_trace_error(const char *file, const struct profev_error *err);
/* Usage error: message, a hint at --help, returns EXIT_USAGE. */
int cmd_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Open a trace path or "-" (stdin) for reading; NULL after printing why. */
FILE *cmd_open_input(const char *path);
void cmd_close_input(FILE *f);
/* Display name of a path: "-" reads as "<stdin>". */
const char *cmd_display_name(const char *path);
/* Open an output path or "-" (stdout) for writing; -1 after printing why. */
int cmd_open_output(const char *path);

/* Parse "1.5s", "200ms", "30us", "100ns", "2" (seconds) into ns; 0 or -1. */
int cmd_parse_duration(const char *s, unsigned long long *ns);
/* Parse "64M", "1G", "4096" into bytes; 0 or -1. */
int cmd_parse_size(const char *s, unsigned long long *bytes);
/* Text that grows in memory: an output sink (profev_conv_sink's write,
 * ctx a struct cmd_membuf) for output read back by the command. */
struct cmd_membuf {
	char *p;
	size_t n, cap;
};
int cmd_membuf_write(void *ctx, const void *data, size_t len);
/* Write all of data to fd (partial writes and EINTR retried): 0, or the
 * errno of the failure (EIO for a write of 0 bytes). */
int cmd_write_all(int fd, const void *data, size_t len);
/* Print "--version" text. */
void cmd_print_version(void);
#endif
