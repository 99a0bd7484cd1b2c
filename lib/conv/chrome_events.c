/*
 * The Chrome target's events: the name arena (each string's quoted JSON
 * form made once), an event's head and ids, callstacks as stackFrames, and
 * argument values.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/chrome_events.h"
#include "trace/trace_internal.h"

/* An outbuf over the arena's free room, of at least need bytes. */
int name_arena_room(struct chrome *ch, size_t need, struct outbuf *tmp)
{
	need += ARENA_SLACK;
	if (ch->arena_len + need > ch->arena_cap) {
		size_t cap = ch->arena_cap ? ch->arena_cap : 4096;
		while (cap < ch->arena_len + need)
			cap *= 2;
		char *a = realloc(ch->arena, cap);
		if (!a || cap > UINT32_MAX)
			return PROFEV_E_NOMEM;
		ch->arena = a;
		ch->arena_cap = cap;
	}
	memset(tmp, 0, sizeof(*tmp));
	tmp->base = tmp->p = (uint8_t *)ch->arena + ch->arena_len;
	tmp->end = (uint8_t *)ch->arena + ch->arena_cap;
	return 0;
}

int chrome_json_name_make(struct conv *c, uint32_t id)
{
	struct chrome *ch = c->fmt;
	if (array_grow((void **)&ch->names, &ch->nnames, sizeof(*ch->names), (uint64_t)id + 1))
		return PROFEV_E_NOMEM;
	const char *s = profev_reader_string(c->r, id);
	size_t len = strlen(s);
	struct outbuf tmp;
	int rc = name_arena_room(ch, JSON_STRING_MAX(len), &tmp);
	if (rc)
		return rc;
	c->st.replaced_bytes += json_string(&tmp, s, len);
	ch->names[id].off = (uint32_t)ch->arena_len;
	ch->names[id].len = (uint32_t)(tmp.p - tmp.base);
	ch->arena_len += ch->names[id].len;
	return 0;
}

/* Reserve room and open an event record of phase ph. */
int chrome_event_begin(struct conv *c, size_t strings, char ph)
{
	struct chrome *ch = c->fmt;
	int rc = outbuf_reserve(&c->out, EVENT_MAX + strings);
	if (rc)
		return rc;
	/* ",\n{\"ph\":\"X\"" as one fixed copy of constant bytes, the phase
	 * patched in; the first event drops the comma. (A head made on the
	 * stack and copied out would stall on store forwarding.) */
	uint8_t *p = c->out.p;
	memcpy(p, ",\n{\"ph\":\"X\"", 11);
	p[9] = (uint8_t)ph;
	c->out.p = p + 11;
	if (__builtin_expect(ch->first, 0)) {
		memmove(p, p + 1, 10);
		c->out.p = p + 10;
		ch->first = 0;
	}
	return 0;
}

static void field_ids(struct conv *c, uint32_t pid, uint32_t tid)
{
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, pid);
	outbuf_lit(&c->out, ",\"tid\":");
	json_u64(&c->out, tid);
}

__attribute__((noinline)) int chrome_ids_make(struct conv *c, struct conv_thread *t)
{
	struct chrome *ch = c->fmt;
	struct outbuf tmp;
	int rc = name_arena_room(ch, IDS_MAX, &tmp);
	if (rc)
		return rc;
	outbuf_lit(&tmp, ",\"pid\":");
	json_u64(&tmp, t->pid);
	outbuf_lit(&tmp, ",\"tid\":");
	json_u64(&tmp, chrome_tid(t));
	size_t len = (size_t)(tmp.p - tmp.base);
	t->aux = (uint64_t)ch->arena_len << 8 | len;
	ch->arena_len += len;
	return 0;
}

int chrome_metadata(struct conv *c, const char *what, uint32_t pid, uint32_t tid, const char *name,
		    const char *prefix)
{
	size_t n = strlen(name), pn = strlen(prefix);
	int rc = chrome_event_begin(c, JSON_STRING_MAX(n + pn), 'M');
	if (rc)
		return rc;
	outbuf_lit(&c->out, ",\"ts\":0");
	field_ids(c, pid, tid);
	outbuf_lit(&c->out, ",\"name\":\"");
	outbuf_put(&c->out, what, strlen(what));
	outbuf_byte(&c->out, '"');
	outbuf_lit(&c->out, ",\"args\":{\"name\":\"");
	outbuf_put(&c->out, prefix, pn); /* plain ASCII */
	c->st.replaced_bytes += json_chars(&c->out, name, n);
	outbuf_byte(&c->out, '"');
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	return 0;
}

/*
 * Callstacks. Each one the part uses becomes a chain of stackFrames
 * entries "S.0" (its outermost function) to "S.K" (its innermost, the
 * event's "sf"), S its callstack id: an address symbolized with inlined
 * functions gives one entry per function. Chains are not shared between
 * callstacks, so an entry's parents are exactly its callstack.
 */

/* Functions of a frame: its inline chain, or 1. */
static unsigned frame_functions(const struct conv *c, const struct profev_frame *f,
				const struct profev_symframe **sym)
{
	unsigned n = 0;
	*sym = f->flags & PROFEV_FRAMEF_NOMODULE ? NULL : conv_symbol(c, f->module, f->offset, &n);
	if (!*sym)
		n = 0;
	return n ? n : 1;
}

