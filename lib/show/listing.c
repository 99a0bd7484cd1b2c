/* pfdump's event listing: one line per event, as aligned text or JSONL. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/common.h"
#include "common/json_write.h"
#include "common/u64_map.h"
#include "profev_dump.h"
#include "show/event_filter.h"
#include "show/time_order.h"
#include "show/zone_track.h"

/* JSONL: the arguments and flow marks of each thread's open zones, kept
 * until the zone ends, whose line lists them; and the arguments of its
 * next instant or message (POINT_ARG), which come right before it. */
struct pending {
	struct profev_event *ev;
	uint32_t n, cap;
	uint32_t *mark;       /* per open zone: n when it began */
	uint32_t depth, mark_cap;
	struct profev_event *point;
	uint32_t npoint, point_cap;
};

/* Lock names by address, from their waits, for the events that have none. */
struct lock_name {
	uint64_t addr;        /* the map's key */
	uint32_t name;
};

/* A thread's wait in progress, for the acquisition's wait time, and the
 * locks it holds, for their hold times: a thread's own events are in order. */
#define HELD_MAX 8
struct waiting {
	uint64_t addr, ts;
	struct { uint64_t addr, ts; } held[HELD_MAX];
	unsigned nheld;
};

struct dump {
	struct profev_reader *r;
	struct outbuf o;
	struct zone_track *zones;
	enum profev_dump_format format;
	uint64_t origin;
	int have_origin;
	struct pending *pend;  /* by zone_track thread index */
	struct waiting *waits; /* by zone_track thread index */
	uint32_t npend;
	struct u64_map locks;  /* struct lock_name by address */
	struct time_order *order;
	struct event_filter filter;
	uint64_t listed;
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

static const char *const arg_kinds[] = { "int", "uint", "double", "bool", "ptr", "str" };

static const char *arg_kind_name(unsigned kind)
{
	return kind < sizeof(arg_kinds) / sizeof(arg_kinds[0]) ? arg_kinds[kind] : "unknown";
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

/* An argument's value as JSON (after its key). */
static void json_arg_value(struct dump *d, const struct profev_event *ev)
{
	struct outbuf *o = &d->o;
	if (outbuf_reserve(o, JSON_STRING_MAX(24) + JSON_NUMBER_MAX))
		return;
	switch (profev_event_arg_kind(ev)) {
	case PROFEV_AK_INT:
		if ((int64_t)ev->payload < 0) {
			outbuf_byte(o, '-');
			json_u64(o, (uint64_t)0 - ev->payload);
		} else {
			json_u64(o, ev->payload);
		}
		break;
	case PROFEV_AK_DOUBLE: json_double(o, profev_event_double(ev)); break;
	case PROFEV_AK_BOOL:
		if (ev->payload)
			outbuf_lit(o, "true");
		else
			outbuf_lit(o, "false");
		break;
	case PROFEV_AK_PTR: {
		char hex[24];
		int n = snprintf(hex, sizeof hex, "0x%" PRIx64, ev->payload);
		json_string(o, hex, (size_t)n);
		break;
	}
	case PROFEV_AK_STR: {
		const char *v = ev->payload <= UINT32_MAX ? profev_reader_string(d->r, (uint32_t)ev->payload) : "";
		size_t n = strlen(v);
		if (outbuf_reserve(o, JSON_STRING_MAX(n)) == 0)
			json_string(o, v, n);
		break;
	}
	default: json_u64(o, ev->payload); break;
	}
}

/* ,"src":{"function":..,"file":..,"line":..} when the name is a call site's. */
static void json_src(struct dump *d, uint32_t name)
{
	const struct profev_srcloc *l = profev_reader_srcloc(d->r, name);
	if (!l || outbuf_reserve(&d->o, 16 + JSON_NUMBER_MAX))
		return;
	const char *fn = profev_reader_string(d->r, l->function);
	const char *file = profev_reader_string(d->r, l->file);
	outbuf_lit(&d->o, ",\"src\":{\"line\":");
	json_u64(&d->o, l->line);
	json_key_string(&d->o, "function", fn, strlen(fn));
	json_key_string(&d->o, "file", file, strlen(file));
	if (outbuf_reserve(&d->o, 2) == 0)
		outbuf_byte(&d->o, '}');
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

/* The lock at addr, added if new; NULL on no memory or for address 0. */
static struct lock_name *lock_get(struct dump *d, uint64_t addr)
{
	return addr ? u64_map_insert(&d->locks, addr, NULL) : NULL;
}

/* Per-thread state for a thread index of the zone tracker; NULL on no memory. */
static int thread_state(struct dump *d, uint32_t tid, struct pending **p, struct waiting **w)
{
	int64_t i = zone_track_thread(d->zones, tid);
	if (i < 0)
		return -1;
	if ((uint64_t)i >= d->npend) {
		uint32_t n = d->npend ? d->npend : 16;
		while (n <= (uint64_t)i)
			n *= 2;
		struct pending *np = realloc(d->pend, n * sizeof(*np));
		if (!np)
			return -1;
		d->pend = np;
		struct waiting *nw = realloc(d->waits, n * sizeof(*nw));
		if (!nw)
			return -1;
		d->waits = nw;
		memset(np + d->npend, 0, (n - d->npend) * sizeof(*np));
		memset(nw + d->npend, 0, (n - d->npend) * sizeof(*nw));
		d->npend = n;
	}
	*p = &d->pend[i];
	*w = &d->waits[i];
	return 0;
}

static int pending_begin(struct pending *p)
{
	if (array_grow((void **)&p->mark, &p->mark_cap, sizeof(*p->mark), (uint64_t)p->depth + 1))
		return -1;
	p->mark[p->depth++] = p->n;
	return 0;
}

static int pending_add(struct pending *p, const struct profev_event *ev)
{
	if (!p->depth)
		return 0;
	if (array_grow((void **)&p->ev, &p->cap, sizeof(*p->ev), (uint64_t)p->n + 1))
		return -1;
	p->ev[p->n++] = *ev;
	return 0;
}

/* The events of kind among ev[from..to) as JSON: an "args" object for
 * arguments, a list of ids for flow marks, nothing if there are none.
 * (ev may be NULL when from == to.) */
static void json_marks(struct dump *d, const struct profev_event *ev, uint32_t from, uint32_t to,
		       uint8_t kind, const char *key)
{
	struct outbuf *o = &d->o;
	int first = 1, is_arg = kind == PROFEV_EV_ARG || kind == PROFEV_EV_POINT_ARG;
	for (uint32_t i = from; i < to; i++) {
		if (ev[i].type != kind)
			continue;
		if (outbuf_reserve(o, 16 + JSON_NUMBER_MAX))
			return;
		if (first)
			outbuf_put(o, key, strlen(key));
		else
			outbuf_byte(o, ',');
		first = 0;
		if (!is_arg) {
			json_u64(o, ev[i].payload);
			continue;
		}
		const char *name = profev_reader_string(d->r, ev[i].name);
		size_t len = strlen(name);
		if (outbuf_reserve(o, JSON_STRING_MAX(len) + 2))
			return;
		json_string(o, name, len);
		outbuf_byte(o, ':');
		json_arg_value(d, &ev[i]);
	}
	if (!first && outbuf_reserve(o, 2) == 0)
		outbuf_byte(o, is_arg ? '}' : ']');
}

/* The zone's arguments and flows on its end's JSON line, then forgotten. */
static void pending_end(struct dump *d, struct pending *p)
{
	if (!p->depth)
		return;
	uint32_t from = p->mark[--p->depth];
	if (d->format == PROFEV_DUMP_JSONL) {
		json_marks(d, p->ev, from, p->n, PROFEV_EV_ARG, ",\"args\":{");
		json_marks(d, p->ev, from, p->n, PROFEV_EV_FLOW_OUT, ",\"flow_out\":[");
		json_marks(d, p->ev, from, p->n, PROFEV_EV_FLOW_IN, ",\"flow_in\":[");
	}
	p->n = from;
}

/* An instant's or message's arguments on its JSON line, then forgotten. */
static void pending_point(struct dump *d, struct pending *p)
{
	json_marks(d, p->point, 0, p->npoint, PROFEV_EV_POINT_ARG, ",\"args\":{");
	p->npoint = 0;
}

static int point_add(struct pending *p, const struct profev_event *ev)
{
	if (array_grow((void **)&p->point, &p->point_cap, sizeof(*p->point), (uint64_t)p->npoint + 1))
		return -1;
	p->point[p->npoint++] = *ev;
	return 0;
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

/* The name of the lock an event is about ("" if no wait named it yet). */
static const char *lock_name_of(struct dump *d, const struct profev_event *ev)
{
	uint32_t name = ev->name;
	if (!name && ev->payload) {
		const struct lock_name *l = u64_map_find(&d->locks, ev->payload);
		name = l ? l->name : 0;
	}
	return profev_reader_string(d->r, name);
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
	default:
		text(o, "type %u payload %" PRIu64, ev->type, ev->payload);
		break;
	}
	text(o, "\n");
	if (ev->stack)
		show_stack(d, ev->stack);
}

static void show_json(struct dump *d, const struct profev_event *ev, const struct profev_event_info *in,
		      uint64_t rel, int has_duration, uint64_t duration, struct pending *pend)
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
		json_src(d, ev->name);
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
		json_src(d, ev->name);
		break;
	case PROFEV_EV_ARG:
	case PROFEV_EV_POINT_ARG: {
		const char *kind = arg_kind_name(profev_event_arg_kind(ev));
		json_key_string(o, "key", in->name, strlen(in->name));
		json_key_string(o, "kind", kind, strlen(kind));
		if (outbuf_reserve(o, 16) == 0)
			outbuf_lit(o, ",\"value\":");
		json_arg_value(d, ev);
		if ((ev->flags & PROFEV_EVF_TRUNCATED) && outbuf_reserve(o, 20) == 0)
			outbuf_lit(o, ",\"truncated\":true");
		break;
	}
	case PROFEV_EV_FLOW_OUT:
	case PROFEV_EV_FLOW_IN:
		json_key_u64(o, "flow_id", ev->payload);
		break;
	case PROFEV_EV_ASYNC_BEGIN:
	case PROFEV_EV_ASYNC_END: {
		const struct profev_srcloc *l = profev_reader_srcloc(d->r, ev->name);
		const char *c = l ? profev_reader_string(d->r, l->category) : "";
		json_key_string(o, "name", in->name, strlen(in->name));
		json_key_string(o, "category", c, strlen(c));
		json_key_u64(o, "id", ev->payload);
		json_src(d, ev->name);
		break;
	}
	case PROFEV_EV_LOCK_WAIT:
	case PROFEV_EV_LOCK_ACQUIRED:
	case PROFEV_EV_LOCK_RELEASED: {
		const char *name = lock_name_of(d, ev);
		json_key_string(o, "lock", name, strlen(name));
		json_key_u64(o, "addr", ev->payload);
		if (has_duration)
			json_key_u64(o, ev->type == PROFEV_EV_LOCK_ACQUIRED ? "wait_ns" : "hold_ns", duration);
		has_duration = 0;
		break;
	}
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
	case PROFEV_EV_CRASH:
		json_key_string(o, "signal", in->name, strlen(in->name));
		json_key_u64(o, "addr", ev->payload);
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
	if (ev->type == PROFEV_EV_ZONE_END && pend)
		pending_end(d, pend);
	if ((ev->type == PROFEV_EV_INSTANT || ev->type == PROFEV_EV_MESSAGE) && pend)
		pending_point(d, pend);
	if (ev->stack) {
		json_key_u64(o, "stack_id", ev->stack);
		show_stack(d, ev->stack);
	}
	if (outbuf_reserve(o, 3) == 0)
		outbuf_lit(o, "}\n");
}

/*
 * What the listing keeps across events: JSONL's pending arguments and
 * flows (pend is set for a zone end to list them), lock names and each
 * thread's wait, for an acquisition's wait time and a release's hold time
 * (same thread, so file order is enough). 0 or -1 on no memory.
 */
static int rich_event(struct dump *d, const struct profev_event *ev, struct pending **pend,
		      int *has_duration, uint64_t *duration)
{
	struct pending *p;
	struct waiting *w;
	if (thread_state(d, ev->tid, &p, &w))
		return -1;
	switch (ev->type) {
	case PROFEV_EV_ZONE_BEGIN:
		p->npoint = 0; /* no instant or message came for them */
		return pending_begin(p);
	case PROFEV_EV_ZONE_END:
		p->npoint = 0;
		*pend = p;
		return 0;
	case PROFEV_EV_INSTANT:
	case PROFEV_EV_MESSAGE:
		*pend = p;
		return 0;
	case PROFEV_EV_POINT_ARG:
		return d->format == PROFEV_DUMP_JSONL ? point_add(p, ev) : 0;
	case PROFEV_EV_ARG:
	case PROFEV_EV_FLOW_OUT:
	case PROFEV_EV_FLOW_IN:
		return d->format == PROFEV_DUMP_JSONL ? pending_add(p, ev) : 0;
	case PROFEV_EV_LOCK_WAIT: {
		struct lock_name *l = lock_get(d, ev->payload);
		if (!l && ev->payload)
			return -1;
		if (l && !l->name)
			l->name = ev->name;
		w->addr = ev->payload;
		w->ts = ev->ts;
		return 0;
	}
	case PROFEV_EV_LOCK_ACQUIRED: {
		struct lock_name *l = lock_get(d, ev->payload);
		if (!l && ev->payload)
			return -1;
		if (w->addr == ev->payload && w->addr) {
			*has_duration = 1;
			*duration = ev->ts - w->ts;
		}
		w->addr = 0;
		if (w->nheld == HELD_MAX) /* forget the oldest */
			memmove(w->held, w->held + 1, (HELD_MAX - 1) * sizeof(w->held[0])), w->nheld--;
		w->held[w->nheld].addr = ev->payload;
		w->held[w->nheld++].ts = ev->ts;
		return 0;
	}
	case PROFEV_EV_LOCK_RELEASED:
		for (unsigned i = w->nheld; i-- > 0;) {
			if (w->held[i].addr != ev->payload)
				continue;
			*has_duration = 1;
			*duration = ev->ts - w->held[i].ts;
			memmove(w->held + i, w->held + i + 1, (w->nheld - i - 1) * sizeof(w->held[0]));
			w->nheld--;
			break;
		}
		return 0;
	}
	return 0;
}

static void dump_free(struct dump *d)
{
	for (uint32_t i = 0; i < d->npend; i++) {
		free(d->pend[i].ev);
		free(d->pend[i].mark);
		free(d->pend[i].point);
	}
	free(d->pend);
	free(d->waits);
	u64_map_free(&d->locks);
}

/* What a left-out event's line would have taken from the pending lists. */
static void pending_skip(struct pending *p, uint8_t type)
{
	if (type == PROFEV_EV_ZONE_END && p->depth)
		p->n = p->mark[--p->depth];
	if (type == PROFEV_EV_INSTANT || type == PROFEV_EV_MESSAGE)
		p->npoint = 0;
}

/* The next event out of the window: its state followed, its line written
 * if the filter keeps it. 1, 0 when the window is empty, or <0. */
static int list_next(struct dump *d)
{
	struct profev_event ev;
	struct profev_event_info in;
	if (!time_order_next(d->order, &ev, &in.thread, &in.text, &in.text_len))
		return 0;
	/* The ids' strings as the reader gave them (they do not change). */
	int has_category = ev.type == PROFEV_EV_ZONE_BEGIN || ev.type == PROFEV_EV_ZONE_END ||
			   ev.type == PROFEV_EV_INSTANT || ev.type == PROFEV_EV_MESSAGE;
	in.name = profev_reader_string(d->r, ev.name);
	in.category = has_category && ev.payload <= UINT32_MAX ? profev_reader_string(d->r, (uint32_t)ev.payload)
							       : "";
	uint64_t rel = ev.ts >= d->origin ? ev.ts - d->origin : 0;
	int has_duration = 0;
	uint64_t duration = 0, begin;
	uint32_t name;
	if (ev.type == PROFEV_EV_ZONE_BEGIN && zone_track_begin(d->zones, ev.tid, ev.name, ev.ts, NULL) < 0)
		return PROFEV_E_NOMEM;
	if (ev.type == PROFEV_EV_ARG && (ev.flags & PROFEV_EVF_ZONE_NAME) &&
	    profev_event_arg_kind(&ev) == PROFEV_AK_STR && ev.payload <= UINT32_MAX &&
	    profev_reader_string(d->r, (uint32_t)ev.payload)[0]) {
		int64_t ti = zone_track_thread(d->zones, ev.tid);
		if (ti < 0)
			return PROFEV_E_NOMEM;
		zone_track_rename(d->zones, (uint32_t)ti, (uint32_t)ev.payload);
	}
	int renamed = ev.type == PROFEV_EV_ZONE_END && zone_track_renamed(d->zones, ev.tid);
	if (ev.type == PROFEV_EV_ZONE_END && zone_track_end(d->zones, ev.tid, &name, &begin)) {
		has_duration = 1;
		duration = ev.ts - begin;
		if (!ev.name || renamed) { /* the recorder may leave an end's name out; a
					     zone named at run time ends under that name */
			ev.name = name;
			in.name = profev_reader_string(d->r, name);
		}
	}
	struct pending *pend = NULL;
	if ((ev.type >= PROFEV_EV_ARG && ev.type <= PROFEV_EV_LOCK_RELEASED) ||
	    (d->format == PROFEV_DUMP_JSONL &&
	     (ev.type == PROFEV_EV_ZONE_BEGIN || ev.type == PROFEV_EV_ZONE_END || ev.type == PROFEV_EV_POINT_ARG ||
	      ev.type == PROFEV_EV_INSTANT || ev.type == PROFEV_EV_MESSAGE))) {
		if (rich_event(d, &ev, &pend, &has_duration, &duration))
			return PROFEV_E_NOMEM;
	}
	int keep = event_filter_keep(&d->filter, &ev, in.thread);
	if (keep < 0)
		return PROFEV_E_NOMEM;
	if (!keep) {
		if (pend)
			pending_skip(pend, ev.type);
		return 1;
	}
	d->listed++;
	if (d->format == PROFEV_DUMP_JSONL)
		show_json(d, &ev, &in, rel, has_duration, duration, pend);
	else
		show_text(d, &ev, &in, rel, has_duration, duration);
	return d->o.err ? d->o.err : 1;
}

void profev_dump_opts_init(struct profev_dump_opts *o, enum profev_dump_format format)
{
	*o = (struct profev_dump_opts){ .format = format, .window = PROFEV_DUMP_WINDOW,
					.window_bytes = PROFEV_DUMP_WINDOW_BYTES, .to_ns = UINT64_MAX };
}

int profev_dump_list(struct profev_reader *r, FILE *out, const struct profev_dump_opts *opts,
		     struct profev_dump_result *res)
{
	struct dump d = { .r = r, .format = opts->format };
	struct profev_event ev;
	struct profev_event_info in;
	int rc, out_rc = 0;
	u64_map_init(&d.locks, sizeof(struct lock_name));
	event_filter_init(&d.filter, opts->thread, opts->from_ns, opts->to_ns);
	if (res)
		*res = (struct profev_dump_result){ 0, 0 };
	if (outbuf_init(&d.o, 1 << 16, sink_file, out) || !(d.zones = zone_track_new()) ||
	    !(d.order = time_order_new(opts->window, opts->window_bytes))) {
		rc = PROFEV_E_NOMEM;
		goto out;
	}
	while ((rc = profev_reader_next_event(r, &ev, &in)) > 0) {
		if (!d.have_origin) {
			uint64_t start = profev_reader_meta(r)->mono_start_ns;
			d.origin = start && start <= ev.ts ? start : ev.ts;
			d.have_origin = 1;
			event_filter_start(&d.filter, d.origin);
		}
		if (time_order_add(d.order, &ev, &in)) {
			rc = PROFEV_E_NOMEM;
			break;
		}
		while (time_order_full(d.order) && (out_rc = list_next(&d)) > 0)
			;
		if (out_rc < 0)
			break;
	}
	/* A cut trace, or no memory: what is held is whole, and shown. */
	while (out_rc >= 0 && (out_rc = list_next(&d)) > 0)
		;
	if (out_rc < 0 && rc >= 0)
		rc = out_rc;
	int frc = outbuf_flush(&d.o);
	if (rc >= 0)
		rc = frc;
out:
	if (res) {
		res->listed = d.listed;
		res->late = d.order ? time_order_late(d.order) : 0;
	}
	outbuf_free(&d.o);
	zone_track_free(d.zones);
	time_order_free(d.order);
	event_filter_free(&d.filter);
	dump_free(&d);
	return rc;
}

int profev_dump_events(struct profev_reader *r, FILE *out, enum profev_dump_format format)
{
	struct profev_dump_opts o;
	profev_dump_opts_init(&o, format);
	return profev_dump_list(r, out, &o, NULL);
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
