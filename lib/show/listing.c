/* pfdump's event listing: one line per event, as aligned text or JSONL. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include "common/json_write.h"
#include "profev_dump.h"
#include "show/zone_track.h"

struct dump {
	struct profev_reader *r;
	struct outbuf o;
	struct zone_track *zones;
	enum profev_dump_format format;
	uint64_t origin;
	int have_origin;
};

static int sink_file(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : PROFEV_E_IO;
}

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

static void json_key_string(struct outbuf *o, const char *key, const char *s, size_t n)
{
	if (outbuf_reserve(o, strlen(key) + 4 + JSON_STRING_MAX(n)))
		return;
	outbuf_byte(o, ',');
	json_string(o, key, strlen(key));
	outbuf_byte(o, ':');
	json_string(o, s, n);
}

static void json_key_u64(struct outbuf *o, const char *key, uint64_t v)
{
	if (outbuf_reserve(o, strlen(key) + 4 + JSON_NUMBER_MAX))
		return;
	outbuf_byte(o, ',');
	json_string(o, key, strlen(key));
	outbuf_byte(o, ':');
	json_u64(o, v);
}

static void show_stack(struct dump *d, uint32_t id)
{
	unsigned n;
	const struct profev_frame *f = profev_reader_stack(d->r, id, &n);
	if (!f)
		return;
	if (d->format == PROFEV_DUMP_JSONL) {
		if (outbuf_reserve(&d->o, 16))
			return;
		outbuf_lit(&d->o, ",\"stack\":[");
	}
	for (unsigned i = 0; i < n; i++) {
		const struct profev_module *m = profev_reader_module(d->r, f[i].module);
		unsigned ns;
		const struct profev_symframe *sym = profev_reader_symbol(d->r, f[i].module, f[i].offset, &ns);
		const char *path = m ? m->path : "?";
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		if (d->format == PROFEV_DUMP_TEXT) {
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
			continue;
		}
		if (outbuf_reserve(&d->o, 16 + JSON_STRING_MAX(strlen(path))))
			return;
		if (i)
			outbuf_byte(&d->o, ',');
		outbuf_lit(&d->o, "{\"module\":");
		json_string(&d->o, path, strlen(path));
		json_key_u64(&d->o, "offset", f[i].offset);
		if (ns) {
			if (outbuf_reserve(&d->o, 16))
				return;
			outbuf_lit(&d->o, ",\"frames\":[");
			for (unsigned k = 0; k < ns; k++) {
				const char *fn = sym[k].function ? sym[k].function : "";
				const char *file = sym[k].file ? sym[k].file : "";
				if (outbuf_reserve(&d->o, 16))
					return;
				if (k)
					outbuf_byte(&d->o, ',');
				outbuf_lit(&d->o, "{\"line\":");
				json_u64(&d->o, sym[k].line);
				json_key_string(&d->o, "function", fn, strlen(fn));
				json_key_string(&d->o, "file", file, strlen(file));
				if (outbuf_reserve(&d->o, 2) == 0)
					outbuf_byte(&d->o, '}');
			}
			if (outbuf_reserve(&d->o, 2) == 0)
				outbuf_byte(&d->o, ']');
		}
		if (outbuf_reserve(&d->o, 2) == 0)
			outbuf_byte(&d->o, '}');
	}
	if (d->format == PROFEV_DUMP_JSONL && outbuf_reserve(&d->o, 2) == 0)
		outbuf_byte(&d->o, ']');
}

static void show_text(struct dump *d, const struct profev_event *ev, const struct profev_event_info *in,
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
		break;
	case PROFEV_EV_COUNTER:
		text_name(o, in->name, strlen(in->name));
		if (ev->flags & PROFEV_EVF_DOUBLE)
			text(o, " = %.15g", profev_event_double(ev));
		else
			text(o, " = %" PRIu64, ev->payload);
		break;
	case PROFEV_EV_MESSAGE:
		if (in->category[0]) {
			text(o, "[");
			text_name(o, in->category, strlen(in->category));
			text(o, "] ");
		}
		text_name(o, in->text, in->text_len);
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
	default:
		text(o, "type %u payload %" PRIu64, ev->type, ev->payload);
		break;
	}
	text(o, "\n");
	if (ev->stack)
		show_stack(d, ev->stack);
}

static void show_json(struct dump *d, const struct profev_event *ev, const struct profev_event_info *in,
		      uint64_t rel, int has_duration, uint64_t duration)
{
	struct outbuf *o = &d->o;
	const char *type = profev_event_type_name(ev->type);
	if (outbuf_reserve(o, 16 + JSON_NUMBER_MAX))
		return;
	outbuf_lit(o, "{\"ts\":");
	json_u64(o, rel);
	json_key_u64(o, "tid", ev->tid);
	json_key_string(o, "thread", in->thread, strlen(in->thread));
	json_key_string(o, "type", type, strlen(type));
	switch (ev->type) {
	case PROFEV_EV_ZONE_BEGIN:
	case PROFEV_EV_ZONE_END:
	case PROFEV_EV_INSTANT:
	case PROFEV_EV_MESSAGE:
		if (ev->type != PROFEV_EV_MESSAGE)
			json_key_string(o, "name", in->name, strlen(in->name));
		else
			json_key_string(o, "text", in->text, in->text_len);
		json_key_string(o, "category", in->category, strlen(in->category));
		break;
	case PROFEV_EV_COUNTER:
		json_key_string(o, "name", in->name, strlen(in->name));
		if (outbuf_reserve(o, 16 + JSON_NUMBER_MAX) == 0) {
			outbuf_lit(o, ",\"value\":");
			if (ev->flags & PROFEV_EVF_DOUBLE)
				json_double(o, profev_event_double(ev));
			else
				json_u64(o, ev->payload);
		}
		break;
	case PROFEV_EV_MEM_ALLOC:
	case PROFEV_EV_MEM_FREE:
		json_key_u64(o, "addr", ev->addr);
		if (ev->type == PROFEV_EV_MEM_ALLOC)
			json_key_u64(o, "size", ev->payload);
		json_key_string(o, "pool", in->name, strlen(in->name));
		if ((ev->flags & PROFEV_EVF_SECURE) && outbuf_reserve(o, 16) == 0)
			outbuf_lit(o, ",\"secure\":true");
		break;
	case PROFEV_EV_LOST:
		json_key_u64(o, "count", ev->payload);
		break;
	case PROFEV_EV_FRAME_IMAGE:
		json_key_u64(o, "image", ev->payload);
		break;
	case PROFEV_EV_SAMPLE:
	case PROFEV_EV_SWITCH_IN:
		json_key_u64(o, "cpu", (uint32_t)ev->payload);
		break;
	case PROFEV_EV_SWITCH_OUT:
		json_key_u64(o, "cpu", (uint32_t)ev->payload);
		if (outbuf_reserve(o, 24) == 0) {
			if (ev->payload & PROFEV_SWITCH_PREEMPTED)
				outbuf_lit(o, ",\"preempted\":true");
			else
				outbuf_lit(o, ",\"preempted\":false");
		}
		break;
	case PROFEV_EV_SAMPLE_LOST:
		json_key_u64(o, "count", ev->payload);
		break;
	default:
		json_key_string(o, "name", in->name, strlen(in->name));
		if (ev->type > PROFEV_EV_TYPE_MAX)
			json_key_u64(o, "payload", ev->payload);
		break;
	}
	if (ev->type != PROFEV_EV_MEM_ALLOC && ev->type != PROFEV_EV_MEM_FREE)
		json_key_u64(o, "frame", ev->frame);
	if (has_duration)
		json_key_u64(o, "duration_ns", duration);
	if (ev->stack) {
		json_key_u64(o, "stack_id", ev->stack);
		show_stack(d, ev->stack);
	}
	if (outbuf_reserve(o, 3) == 0)
		outbuf_lit(o, "}\n");
}

int profev_dump_events(struct profev_reader *r, FILE *out, enum profev_dump_format format)
{
	struct dump d = { .r = r, .format = format };
	struct profev_event ev;
	struct profev_event_info in;
	int rc;
	if (outbuf_init(&d.o, 1 << 16, sink_file, out) || !(d.zones = zone_track_new())) {
		outbuf_free(&d.o);
		return PROFEV_E_NOMEM;
	}
	while ((rc = profev_reader_next_event(r, &ev, &in)) > 0) {
		if (!d.have_origin) {
			uint64_t start = profev_reader_meta(r)->mono_start_ns;
			d.origin = start && start <= ev.ts ? start : ev.ts;
			d.have_origin = 1;
		}
		uint64_t rel = ev.ts >= d.origin ? ev.ts - d.origin : 0;
		int has_duration = 0;
		uint64_t duration = 0, begin;
		uint32_t name;
		if (ev.type == PROFEV_EV_ZONE_BEGIN && zone_track_begin(d.zones, ev.tid, ev.name, ev.ts)) {
			rc = PROFEV_E_NOMEM;
			break;
		}
		if (ev.type == PROFEV_EV_ZONE_END && zone_track_end(d.zones, ev.tid, &name, &begin)) {
			has_duration = 1;
			duration = ev.ts - begin;
			if (!ev.name) { /* the recorder may leave an end's name out */
				ev.name = name;
				in.name = profev_reader_string(r, name);
			}
		}
		if (format == PROFEV_DUMP_JSONL)
			show_json(&d, &ev, &in, rel, has_duration, duration);
		else
			show_text(&d, &ev, &in, rel, has_duration, duration);
		if (d.o.err) {
			rc = d.o.err;
			break;
		}
	}
	int frc = outbuf_flush(&d.o);
	outbuf_free(&d.o);
	zone_track_free(d.zones);
	if (rc < 0)
		return rc;
	return frc;
}

int profev_leaks_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out)
{
	struct dump d = { .r = (struct profev_reader *)r, .format = PROFEV_DUMP_TEXT };
	if (outbuf_init(&d.o, 1 << 16, sink_file, out))
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
			show_stack(&d, l->stack);
		else
			text(&d.o, "        (no callstack recorded)\n");
	}
	int rc = outbuf_flush(&d.o);
	outbuf_free(&d.o);
	return rc;
}
