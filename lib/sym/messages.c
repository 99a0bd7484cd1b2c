/*
 * sym/messages.c - what a symbolizer reports: the error that refuses a
 * file (s->err, returned as a negative code), and the warnings about
 * damage it read around (profev_symbolizer_warnings()).
 */
#include <stdarg.h>
#include <stdio.h>
#include "sym/sym_internal.h"

int sym_fail(struct profev_symbolizer *s, int code, const char *fmt, ...)
{
	va_list ap;
	s->err.code = code;
	s->err.has_offset = 0;
	s->err.offset = 0;
	va_start(ap, fmt);
	vsnprintf(s->err.message, sizeof(s->err.message), fmt, ap);
	va_end(ap);
	return code;
}

void sym_warn(struct profev_symbolizer *s, const char *fmt, ...)
{
	char msg[sizeof(s->err.message)];
	s->damaged = 1;
	while (s->owner)
		s = s->owner;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (unsigned i = 0; i < s->nwarnings; i++)
		if (strcmp(s->warnings[i], msg) == 0)
			return;
	char **w = realloc(s->warnings, (s->nwarnings + 1) * sizeof(*w));
	if (!w)
		return;
	s->warnings = w;
	if ((w[s->nwarnings] = strdup(msg)))
		s->nwarnings++;
}

void sym_warnings_release(struct profev_symbolizer *s)
{
	for (unsigned i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	s->warnings = NULL;
	s->nwarnings = 0;
}
