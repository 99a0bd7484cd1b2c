/* How the recorder reports trouble (rec_internal.h): a warning to the
 * command, a trace that cannot be written, a client stream that cannot be
 * read on. The library prints nothing itself. */
#include <stdarg.h>
#include <stdio.h>
#include "rec/rec_internal.h"

void rec_warn(struct profev_recorder *r, const char *fmt, ...)
{
	if (!r->o.warn)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r->o.warn(r->o.ctx, msg);
}

int writer_failed(struct profev_recorder *r)
{
	if (r->err.code == PROFEV_OK) {
		const struct profev_error *we = profev_writer_error(r->w);
		err_set(&r->err, we->code ? we->code : PROFEV_E_IO, "%s",
			we->message[0] ? we->message : profev_strerror(we->code));
	}
	r->bad = 1;
	return -1;
}

void stream_corrupt(struct profev_recorder *r, const char *what)
{
	if (!r->bad)
		rec_warn(r, "client stream at byte %llu: %s; the rest of it is ignored",
			 (unsigned long long)(r->wire_off + r->off), what);
	r->bad = 1;
}
