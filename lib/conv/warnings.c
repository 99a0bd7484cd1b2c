/* The read loop's warnings: the first few of each kind told one by one,
 * the rest counted into one summary line per kind. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include "conv/conv_internal.h"

/* Warnings of one kind reported one by one before the summary. */
#define WARN_DETAILED 5

void conv_warn(struct conv_loop *l, int kind, const char *fmt, ...)
{
	if (++l->warned[kind] > WARN_DETAILED || !l->c.opts->warn)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->c.opts->warn(l->c.opts->cb_ctx, kind, msg);
}

const char *conv_when(const struct conv_loop *l, uint64_t ts, char buf[40])
{
	int64_t d = (int64_t)(ts - l->c.base);
	const char *sign = d < 0 ? "-" : "";
	uint64_t a = d < 0 ? (uint64_t)-d : (uint64_t)d;
	snprintf(buf, 40, "%s%" PRIu64 ".%09" PRIu64 "s", sign, a / 1000000000u, a % 1000000000u);
	return buf;
}

void conv_warn_summary(struct conv_loop *l)
{
	static const char *const what[] = {
		[PROFEV_CONV_W_UNMATCHED_END] = "zone ends without a begin",
		[PROFEV_CONV_W_UNCLOSED] = "zones never closed",
		[PROFEV_CONV_W_TOO_DEEP] = "zones nested too deep",
	};
	const struct profev_conv_opts *o = l->c.opts;
	for (int k = 1; k < PROFEV_CONV_W_SUMMARY; k++) {
		if (l->warned[k] <= WARN_DETAILED || !o->warn)
			continue;
		char msg[128];
		snprintf(msg, sizeof(msg), "%" PRIu64 " more %s", l->warned[k] - WARN_DETAILED, what[k]);
		o->warn(o->cb_ctx, PROFEV_CONV_W_SUMMARY, msg);
	}
}
