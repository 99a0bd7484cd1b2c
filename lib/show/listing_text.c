/* pfdump's event listing as aligned text: one line per event, a
 * callstack's frames on the lines below it; and --leaks, the blocks still
 * allocated at the end with their callstacks. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/common.h"
#include "show/listing_state.h"
#include "show/gpu_stats.h"

static void text(struct outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text(struct outbuf *o, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	if (outbuf_reserve(o, len) == 0)
		outbuf_put(o, line, len);
}

/* Names come from the traced program: any bytes. Text output shows them
 * with control characters escaped so one event stays one line. */
static void text_name(struct outbuf *o, const char *s, size_t n)
{
	if (outbuf_reserve(o, 4 * n))
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			static const char hex[] = "0123456789abcdef";
			if (c == '\n') {
				outbuf_lit(o, "\\n");
			} else if (c == '\t') {
				outbuf_lit(o, "\\t");
			} else {
				outbuf_lit(o, "\\x");
				outbuf_byte(o, (uint8_t)hex[c >> 4]);
				outbuf_byte(o, (uint8_t)hex[c & 15]);
			}
		} else {
			outbuf_byte(o, c);
		}
	}
}

/* An argument's value as text: key=value. */
static void text_arg(struct dump *d, const struct profev_event *ev)
{
	struct outbuf *o = &d->o;
	const char *key = profev_reader_string(d->r, ev->name);
	text_name(o, key, strlen(key));
	text(o, "=");
	switch (profev_event_arg_kind(ev)) {
	case PROFEV_AK_INT: text(o, "%" PRId64, (int64_t)ev->payload); break;
	case PROFEV_AK_UINT: text(o, "%" PRIu64, ev->payload); break;
	case PROFEV_AK_DOUBLE: {
		/* The shortest form that reads back to the same bits. */
		double v = profev_event_double(ev);
		char b[40];
		snprintf(b, sizeof b, "%.15g", v);
		if (strtod(b, NULL) != v)
			snprintf(b, sizeof b, "%.17g", v);
		text(o, "%s", b);
		break;
	}
	case PROFEV_AK_BOOL: text(o, "%s", ev->payload ? "true" : "false"); break;
	case PROFEV_AK_PTR: text(o, "0x%" PRIx64, ev->payload); break;
	case PROFEV_AK_STR: {
		const char *v = ev->payload <= UINT32_MAX ? profev_reader_string(d->r, (uint32_t)ev->payload) : "";
		text(o, "\"");
		text_name(o, v, strlen(v));
		text(o, "\"%s", ev->flags & PROFEV_EVF_TRUNCATED ? " (truncated)" : "");
		if (ev->flags & PROFEV_EVF_ZONE_NAME)
			text(o, " (the zone's name)");
		break;
	}
	default: text(o, "%" PRIu64 " (unknown kind)", ev->payload); break;
	}
}

static void text_src(struct dump *d, uint32_t name)
{
	const struct profev_srcloc *l = profev_reader_srcloc(d->r, name);
	if (!l)
		return;
	const char *file = profev_reader_string(d->r, l->file);
	text(&d->o, "  @ ");
	text_name(&d->o, file, strlen(file));
	text(&d->o, ":%u", l->line);
}

static void text_stack(struct dump *d, uint32_t id)
{
	unsigned n;
	const struct profev_frame *f = profev_reader_stack(d->r, id, &n);
	if (!f)
		return;
	for (unsigned i = 0; i < n; i++) {
		const struct profev_module *m = profev_reader_module(d->r, f[i].module);
		unsigned ns;
		const struct profev_symframe *sym = profev_reader_symbol(d->r, f[i].module, f[i].offset, &ns);
		const char *path = m ? m->path : "?";
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		if (f[i].flags & PROFEV_FRAMEF_NOMODULE) {
			text(&d->o, "        #%-2u 0x%" PRIx64 " (no module)\n", i, f[i].offset);
			continue;
		}
		if (!ns) {
			text(&d->o, "        #%-2u %s+0x%" PRIx64 "\n", i, base, f[i].offset);
			continue;
		}
		for (unsigned k = 0; k < ns; k++) {
			text(&d->o, "        #%-2u %s %s:%u%s\n", i,
			     sym[k].function ? sym[k].function : "??", sym[k].file ? sym[k].file : "??",
			     sym[k].line, k + 1 < ns ? " (inlined)" : "");
		}
	}
}

