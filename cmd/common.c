/* Helpers shared by the commands: messages in git's style, input and
 * output opening with "-" for the standard streams, unit parsing. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", cmd_name, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void cmd_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

int cmd_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "see '%s --help'\n", cmd_name);
	return EXIT_USAGE;
}

const char *cmd_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

void cmd_trace_error(const char *file, const struct profev_error *err)
{
	cmd_error("'%s': %s", cmd_display_name(file), err->message[0] ? err->message
							   : profev_strerror(err->code));
}

FILE *cmd_open_input(const char *path)
{
	if (strcmp(path, "-") == 0)
		return stdin;
	FILE *f = fopen(path, "rb");
	if (!f) {
		cmd_error("unable to open '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		cmd_error("unable to read '%s': is a directory", path);
		fclose(f);
		return NULL;
	}
	return f;
}

void cmd_close_input(FILE *f)
{
	if (f && f != stdin)
		fclose(f);
}

int cmd_open_output(const char *path)
{
	if (strcmp(path, "-") == 0)
		return STDOUT_FILENO;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		cmd_error("unable to create '%s': %s", path, strerror(errno));
	return fd;
}

int cmd_parse_duration(const char *s, unsigned long long *ns)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 },
	};
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			double r = v * units[i].scale;
			if (r > 1.8e19)
				return -1;
			*ns = (unsigned long long)r;
			return 0;
		}
	}
	return -1;
}

int cmd_parse_size(const char *s, unsigned long long *bytes)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v <= 0)
		return -1;
	double scale = 1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': scale = 1024.0; end++; break;
	case 'm': case 'M': scale = 1024.0 * 1024; end++; break;
	case 'g': case 'G': scale = 1024.0 * 1024 * 1024; end++; break;
	default: return -1;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end)
		return -1;
	*bytes = (unsigned long long)(v * scale);
	return 0;
}

void cmd_print_version(void)
{
	printf("%s (profev) %s, trace format %d.%d\n", cmd_name, PROFEV_VERSION_STRING,
	       PROFEV_FORMAT_MAJOR, PROFEV_FORMAT_MINOR);
}

int cmd_membuf_write(void *ctx, const void *data, size_t len)
{
	struct cmd_membuf *m = ctx;
	if (m->n + len > m->cap) {
		size_t cap = m->cap ? m->cap : 65536;
		while (cap < m->n + len)
			cap *= 2;
		char *p = realloc(m->p, cap);
		if (!p)
			return -1;
		m->p = p;
		m->cap = cap;
	}
	memcpy(m->p + m->n, data, len);
	m->n += len;
	return 0;
}

int cmd_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		p += (size_t)n;
		len -= (size_t)n;
	}
	return 0;
}
