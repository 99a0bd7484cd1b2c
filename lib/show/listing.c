/* pfdump's event listing: one line per event, as aligned text or JSONL,
 * in time order, with what each line needs from the events before it
 * (durations, lock names, a zone's arguments). listing_text.c and
 * listing_json.c write the lines. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/common.h"
#include "show/listing_state.h"
#include "show/gpu_stats.h"

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

static int point_add(struct pending *p, const struct profev_event *ev)
{
	if (array_grow((void **)&p->point, &p->point_cap, sizeof(*p->point), (uint64_t)p->npoint + 1))
		return -1;
	p->point[p->npoint++] = *ev;
	return 0;
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
	profev_event_window_view(&ev); /* a window's cut zones end and begin as zones */
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
		listing_json_event(d, &ev, &in, rel, has_duration, duration, pend);
	else
		listing_text_event(d, &ev, &in, rel, has_duration, duration);
	return d->o.err ? d->o.err : 1;
}

/* The reader's GPU zones join the window as GPU_ZONE events. */
static void on_gpu_zones(void *arg, const struct profev_gpu_zone *z, size_t n)
{
	struct dump *d = arg;
	if (!d->have_origin) {
		d->origin = profev_reader_meta(d->r)->mono_start_ns;
		d->have_origin = d->origin != 0;
		event_filter_start(&d->filter, d->origin);
	}
	if (gpu_zone_events(d->order, d->r, z, n))
		d->gpu_failed = 1;
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
	if (outbuf_init(&d.o, 1 << 16, listing_sink_file, out) || !(d.zones = zone_track_new()) ||
	    !(d.order = time_order_new(opts->window, opts->window_bytes))) {
		rc = PROFEV_E_NOMEM;
		goto out;
	}
	profev_reader_on_gpu_zones(r, on_gpu_zones, &d);
	while ((rc = profev_reader_next_event(r, &ev, &in)) > 0) {
		if (d.gpu_failed) {
			rc = PROFEV_E_NOMEM;
			break;
		}
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
	profev_reader_on_gpu_zones(r, NULL, NULL);
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
