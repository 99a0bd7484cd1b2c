/*
 * The converters' read loop (profev_conv.h): one pass over the reader that
 * keeps every thread's open zones and drives a target's ops table
 * (conv/conv_internal.h). Window, filter, split and unclosed zones are handled
 * here once, so each target only formats records.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conv/tracks.h"
#include "conv/zone_stack.h"
#include "conv/zpack.h"
#include "trace/trace_internal.h"

#define OUT_BUFFER (1u << 20)
#define PROGRESS_EVERY (1u << 20)

static int sink_write(void *ctx, const void *data, size_t len)
{
	const struct profev_conv_sink *s = ctx;
	return s->write(s->ctx, data, len) < 0 ? PROFEV_E_IO : 0;
}

/* Output bytes so far: those the sink got when compressing (what is still
 * buffered is not counted then), else those written. */
static uint64_t bytes_out(const struct conv_loop *l)
{
	return l->zpack ? conv_zpack_bytes(l->zpack) : outbuf_size(&l->c.out);
}

/* What must come before the event at ts: the part it goes in, and the
 * pools' live bytes where a later part or the window starts. */
static int before_event(struct conv_loop *l, uint64_t ts)
{
	int rc = 0;
	if (!l->in_part && (rc = conv_part_open(l)))
		return rc;
	if (l->snap && ts > l->to)
		l->snap = 0;
	if (l->snap && ts >= l->from)
		rc = conv_memory_snapshot(l, l->snap_ts ? l->snap_ts : ts);
	l->pending = !l->in_part || l->snap;
	return rc;
}

/* A callstack id the reader knows, else 0: targets index tables by it. */
static inline uint32_t known_stack(struct conv_loop *l, uint32_t id)
{
	if (__builtin_expect(id > l->nstacks, 0) && (l->nstacks = profev_reader_stack_count(l->c.r)) < id)
		return 0;
	return id;
}

/* A memory event's thread moves through the window as for other events;
 * kept apart from on_event() so that traces without memory run its code
 * alone. */
static __attribute__((noinline)) int on_memory_event(struct conv_loop *l, const struct profev_event *ev)
{
	struct conv_thread *t = conv_thread_of(l, ev);
	if (!t)
		return l->c.out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
	uint64_t ts = ev->ts < t->last_ts ? t->last_ts : ev->ts;
	int rc = conv_advance(l, t, ts);
	if (rc)
		return rc;
	t->last_ts = ts;
	l->c.now = ts;
	struct profev_event e = *ev;
	e.stack = known_stack(l, ev->stack);
	return conv_memory_event(l, t, &e, ts);
}

/* A name given to t's top zone at run time (Tracy's ZoneName): the zone's
 * name from its begin on, not an argument. An empty or unknown string
 * leaves the name as it is. */
static int on_zone_name(struct conv_loop *l, struct conv_thread *t, const struct profev_event *ev)
{
	struct conv *c = &l->c;
	struct conv_zone *z = &t->stack[t->depth - 1];
	if (!ev->payload || ev->payload > l->nstr || ev->payload == z->name ||
	    !profev_reader_string(c->r, (uint32_t)ev->payload)[0])
		return 0;
	z->name = (uint32_t)ev->payload;
	if (!conv_emitting(t) || !c->ops->zone_rename)
		return 0;
	l->part_events++;
	return c->ops->zone_rename(c, t, z);
}

/* The rich events (arguments, flows, async spans, locks, discontinuous
 * frames), apart from the hot path. */