void listing_text_event(struct dump *d, const struct profev_event *ev, const struct profev_event_info *in,
			uint64_t rel, int has_duration, uint64_t duration)
{
	struct outbuf *o = &d->o;
	char thread[64];
	snprintf(thread, sizeof(thread), "%.40s(%u)", in->thread[0] ? in->thread : "", ev->tid);
	text(o, "%5" PRIu64 ".%09" PRIu64 "  %-22s %-11s ", rel / 1000000000u, rel % 1000000000u, thread,
	     profev_event_type_name(ev->type));
	switch (ev->type) {
	case PROFEV_EV_ZONE_BEGIN:
	case PROFEV_EV_ZONE_END:
	case PROFEV_EV_INSTANT:
		text_name(o, in->name, strlen(in->name));
		if (in->category[0]) {
			text(o, " [");
			text_name(o, in->category, strlen(in->category));
			text(o, "]");
		}
		if (has_duration)
			text(o, "  %" PRIu64 ".%03" PRIu64 " us", duration / 1000, duration % 1000);
		if (ev->flags & PROFEV_EVF_UNCLOSED)
			text(o, "  (never closed)");
		if (ev->flags & PROFEV_EVF_WINDOW_EDGE)
			text(o, ev->type == PROFEV_EV_ZONE_BEGIN ? "  (begun before the window)"
								 : "  (still open at the window's end)");
		if (ev->type != PROFEV_EV_ZONE_END)
			text_src(d, ev->name);
		break;
	case PROFEV_EV_COUNTER:
		text_name(o, in->name, strlen(in->name));
		if (ev->flags & PROFEV_EVF_DOUBLE)
			text(o, " = %.15g", profev_event_double(ev));
		else
			text(o, " = %" PRIu64, ev->payload);
		text_src(d, ev->name);
		break;
	case PROFEV_EV_MESSAGE:
		if (in->category[0]) {
			text(o, "[");
			text_name(o, in->category, strlen(in->category));
			text(o, "] ");
		}
		text_name(o, in->text, in->text_len);
		text_src(d, ev->name);
		break;
	case PROFEV_EV_ARG:
	case PROFEV_EV_POINT_ARG:
		text_arg(d, ev);
		break;
	case PROFEV_EV_FLOW_OUT:
	case PROFEV_EV_FLOW_IN:
		text(o, "flow %" PRIu64 " (0x%" PRIx64 ")", ev->payload, ev->payload);
		break;
	case PROFEV_EV_ASYNC_BEGIN:
	case PROFEV_EV_ASYNC_END: {
		const struct profev_srcloc *l = profev_reader_srcloc(d->r, ev->name);
		text_name(o, in->name, strlen(in->name));
		if (l && l->category) {
			const char *c = profev_reader_string(d->r, l->category);
			text(o, " [");
			text_name(o, c, strlen(c));
			text(o, "]");
		}
		text(o, " id %" PRIu64, ev->payload);
		text_src(d, ev->name);
		break;
	}
	case PROFEV_EV_LOCK_WAIT:
	case PROFEV_EV_LOCK_ACQUIRED:
	case PROFEV_EV_LOCK_RELEASED: {
		const char *name = lock_name_of(d, ev);
		text_name(o, name, strlen(name));
		text(o, " 0x%" PRIx64, ev->payload);
		if (has_duration)
			text(o, "  %s %" PRIu64 ".%03" PRIu64 " us",
			     ev->type == PROFEV_EV_LOCK_ACQUIRED ? "waited" : "held", duration / 1000,
			     duration % 1000);
		break;
	}
	case PROFEV_EV_FRAME_START:
	case PROFEV_EV_FRAME_END:
		text_name(o, in->name, strlen(in->name));
		break;
	case PROFEV_EV_THREAD_NAME:
		text_name(o, in->name, strlen(in->name));
		break;
	case PROFEV_EV_FRAME_MARK:
		text(o, "#%" PRIu64 "%s", ev->frame, in->name[0] ? " " : "");
		text_name(o, in->name, strlen(in->name));
		break;
	case PROFEV_EV_MEM_ALLOC:
	case PROFEV_EV_MEM_FREE:
		text(o, "0x%" PRIx64, ev->addr);
		if (ev->type == PROFEV_EV_MEM_ALLOC)
			text(o, " %" PRIu64 " bytes", ev->payload);
		if (in->name[0]) {
			text(o, " pool ");
			text_name(o, in->name, strlen(in->name));
		}
		if (ev->flags & PROFEV_EVF_SECURE)
			text(o, " (secure)");
		break;
	case PROFEV_EV_FRAME_IMAGE:
		text(o, "image %" PRIu64 " of frame %" PRIu64, ev->payload, ev->frame);
		break;
	case PROFEV_EV_LOST:
		text(o, "%" PRIu64 " events lost", ev->payload);
		break;
	case PROFEV_EV_SAMPLE:
	case PROFEV_EV_SWITCH_IN:
		text(o, "cpu %" PRIu32, (uint32_t)ev->payload);
		break;
	case PROFEV_EV_SWITCH_OUT:
		text(o, "cpu %" PRIu32 " %s", (uint32_t)ev->payload,
		     ev->payload & PROFEV_SWITCH_PREEMPTED ? "preempted" : "blocked");
		break;
	case PROFEV_EV_SAMPLE_LOST:
		text(o, "%" PRIu64 " samples or switches lost", ev->payload);
		break;
	case PROFEV_EV_CRASH:
		text_name(o, in->name, strlen(in->name));
		if (ev->payload)
			text(o, " at 0x%" PRIx64, ev->payload);
		break;
	case PROFEV_EV_TRIGGER:
		text_name(o, in->name, strlen(in->name));
		if (ev->payload)
			text(o, " (snapshot %" PRIu64 ")", ev->payload);
		else
			text(o, " (no snapshot)");
		break;
	case PROFEV_EV_GPU_ZONE: {
		const char *ctx = gpu_context_name(d->r, (uint32_t)ev->frame);
		text_name(o, in->name, strlen(in->name));
		text(o, " [gpu %" PRIu64 " ", ev->frame);
		text_name(o, ctx, strlen(ctx));
		text(o, "]  %" PRIu64 ".%03" PRIu64 " us", ev->payload / 1000, ev->payload % 1000);
		break;
	}
	case PROFEV_EV_ATTACH:
	case PROFEV_EV_DETACH:
		text(o, "%" PRIu64 " frames before", ev->payload);
		break;
	default:
		text(o, "type %u payload %" PRIu64, ev->type, ev->payload);
		break;
	}
	text(o, "\n");
	if (ev->stack)
		text_stack(d, ev->stack);
}

int profev_leaks_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out)
{
	struct dump d = { .r = (struct profev_reader *)r, .format = PROFEV_DUMP_TEXT };
	if (outbuf_init(&d.o, 1 << 16, listing_sink_file, out))
		return PROFEV_E_NOMEM;
	uint64_t blocks = 0, bytes = 0;
	for (uint32_t i = 0; i < s->nleaks; i++)
		blocks += s->leaks[i].blocks, bytes += s->leaks[i].bytes;
	text(&d.o, "%" PRIu64 " bytes in %" PRIu64 " blocks still allocated at the end, in %u groups\n",
	     bytes, blocks, s->nleaks);
	for (uint32_t i = 0; i < s->nleaks; i++) {
		const struct profev_leak *l = &s->leaks[i];
		const char *pool = l->pool ? profev_reader_string(r, l->pool) : "(default)";
		text(&d.o, "\n%" PRIu64 " bytes in %" PRIu64 " blocks, pool %s, allocated at:\n", l->bytes, l->blocks,
		     pool);
		if (l->stack)
			text_stack(&d, l->stack);
		else
			text(&d.o, "        (no callstack recorded)\n");
	}
	int rc = outbuf_flush(&d.o);
	outbuf_free(&d.o);
	return rc;
}