/* The event's ,"sf":"S.K" for callstack id; nothing for none. Needs 40 bytes. */
int chrome_put_sf(struct conv *c, uint32_t id)
{
	struct chrome *ch = c->fmt;
	unsigned n, k = 0;
	const struct profev_frame *f = conv_stack(c, id, &n);
	if (!f)
		return 0;
	int rc = conv_idset_add(&ch->stacks, id);
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < n; i++) {
		const struct profev_symframe *sym;
		k += frame_functions(c, &f[i], &sym);
	}
	char buf[40];
	int len = snprintf(buf, sizeof(buf), ",\"sf\":\"%" PRIu32 ".%u\"", id, k - 1);
	outbuf_put(&c->out, buf, (size_t)len);
	return 0;
}

int chrome_stack_frames(struct conv *c, uint32_t id)
{
	unsigned n, k = 0;
	const struct profev_frame *f = conv_stack(c, id, &n);
	for (unsigned i = n; i-- > 0;) {
		const struct profev_symframe *sym;
		unsigned nf = frame_functions(c, &f[i], &sym);
		const struct profev_module *m =
			f[i].flags & PROFEV_FRAMEF_NOMODULE ? NULL : profev_reader_module(c->r, f[i].module);
		const char *mod = m ? basename_of(m->path) : "";
		for (unsigned j = nf; j-- > 0; k++) {
			const char *fn = sym && sym[j].function ? sym[j].function : NULL;
			size_t room = 128 + JSON_STRING_MAX(strlen(mod)) * 2 + (fn ? JSON_STRING_MAX(strlen(fn)) : 0);
			int rc = outbuf_reserve(&c->out, room);
			if (rc)
				return rc;
			char buf[64];
			int len = snprintf(buf, sizeof(buf), "%s\n\"%" PRIu32 ".%u\":{\"name\":", k ? "," : "", id, k);
			outbuf_put(&c->out, buf, (size_t)len);
			if (fn) {
				c->st.replaced_bytes += json_string(&c->out, fn, strlen(fn));
			} else {
				/* unsymbolized: where it is, as module+0xoffset */
				outbuf_byte(&c->out, '"');
				c->st.replaced_bytes += json_chars(&c->out, mod, strlen(mod));
				len = snprintf(buf, sizeof(buf), "%s0x%" PRIx64 "\"", m ? "+" : "", f[i].offset);
				outbuf_put(&c->out, buf, (size_t)len);
			}
			if (m) {
				outbuf_lit(&c->out, ",\"category\":");
				c->st.replaced_bytes += json_string(&c->out, mod, strlen(mod));
			}
			if (k) {
				len = snprintf(buf, sizeof(buf), ",\"parent\":\"%" PRIu32 ".%u\"", id, k - 1);
				outbuf_put(&c->out, buf, (size_t)len);
			}
			outbuf_byte(&c->out, '}');
		}
	}
	return 0;
}

/* Room for a JSON value of argument a, its key apart. */
size_t chrome_arg_room(struct conv *c, const struct profev_event *a)
{
	size_t room = JSON_STRING_MAX(strlen(profev_reader_string(c->r, a->name))) + 2 * JSON_NUMBER_MAX;
	if (profev_event_arg_kind(a) == PROFEV_AK_STR)
		room += JSON_STRING_MAX(strlen(profev_reader_string(c->r, (uint32_t)a->payload)));
	return room;
}

void chrome_arg_value(struct conv *c, struct outbuf *o, const struct profev_event *a)
{
	char hex[24];
	/* Integers beyond 2^53 are strings: JSON readers take numbers as
	 * doubles (trace_processor turns UINT64_MAX into -1). */
	const uint64_t exact = 1ull << 53;
	unsigned kind = profev_event_arg_kind(a);
	int neg = kind == PROFEV_AK_INT && (int64_t)a->payload < 0;
	uint64_t mag = neg ? (uint64_t)0 - a->payload : a->payload;
	if ((kind == PROFEV_AK_INT || kind == PROFEV_AK_UINT) && mag > exact) {
		outbuf_byte(o, '"');
		if (neg)
			outbuf_byte(o, '-');
		json_u64(o, mag);
		outbuf_byte(o, '"');
		return;
	}
	switch (kind) {
	case PROFEV_AK_INT:
		if (neg)
			outbuf_byte(o, '-');
		json_u64(o, mag);
		break;
	case PROFEV_AK_DOUBLE: json_double(o, profev_event_double(a)); break;
	case PROFEV_AK_BOOL:
		if (a->payload)
			outbuf_lit(o, "true");
		else
			outbuf_lit(o, "false");
		break;
	case PROFEV_AK_PTR:
		json_string(o, hex, (size_t)snprintf(hex, sizeof hex, "0x%" PRIx64, a->payload));
		break;
	case PROFEV_AK_STR: {
		const char *v = profev_reader_string(c->r, (uint32_t)a->payload);
		c->st.replaced_bytes += json_string(o, v, strlen(v));
		break;
	}
	default: json_u64(o, a->payload); break;
	}
}
