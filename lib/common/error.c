/* Error codes and records. */
#include <stdio.h>
#include <stdlib.h>
#include "common/common.h"

const char *profev_strerror(int code)
{
	switch (code) {
	case PROFEV_OK: return "success";
	case PROFEV_E_IO: return "input/output error";
	case PROFEV_E_NOMEM: return "out of memory";
	case PROFEV_E_EMPTY: return "empty trace";
	case PROFEV_E_MAGIC: return "not a profev trace";
	case PROFEV_E_VERSION: return "unsupported format version";
	case PROFEV_E_TRUNCATED: return "trace is cut";
	case PROFEV_E_CHECKSUM: return "checksum mismatch";
	case PROFEV_E_CORRUPT: return "corrupt chunk";
	case PROFEV_E_LIMIT: return "size over the format's limits";
	case PROFEV_E_ARG: return "invalid argument";
	case PROFEV_E_STATE: return "invalid call in this state";
	case PROFEV_E_NOEND: return "trace has no end chunk";
	case PROFEV_E_UNSUPPORTED: return "unsupported";
	}
	return "unknown error";
}

static void vset(struct profev_error *e, int code, int has_offset, uint64_t offset,
		 const char *fmt, va_list ap)
{
	if (!e)
		return;
	e->code = code;
	e->has_offset = has_offset;
	e->offset = offset;
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
}

void err_set(struct profev_error *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, code, 0, 0, fmt, ap);
	va_end(ap);
}

void err_set_at(struct profev_error *e, int code, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, code, 1, offset, fmt, ap);
	va_end(ap);
}

void err_clear(struct profev_error *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}
