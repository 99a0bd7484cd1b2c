/* pfdump's event listing as JSON Lines: one object per event; a zone's
 * arguments and flows on its end's line, an instant's or message's on its
 * own. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/common.h"
#include "common/json_write.h"
#include "show/listing_state.h"
#include "show/gpu_stats.h"

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

static void json_stack(struct dump *d, uint32_t id)
{
	unsigned n;
	const struct profev_frame *f = profev_reader_stack(d->r, id, &n);
	if (!f || outbuf_reserve(&d->o, 16))
		return;
	outbuf_lit(&d->o, ",\"stack\":[");
	for (unsigned i = 0; i < n; i++) {
		const struct profev_module *m = profev_reader_module(d->r, f[i].module);
		unsigned ns;
		const struct profev_symframe *sym = profev_reader_symbol(d->r, f[i].module, f[i].offset, &ns);
		const char *path = m ? m->path : "?";
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
	if (outbuf_reserve(&d->o, 2) == 0)
		outbuf_byte(&d->o, ']');
}

void listing_json_event(struct dump *d, const struct profev_event *ev, const struct profev_event_info *in,
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
		if ((ev->flags & PROFEV_EVF_WINDOW_EDGE) && outbuf_reserve(o, 24) == 0)
			outbuf_lit(o, ",\"window_edge\":true");
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
	case PROFEV_EV_TRIGGER:
		json_key_string(o, "reason", in->name, strlen(in->name));
		json_key_u64(o, "snapshot", ev->payload);
		break;
	case PROFEV_EV_GPU_ZONE: {
		const char *ctx = gpu_context_name(d->r, (uint32_t)ev->frame);
		json_key_string(o, "name", in->name, strlen(in->name));
		json_key_u64(o, "gpu_context", ev->frame);
		json_key_string(o, "gpu", ctx, strlen(ctx));
		json_key_u64(o, "duration_ns", ev->payload);
		break;
	}
	case PROFEV_EV_ATTACH:
	case PROFEV_EV_DETACH:
		json_key_u64(o, "frames_before", ev->payload);
		break;
	default:
		json_key_string(o, "name", in->name, strlen(in->name));
		if (ev->type > PROFEV_EV_TYPE_MAX)
			json_key_u64(o, "payload", ev->payload);
		break;
	}
	if (ev->type != PROFEV_EV_MEM_ALLOC && ev->type != PROFEV_EV_MEM_FREE && ev->type != PROFEV_EV_GPU_ZONE)
		json_key_u64(o, "frame", ev->frame);
	if (has_duration)
		json_key_u64(o, "duration_ns", duration);
	if (ev->type == PROFEV_EV_ZONE_END && pend)
		pending_end(d, pend);
	if ((ev->type == PROFEV_EV_INSTANT || ev->type == PROFEV_EV_MESSAGE) && pend)
		pending_point(d, pend);
	if (ev->stack) {
		json_key_u64(o, "stack_id", ev->stack);
		json_stack(d, ev->stack);
	}
	if (outbuf_reserve(o, 3) == 0)
		outbuf_lit(o, "}\n");
}