static __attribute__((noinline)) int on_rich(struct conv_loop *l, const struct profev_event *ev)
{
	struct conv *c = &l->c;
	uint64_t ts = ev->ts;
	int frames = ev->type == PROFEV_EV_FRAME_START || ev->type == PROFEV_EV_FRAME_END;
	struct conv_thread *t = frames ? conv_spans_track(l, ev->name) : conv_thread_of(l, ev);
	if (!t)
		return c->out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
	if (ts < t->last_ts)
		ts = t->last_ts;
	int rc = conv_advance(l, t, ts);
	if (rc)
		return rc;
	t->last_ts = ts;
	c->now = ts;
	switch (ev->type) {
	case PROFEV_EV_FRAME_START:
		if (t->depth && (rc = conv_zone_pop(l, t, ts, CONV_EDGE_NORMAL)))
			return rc;
		return conv_zone_push(l, t, ts, ev->name, 0, t->spans++);
	case PROFEV_EV_FRAME_END:
		return t->depth ? conv_zone_pop(l, t, ts, CONV_EDGE_NORMAL) : 0;
	case PROFEV_EV_ARG:
	case PROFEV_EV_FLOW_OUT:
	case PROFEV_EV_FLOW_IN:
		if (!t->depth || t->dropped)
			return 0; /* no zone, or one nested too deep to be shown */
		if (__builtin_expect(ev->flags & PROFEV_EVF_ZONE_NAME, 0) && ev->type == PROFEV_EV_ARG &&
		    profev_event_arg_kind(ev) == PROFEV_AK_STR)
			return on_zone_name(l, t, ev);
		if (array_grow((void **)&t->args, &t->args_cap, sizeof(*t->args), (uint64_t)t->nargs + 1))
			return PROFEV_E_NOMEM;
		t->args[t->nargs] = *ev;
		/* A string's id stays within the reader's tables, as names do. */
		if (profev_event_arg_kind(ev) == PROFEV_AK_STR && ev->type == PROFEV_EV_ARG &&
		    ev->payload > l->nstr)
			t->args[t->nargs].payload = 0;
		t->nargs++;
		if (!conv_emitting(t) || !c->ops->arg)
			return 0;
		l->part_events++;
		return c->ops->arg(c, t, &t->stack[t->depth - 1], &t->args[t->nargs - 1]);
	case PROFEV_EV_ASYNC_BEGIN:
	case PROFEV_EV_ASYNC_END:
		if (!conv_emitting(t) || !c->ops->async)
			return 0;
		if ((rc = conv_announce(l, t)))
			return rc;
		c->st.events_out++;
		l->part_events++;
		return c->ops->async(c, t, ev);
	default:
		return conv_lock_event(l, t, ev, ts);
	}
}

/* Samples and context switches come from the kernel in their own order,
 * behind or ahead of their thread's zones: each is passed on at its own
 * time when that falls in the window, and moves neither its thread's clock
 * nor its place in the window, which the zones keep. */
static __attribute__((noinline)) int on_kernel_event(struct conv_loop *l, const struct profev_event *ev)
{
	struct conv *c = &l->c;
	int (*pass)(struct conv *, struct conv_thread *, const struct profev_event *) = c->ops->sched;
	if (ev->type == PROFEV_EV_SAMPLE)
		pass = c->ops->sample;
	else if (ev->type == PROFEV_EV_SAMPLE_LOST)
		pass = c->ops->sample_lost;
	if (!pass || ev->ts < l->from || ev->ts > l->to)
		return 0;
	struct conv_thread *t = conv_thread_of(l, ev);
	if (!t)
		return c->out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
	if (!t->selected)
		return 0;
	int rc = conv_announce(l, t);
	if (rc)
		return rc;
	c->now = ev->ts;
	c->st.events_out++;
	l->part_events++;
	struct profev_event e = *ev;
	e.stack = known_stack(l, ev->stack);
	return pass(c, t, &e);
}

/* An argument of its thread's next instant or message, which follows it:
 * kept until then (any other event of the thread forgets it). */
static __attribute__((noinline)) int on_point_arg(struct conv_loop *l, const struct profev_event *ev)
{
	struct conv_thread *t = conv_thread_of(l, ev);
	if (!t)
		return l->c.out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
	if (t->npoint >= CONV_POINT_ARGS_MAX)
		return 0; /* bounded against a hostile trace; no program gives so many */
	if (array_grow((void **)&t->point, &t->point_cap, sizeof(*t->point), (uint64_t)t->npoint + 1))
		return PROFEV_E_NOMEM;
	t->point[t->npoint] = *ev;
	if (profev_event_arg_kind(ev) == PROFEV_AK_STR && ev->payload > l->nstr)
		t->point[t->npoint].payload = 0;
	t->npoint++;
	return 0;
}

