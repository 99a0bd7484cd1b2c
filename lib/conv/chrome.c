/*
 * Chrome target: Trace Event Format JSON, as chrome://tracing, Perfetto UI
 * and speedscope read it. A zone is one X (complete) event, about half the
 * bytes of a B/E pair, unless an X event would not nest exactly (see
 * "Exact nesting"); PROFEV_CONV_CHROME_BE writes the pairs always. Timestamps are microseconds from the trace's start
 * with the nanoseconds kept as decimals. Frame sets appear as threads of
 * their own, with TIDs above any Linux TID.
 *
 * In each event "ph", "ts", "dur", "pid" and "tid" come before any string:
 * some trace_processor versions find "ts" by scanning an event's keys in
 * order with a string reader that gives up on \u escapes. Metadata events
 * carry "ts":0 for the same reader.
 *
 * The target's files: chrome.c (the ops table, tracks, instants, counters,
 * memory, async spans, lock waits, images, samples), chrome_events.c and
 * .h (the name arena, an event's head and fields, callstacks, argument
 * values), chrome_zones.c (the X-versus-B/E nesting buffer, a zone's
 * arguments and flows).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/conv_internal.h"
#include "trace/trace_internal.h"
#include "common/json_write.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/chrome_events.h"
#include "trace/trace_internal.h"
#include "common/common.h"

static int chrome_init(struct conv *c)
{
	struct chrome *ch = calloc(1, sizeof(struct chrome));
	if (!ch)
		return PROFEV_E_NOMEM;
	ch->ts.hi = UINT64_MAX;
	u64_map_init(&ch->flows, sizeof(uint64_t));
	c->fmt = ch;
	return 0;
}

static void chrome_fini(struct conv *c)
{
	struct chrome *ch = c->fmt;
	if (!ch)
		return;
	free(ch->names);
	free(ch->fragments);
	free(ch->arena);
	for (uint32_t i = 0; i < ch->nthreads; i++) {
		for (uint32_t k = 0; k < ch->threads[i].n; k++)
			free(ch->threads[i].deferred[k].args);
		free(ch->threads[i].deferred);
	}
	free(ch->threads);
	free(ch->args);
	u64_map_free(&ch->flows);
	conv_idset_free(&ch->stacks);
	conv_shots_free(&ch->shots);
	free(ch);
}

static int chrome_part_begin(struct conv *c)
{
	struct chrome *ch = c->fmt;
	int rc = outbuf_reserve(&c->out, 64);
	if (rc)
		return rc;
	outbuf_lit(&c->out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	ch->first = 1;
	conv_idset_clear(&ch->stacks);
	if (c->program)
		return chrome_metadata(c, "process_name", c->pid, 0, basename_of(c->program), "");
	return 0;
}

static int chrome_part_end(struct conv *c)
{
	struct chrome *ch = c->fmt;
	int rc;
	for (uint32_t i = 0; i < ch->nthreads; i++)
		if ((rc = chrome_thread_flush(c, &ch->threads[i])))
			return rc;
	if ((rc = outbuf_reserve(&c->out, 32)))
		return rc;
	outbuf_lit(&c->out, "\n]");
	int first = 1;
	for (size_t i = 0; i < ch->stacks.nw; i++) {
		for (uint64_t w = ch->stacks.w[i]; w; w &= w - 1) {
			if ((rc = outbuf_reserve(&c->out, 32)))
				return rc;
			if (first)
				outbuf_lit(&c->out, ",\"stackFrames\":{");
			else
				outbuf_byte(&c->out, ',');
			first = 0;
			if ((rc = chrome_stack_frames(c, (uint32_t)(i * 64 + (unsigned)__builtin_ctzll(w)))))
				return rc;
		}
	}
	if ((rc = outbuf_reserve(&c->out, 8)))
		return rc;
	if (!first)
		outbuf_lit(&c->out, "\n}");
	outbuf_lit(&c->out, "}\n");
	return 0;
}

static int chrome_thread(struct conv *c, struct conv_thread *t)
{
	if (t->kind == CONV_FRAMES)
		return chrome_metadata(c, "thread_name", t->pid, chrome_tid(t), t->name, t->name[0] ? "Frames: " : "Frames");
	if (!t->name[0])
		return 0;
	return chrome_metadata(c, "thread_name", t->pid, t->tid, t->name, "");
}

static int instant_head(struct conv *c, struct conv_thread *t, size_t room, const char *name,
			size_t nlen, uint32_t cat)
{
	const char *cs = profev_reader_string(c->r, cat);
	size_t cl = strlen(cs);
	int rc = chrome_event_begin(c, room + JSON_STRING_MAX(nlen) + JSON_STRING_MAX(cl), 'i');
	if (rc)
		return rc;
	outbuf_lit(&c->out, ",\"s\":\"t\"");
	field_ts(c, ",\"ts\":", c->now);
	if ((rc = chrome_put_ids(c, t)))
		return rc;
	field_str(c, ",\"name\":", name, nlen);
	if (cl)
		field_str(c, ",\"cat\":", cs, cl);
	return 0;
}

/* Room for the arguments of t's instant or message being written. */
static size_t point_args_room(struct conv *c, const struct conv_thread *t)
{
	uint32_t n;
	const struct profev_event *a = conv_point_args(t, &n);
	size_t room = 16;
	for (uint32_t i = 0; i < n; i++)
		room += chrome_arg_room(c, &a[i]) + 2;
	return room;
}