static inline int has_category(unsigned type)
{
	return type == PROFEV_EV_ZONE_BEGIN || type == PROFEV_EV_ZONE_END ||
	       type == PROFEV_EV_INSTANT || type == PROFEV_EV_MESSAGE ||
	       type == PROFEV_EV_ZONE_BEFORE || type == PROFEV_EV_ZONE_AFTER;
}

/* A frame image in the window: its pixels are the reader's, held since
 * its chunk (profev_reader_image()). */
static __attribute__((noinline)) int on_image(struct conv_loop *l, struct conv_thread *t,
					      const struct profev_event *ev)
{
	struct conv *c = &l->c;
	const struct profev_image *img =
		ev->payload <= UINT32_MAX ? profev_reader_image(c->r, (uint32_t)ev->payload) : NULL;
	if (!img) {
		c->st.lost_images++;
		return 0;
	}
	int rc = c->ops->image(c, t, ev, img);
	if (!rc)
		c->st.images++;
	return rc;
}

/* A zone of a window's edge: begun before the window (it begins at the
 * window's start, marked so) or still open at its end (it ends there). */
static __attribute__((noinline)) int on_window_edge(struct conv_loop *l, struct conv_thread *t,
						    uint64_t ts, const struct profev_event *ev)
{
	if (ev->type == PROFEV_EV_ZONE_BEFORE)
		return conv_zone_push_edge(l, t, ts, ev->name, (uint32_t)ev->payload,
					   known_stack(l, ev->stack), CONV_EDGE_BEFORE);
	if (t->dropped) {
		t->dropped--;
		return 0;
	}
	return t->depth ? conv_zone_pop(l, t, ts, CONV_EDGE_AFTER) : 0;
}

static inline CONV_HOT int on_event(struct conv_loop *l, const struct profev_event *ev)
{
	struct conv *c = &l->c;
	struct conv_thread *t;
	int rc;
	uint64_t ts = ev->ts;
	char tb[32], wb[40];

	if (ts > l->last_ts)
		l->last_ts = ts;
	switch (ev->type) {
	case PROFEV_EV_COUNTER:
		if (ts < l->from || ts > l->to)
			return 0;
		c->now = ts;
		c->st.events_out++;
		l->part_events++;
		return c->ops->counter(c, ev);
	case PROFEV_EV_FRAME_MARK:
		if (!(t = conv_frames_track(l, ev->name)))
			return PROFEV_E_NOMEM;
		break;
	case PROFEV_EV_ZONE_BEGIN:
	case PROFEV_EV_ZONE_END:
	case PROFEV_EV_INSTANT:
	case PROFEV_EV_MESSAGE:
	case PROFEV_EV_LOST:
	case PROFEV_EV_TRIGGER:
	case PROFEV_EV_ZONE_BEFORE:
	case PROFEV_EV_ZONE_AFTER:
	case PROFEV_EV_THREAD_NAME:
	case PROFEV_EV_CRASH: /* its thread's last event: zones still open end there */
		if (!(t = conv_thread_of(l, ev)))
			return c->out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
		break;
	case PROFEV_EV_MEM_ALLOC:
	case PROFEV_EV_MEM_FREE:
		return c->ops->memory ? on_memory_event(l, ev) : 0;
	case PROFEV_EV_SAMPLE:
	case PROFEV_EV_SWITCH_OUT:
	case PROFEV_EV_SWITCH_IN:
	case PROFEV_EV_SAMPLE_LOST:
		return on_kernel_event(l, ev);
	case PROFEV_EV_FRAME_IMAGE:
		if (!c->ops->image || (c->opts->flags & PROFEV_CONV_NO_IMAGES))
			return 0;
		if (!(t = conv_thread_of(l, ev)))
			return c->out.err ? PROFEV_E_IO : PROFEV_E_NOMEM;
		break;
	case PROFEV_EV_POINT_ARG:
		return on_point_arg(l, ev);
	default:
		if (ev->type >= PROFEV_EV_ARG && ev->type <= PROFEV_EV_FRAME_END)
			return on_rich(l, ev);
		return 0; /* types newer than this reader */
	}

	/* A thread's clock never runs backwards in the output, so nesting holds
	 * even if a trace's timestamps do. */
	if (ts < t->last_ts)
		ts = t->last_ts;
	if ((rc = conv_advance(l, t, ts)))
		return rc;
	t->last_ts = ts;
	c->now = ts;

	if (__builtin_expect(t->npoint != 0, 0) && ev->type != PROFEV_EV_INSTANT &&
	    ev->type != PROFEV_EV_MESSAGE)
		t->npoint = 0; /* no instant or message came for them */
	switch (ev->type) {
	case PROFEV_EV_ZONE_BEGIN:
		return conv_zone_push(l, t, ts, ev->name, (uint32_t)ev->payload, known_stack(l, ev->stack));
	case PROFEV_EV_ZONE_BEFORE:
	case PROFEV_EV_ZONE_AFTER:
		return on_window_edge(l, t, ts, ev);
	case PROFEV_EV_ZONE_END:
		if (t->dropped) {
			t->dropped--;
			return 0;
		}
		if (!t->depth) {
			const char *name = profev_reader_string(c->r, ev->name);
			c->st.unmatched_ends++;
			conv_warn(l, PROFEV_CONV_W_UNMATCHED_END, "%s (%" PRIu32 "): zone end%s%s%s at %s without a begin: dropped",
			     conv_track_name(t, tb), t->tid, name[0] ? " '" : "", name,
			     name[0] ? "'" : "", conv_when(l, ts, wb));
			return 0;
		}
		if (ev->flags & PROFEV_EVF_UNCLOSED) {
			c->st.unclosed++;
			conv_warn(l, PROFEV_CONV_W_UNCLOSED, "%s (%" PRIu32 "): zone '%s' never closed: closed at %s",
			     conv_track_name(t, tb), t->tid,
			     profev_reader_string(c->r, t->stack[t->depth - 1].name), conv_when(l, ts, wb));
			return conv_zone_pop(l, t, ts, CONV_EDGE_UNCLOSED);
		}
		return conv_zone_pop(l, t, ts, CONV_EDGE_NORMAL);
	case PROFEV_EV_FRAME_MARK:
		if (t->depth && (rc = conv_zone_pop(l, t, ts, CONV_EDGE_NORMAL)))
			return rc;
		return conv_zone_push(l, t, ts, ev->name, 0, ev->frame);
	case PROFEV_EV_THREAD_NAME:
		return 0; /* conv_thread_of() applied the name */
	}
	if (!conv_emitting(t)) {
		t->npoint = 0;
		return 0;
	}
	if ((rc = conv_announce(l, t)))
		return rc;
	c->st.events_out++;
	l->part_events++;
	switch (ev->type) {
	case PROFEV_EV_INSTANT:
		rc = c->ops->instant(c, t, ev);
		t->npoint = 0;
		return rc;
	case PROFEV_EV_MESSAGE: {
		size_t len;
		const char *text = profev_reader_event_text(c->r, l->text_src ? l->text_src : ev, &len);
		rc = c->ops->message(c, t, ev, text, len);
		t->npoint = 0;
		return rc;
	}
	case PROFEV_EV_FRAME_IMAGE:
		return on_image(l, t, ev);
	case PROFEV_EV_CRASH: {
		struct profev_event e = *ev;
		e.stack = known_stack(l, ev->stack);
		return c->ops->crash ? c->ops->crash(c, t, &e) : 0;
	}
	case PROFEV_EV_TRIGGER: {
		/* an instant named for its reason, on the thread that asked */
		struct profev_event e = *ev;
		e.type = PROFEV_EV_INSTANT;
		e.payload = 0;
		rc = c->ops->instant(c, t, &e);
		t->npoint = 0;
		return rc;
	}
	default:
		return c->ops->lost(c, t, ev);
	}
}