/* Its arguments as members of the "args" object, each after a comma
 * unless first; whether it wrote any. */
static int point_args_write(struct conv *c, const struct conv_thread *t, int first)
{
	uint32_t n;
	const struct profev_event *a = conv_point_args(t, &n);
	for (uint32_t i = 0; i < n; i++) {
		const char *key = profev_reader_string(c->r, a[i].name);
		if (!first)
			outbuf_byte(&c->out, ',');
		first = 0;
		c->st.replaced_bytes += json_string(&c->out, key, strlen(key));
		outbuf_byte(&c->out, ':');
		chrome_arg_value(c, &c->out, &a[i]);
	}
	return n != 0;
}

static int chrome_instant(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	const char *name = profev_reader_string(c->r, ev->name);
	int rc = instant_head(c, t, point_args_room(c, t), name, strlen(name), (uint32_t)ev->payload);
	if (rc)
		return rc;
	if (t->npoint) {
		outbuf_lit(&c->out, ",\"args\":{");
		point_args_write(c, t, 1);
		outbuf_byte(&c->out, '}');
	}
	chrome_event_end(c);
	return 0;
}

static int chrome_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const char *text, size_t len)
{
	size_t title = conv_message_title(text, len, TITLE_MAX);
	int rc = instant_head(c, t, JSON_STRING_MAX(len) + point_args_room(c, t), text, title,
			      (uint32_t)ev->payload);
	if (rc)
		return rc;
	field_str(c, ",\"args\":{\"text\":", text, len);
	point_args_write(c, t, 0);
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	return 0;
}

static int chrome_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	int rc = instant_head(c, t, 0, "lost events", 11, 0);
	if (rc)
		return rc;
	outbuf_lit(&c->out, ",\"args\":{\"count\":");
	json_u64(&c->out, ev->payload);
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	return 0;
}

/* A crash: an instant "crash: SIGSEGV" of its thread, with its callstack
 * and the fault address. */
static int chrome_crash(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	char name[80];
	int len = snprintf(name, sizeof name, "crash: %s", profev_reader_string(c->r, ev->name));
	if (len < 0 || (size_t)len >= sizeof name)
		len = (int)sizeof name - 1;
	int rc = instant_head(c, t, 40 + 48, name, (size_t)len, 0);
	if (rc || (rc = chrome_put_sf(c, ev->stack)))
		return rc;
	outbuf_lit(&c->out, ",\"args\":{\"address\":");
	json_u64(&c->out, ev->payload);
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	return 0;
}

static int chrome_counter(struct conv *c, const struct profev_event *ev)
{
	struct json_name n;
	int rc = json_name_of(c, ev->name, &n);
	if (rc || (rc = chrome_event_begin(c, n.len, 'C')))
		return rc;
	field_ts(c, ",\"ts\":", c->now);
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, c->pid);
	outbuf_lit(&c->out, ",\"name\":");
	put_json_name(c, &n);
	outbuf_lit(&c->out, ",\"args\":{\"value\":");
	json_double(&c->out, profev_event_double(ev));
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	return 0;
}

/* A pool's live bytes: a counter "memory: POOL" of the process; and each
 * allocation an instant of the process (no tid: a thread with nothing
 * else would appear only for it) named by its pool, with its size and
 * callstack, as the Perfetto output has them on its "allocations" track. */
static int chrome_memory(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		     const struct conv_mem *m)
{
	const char *pool = m->pool ? profev_reader_string(c->r, m->pool) : "default";
	size_t len = strlen(pool);
	int rc = chrome_event_begin(c, JSON_STRING_MAX(len), 'C');
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", c->now);
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, c->pid);
	outbuf_lit(&c->out, ",\"name\":\"memory: ");
	c->st.replaced_bytes += json_chars(&c->out, pool, len);
	outbuf_lit(&c->out, "\",\"args\":{\"bytes\":");
	json_u64(&c->out, m->live);
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	if (!t || ev->type != PROFEV_EV_MEM_ALLOC)
		return 0;
	if ((rc = chrome_event_begin(c, JSON_STRING_MAX(len) + 64, 'i')))
		return rc;
	outbuf_lit(&c->out, ",\"s\":\"p\"");
	field_ts(c, ",\"ts\":", c->now);
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, c->pid);
	field_str(c, ",\"name\":", pool, len);
	if ((rc = chrome_put_sf(c, ev->stack)))
		return rc;
	outbuf_lit(&c->out, ",\"args\":{\"bytes\":");
	json_u64(&c->out, m->size);
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	return 0;
}

/* An async span's begin or end: a nestable async event (ph b or e) with
 * its id, its name and category. */
static int chrome_async(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, ev->name);
	const char *name = profev_reader_string(c->r, ev->name);
	const char *cat = l && l->category ? profev_reader_string(c->r, l->category) : "async";
	size_t nl = strlen(name), cl = strlen(cat);
	int rc = chrome_event_begin(c, JSON_STRING_MAX(nl) + JSON_STRING_MAX(cl) + 32,
			     ev->type == PROFEV_EV_ASYNC_BEGIN ? 'b' : 'e');
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", c->now);
	if ((rc = chrome_put_ids(c, t)))
		return rc;
	field_str(c, ",\"name\":", name, nl);
	field_str(c, ",\"cat\":", cat, cl);
	char id[24];
	int k = snprintf(id, sizeof id, "0x%" PRIx64, ev->payload);
	field_str(c, ",\"id\":", id, (size_t)k);
	chrome_event_end(c);
	return 0;
}

/* A lock wait: an X event "wait: NAME" on the waiting thread, with the lock
 * and the thread that held it. */
static int chrome_lock_wait(struct conv *c, struct conv_thread *t, const struct conv_wait *w)
{
	const char *name = profev_reader_string(c->r, w->name);
	const char *holder = w->holder ? profev_reader_thread_name(c->r, w->holder) : "";
	size_t nl = strlen(name), hl = strlen(holder);
	int rc = chrome_event_begin(c, JSON_STRING_MAX(nl + 6) + JSON_STRING_MAX(hl) + 64, 'X');
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", w->begin);
	outbuf_lit(&c->out, ",\"dur\":");
	json_us(&c->out, w->end - w->begin);
	if ((rc = chrome_put_ids(c, t)))
		return rc;
	outbuf_lit(&c->out, ",\"name\":\"wait: ");
	c->st.replaced_bytes += json_chars(&c->out, name, nl);
	outbuf_lit(&c->out, "\",\"cat\":\"lock\",\"args\":{\"lock\":");
	char hex[24];
	json_string(&c->out, hex, (size_t)snprintf(hex, sizeof hex, "0x%" PRIx64, w->lock));
	if (w->holder) {
		outbuf_lit(&c->out, ",\"holder_tid\":");
		json_u64(&c->out, w->holder);
		field_str(c, ",\"holder\":", holder, hl);
	}
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	return 0;
}

/*
 * A frame image: a DevTools filmstrip screenshot, an object snapshot
 * (ph "O") named "Screenshot" in "disabled-by-default-devtools.screenshot"
 * whose args.snapshot is the JPEG in base64.
 */