/* End of input: close what is still open. */
static int finish_trace(struct conv_loop *l)
{
	struct conv *c = &l->c;
	int rc = conv_waits_flush(l);
	char tb[32], wb[40];
	for (unsigned i = 0; i < l->nthreads && !rc; i++) {
		struct conv_thread *t = l->threads[i];
		while (t->depth && !rc) {
			if (t->kind == CONV_FRAMES) {
				/* The last frame runs to the end of the trace. */
				uint64_t end = l->last_ts < l->to ? l->last_ts : l->to;
				c->now = end;
				rc = conv_zone_pop(l, t, end, CONV_EDGE_NORMAL);
				continue;
			}
			if (conv_emitting(t)) {
				c->st.unclosed++;
				conv_warn(l, PROFEV_CONV_W_UNCLOSED, "%s (%" PRIu32 "): zone '%s' never closed: closed at %s",
				     conv_track_name(t, tb), t->tid,
				     profev_reader_string(c->r, t->stack[t->depth - 1].name),
				     conv_when(l, t->last_ts, wb));
			}
			c->now = t->last_ts;
			rc = conv_zone_pop(l, t, t->last_ts, CONV_EDGE_UNCLOSED);
		}
	}
	if (!rc && c->ops->finish)
		rc = c->ops->finish(c);
	return rc;
}

/* The first event fixes the trace's start and process (metadata and thread
 * definitions precede the events that use them). */
static void set_base(struct conv_loop *l, uint64_t first_ts, uint32_t first_tid)
{
	struct conv *c = &l->c;
	const struct profev_meta *m = profev_reader_meta(c->r);
	c->base = m && m->mono_start_ns && m->mono_start_ns <= first_ts ? m->mono_start_ns : first_ts;
	c->pid = m && m->pid ? m->pid : first_tid ? profev_reader_thread_pid(c->r, first_tid) : 0;
	if (!c->pid)
		c->pid = 1;
	c->program = m ? m->program : NULL;
	const struct profev_conv_opts *o = c->opts;
	l->from = c->base + o->from_ns;
	if (l->from < c->base)
		l->from = UINT64_MAX;
	l->to = o->to_ns == UINT64_MAX || c->base + o->to_ns < c->base ? UINT64_MAX
								    : c->base + o->to_ns;
	if (!o->from_ns)
		l->from = 0;
	l->based = 1;
	/* The same where the window starts. */
	if (o->from_ns && c->ops->memory) {
		l->snap = l->pending = 1;
		l->snap_ts = l->from;
	}
}

/* A corrupt trace's ids above the reader's tables are taken as none:
 * targets index tables by id, so a hostile one must not size them. */
static __attribute__((noinline)) int on_bad_ids(struct conv_loop *l, const struct profev_event *src)
{
	struct profev_event ev = *src;
	if (ev.name > l->nstr)
		ev.name = 0;
	if (ev.payload > l->nstr && has_category(ev.type))
		ev.payload = 0;
	l->text_src = src;
	int rc = on_event(l, &ev);
	l->text_src = NULL;
	return rc;
}

/* Convert a run of events from the reader; ids in it resolve against the
 * same tables (l->nstr strings). An output error is sticky and makes the
 * next reservation fail, so it is checked after the run, and progress is
 * reported there when the run passed a multiple of PROGRESS_EVERY events. */
static int run_events(struct conv_loop *l, const struct profev_event *ev, size_t n)
{
	struct conv *c = &l->c;
	const struct profev_conv_opts *opts = c->opts;
	uint64_t first = c->st.events_in;
	int split = opts->split_size != 0;
	int rc = 0;
	for (const struct profev_event *end = ev + n; ev < end; ev++) {
		c->st.events_in++;
		c->now = ev->ts;
		if (__builtin_expect(l->pending, 0) && (rc = before_event(l, ev->ts)))
			break;
		if (__builtin_expect(ev->name > l->nstr, 0) ||
		    __builtin_expect(ev->payload > l->nstr && has_category(ev->type), 0))
			rc = on_bad_ids(l, ev);
		else
			rc = on_event(l, ev);
		if (__builtin_expect(rc, 0) || (__builtin_expect(split, 0) && (rc = conv_maybe_split(l))))
			break;
	}
	if (!rc && c->out.err)
		rc = PROFEV_E_IO;
	if (!rc && opts->progress && first / PROGRESS_EVERY != c->st.events_in / PROGRESS_EVERY) {
		c->st.bytes_in = profev_reader_offset(c->r);
		c->st.bytes_out = bytes_out(l);
		opts->progress(opts->cb_ctx, &c->st);
	}
	return rc;
}