static int chrome_image(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		    const struct profev_image *img)
{
	struct conv_shots *s = &((struct chrome *)c->fmt)->shots;
	const uint8_t *jpg;
	size_t len;
	int rc = conv_shot_jpeg(s, img, &jpg, &len);
	if (rc)
		return rc == PROFEV_E_NOMEM ? rc : 0;
	static const char cat[] = "disabled-by-default-devtools.screenshot";
	if ((rc = chrome_event_begin(c, 4 * (len / 3 + 1) + sizeof cat + 64, 'O')))
		return rc;
	field_ts(c, ",\"ts\":", c->now);
	if ((rc = chrome_put_ids(c, t)))
		return rc;
	outbuf_lit(&c->out, ",\"name\":\"Screenshot\",\"cat\":\"disabled-by-default-devtools.screenshot\",\"id\":\"0x");
	char id[24];
	int n = snprintf(id, sizeof id, "%" PRIx64, ev->payload);
	outbuf_put(&c->out, id, (size_t)n);
	outbuf_lit(&c->out, "\",\"args\":{\"snapshot\":\"");
	conv_base64(&c->out, jpg, len);
	outbuf_lit(&c->out, "\"}");
	chrome_event_end(c);
	return 0;
}

/* A sample as a Trace Event Format sample event (phase P), its callstack
 * in stackFrames like any other: chrome://tracing lists them per thread. */
static int chrome_sample(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	int rc = chrome_event_begin(c, 64, 'P');
	if (rc)
		return rc;
	outbuf_lit(&c->out, ",\"ts\":");
	if (ev->ts < c->base) {
		outbuf_byte(&c->out, '-');
		json_us(&c->out, c->base - ev->ts);
	} else {
		json_us(&c->out, ev->ts - c->base);
	}
	if ((rc = chrome_put_ids(c, t)))
		return rc;
	outbuf_lit(&c->out, ",\"name\":\"cpu-clock\",\"cat\":\"sample\"");
	if ((rc = chrome_put_sf(c, ev->stack)))
		return rc;
	outbuf_lit(&c->out, ",\"args\":{\"cpu\":");
	json_u64(&c->out, (uint32_t)ev->payload);
	outbuf_byte(&c->out, '}');
	chrome_event_end(c);
	return 0;
}

/* A GPU context is a pseudo-thread of the process, named as the program
 * named the context. Its zones are B/E pairs, in time order: nested GPU
 * zones often end at the same time, which X events cannot say exactly. */
static int gpu_head(struct conv *c, struct conv_gpu_track *t, char ph, uint64_t ts, size_t strings)
{
	int rc = chrome_event_begin(c, strings + 64, ph);
	if (rc)
		return rc;
	field_ts(c, ",\"ts\":", ts);
	outbuf_lit(&c->out, ",\"pid\":");
	json_u64(&c->out, c->pid);
	outbuf_lit(&c->out, ",\"tid\":");
	json_u64(&c->out, GPU_TID + t->ctx);
	return 0;
}

static int chrome_gpu_begin(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z)
{
	int rc;
	if (t->part != c->st.parts) {
		const struct profev_gpu_context *g = profev_reader_gpu_context(c->r, t->ctx);
		if ((rc = chrome_metadata(c, "thread_name", c->pid, GPU_TID + t->ctx,
					  g ? profev_reader_string(c->r, g->name) : "", "GPU: ")))
			return rc;
		t->part = c->st.parts;
	}
	const char *name = profev_reader_string(c->r, z->name);
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, z->name);
	const char *cat = l && l->category ? profev_reader_string(c->r, l->category) : "gpu";
	size_t nl = strlen(name), cl = strlen(cat);
	if ((rc = gpu_head(c, t, 'B', z->begin, JSON_STRING_MAX(nl) + JSON_STRING_MAX(cl))))
		return rc;
	field_str(c, ",\"name\":", name, nl);
	field_str(c, ",\"cat\":", cat, cl);
	chrome_event_end(c);
	return 0;
}

static int chrome_gpu_end(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z)
{
	int rc = gpu_head(c, t, 'E', z->end, 0);
	if (!rc)
		chrome_event_end(c);
	return rc;
}

const struct conv_ops conv_chrome_ops = {
	.name = "chrome",
	.split_ok = 1,
	.init = chrome_init,
	.fini = chrome_fini,
	.part_begin = chrome_part_begin,
	.part_end = chrome_part_end,
	.sample = chrome_sample,
	.crash = chrome_crash,
	.thread = chrome_thread,
	.zone_begin = chrome_zone_begin,
	.zone_end = chrome_zone_end,
	.instant = chrome_instant,
	.message = chrome_message,
	.lost = chrome_lost,
	.counter = chrome_counter,
	.memory = chrome_memory,
	.async = chrome_async,
	.lock_wait = chrome_lock_wait,
	.image = chrome_image,
	.gpu_begin = chrome_gpu_begin,
	.gpu_end = chrome_gpu_end,
};