int profev_conv_run(struct profev_reader *r, const struct profev_conv_opts *opts,
		    const struct profev_conv_sink *sink, struct profev_conv_stats *stats,
		    struct profev_error *err)
{
	struct profev_error dummy;
	if (!err)
		err = &dummy;
	err_clear(err);
	if (stats)
		memset(stats, 0, sizeof(*stats));
	int rc = conv_check_opts(opts, sink, err);
	if (rc)
		return rc;

	struct conv_loop *l = calloc(1, sizeof(*l));
	if (!l) {
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		return PROFEV_E_NOMEM;
	}
	struct conv *c = &l->c;
	c->ops = conv_target(opts);
	c->opts = opts;
	c->r = r;
	l->sink = sink;
	u64_map_init(&l->track_index, sizeof(struct track_index_entry));
	u64_map_init(&l->live_blocks, sizeof(struct live_block));
	u64_map_init(&l->locks, sizeof(struct lock_history));
	l->to = UINT64_MAX;
	l->pending = 1;
	if (opts->thread) {
		char *end;
		unsigned long long v = strtoull(opts->thread, &end, 10);
		if (*opts->thread >= '0' && *opts->thread <= '9' && !*end && v && v <= UINT32_MAX)
			l->filter_tid = v;
	}
	if (opts->flags & PROFEV_CONV_COMPRESS) {
		rc = conv_zpack_new(&l->zpack, sink_write, (void *)sink);
		if (!rc)
			rc = outbuf_init(&c->out, OUT_BUFFER, conv_zpack_write, l->zpack);
	} else {
		rc = outbuf_init(&c->out, OUT_BUFFER, sink_write, (void *)sink);
	}
	if (!rc && c->ops->init)
		rc = c->ops->init(c);
	conv_gpu_start(l);

	int trace_rc = 0;
	const struct profev_event *evs = NULL;
	size_t nev = 0;
	while (!rc) {
		int n = profev_reader_next_events(r, &evs, &nev);
		if (n <= 0) {
			trace_rc = n;
			break;
		}
		l->gen++;
		l->nstr = profev_reader_string_count(r);
		if (!l->based)
			set_base(l, evs[0].ts, evs[0].tid);
		rc = run_events(l, evs, nev);
		if (!rc)
			rc = conv_gpu_flush(l, 0);
	}
	/* Whatever stopped the reading, finish the output: a cut trace still
	 * gives complete files of what was whole. */
	if (!rc && !l->based) {
		set_base(l, 0, 0);
		rc = conv_part_open(l);
	}
	if (!rc)
		rc = conv_gpu_flush(l, 1);
	if (!rc)
		rc = finish_trace(l);
	if (!rc && l->in_part)
		rc = conv_part_close(l);
	if (!rc && c->out.err)
		rc = PROFEV_E_IO;
	conv_warn_summary(l);

	c->st.bytes_in = profev_reader_offset(r);
	c->st.bytes_out = bytes_out(l);
	if (stats)
		*stats = c->st;
	if (rc == PROFEV_E_IO)
		err_set(err, rc, "unable to write the output");
	else if (rc == PROFEV_E_NOMEM)
		err_set(err, rc, "out of memory");
	else if (rc)
		err_set(err, rc, "conversion failed: %s", profev_strerror(rc));
	else if (trace_rc < 0) {
		*err = *profev_reader_error(r);
		rc = trace_rc;
	}
	if (c->ops->fini)
		c->ops->fini(c);
	outbuf_free(&c->out);
	conv_zpack_free(l->zpack);
	conv_tracks_free(l);
	conv_memory_free(l);
	conv_locks_free(l);
	conv_gpu_free(l);
	free(l);
	return rc;
}