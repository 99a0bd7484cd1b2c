/* Trace statistics (pfdump --stats): totals per type and thread, zone times
 * by name, memory per pool, and the bytes the trace takes on disk. */
#include <inttypes.h>
#include <stdlib.h>
#include "trace/trace_internal.h"
#include "common/u64_map.h"
#include "profev_dump.h"
#include "show/zone_track.h"
#include "show/sample_stats.h"
#include "show/frame_stats.h"
#include "show/frame_report.h"
#include "show/gpu_stats.h"

/* A block allocated and not yet freed, in the live map by address. */
struct live_block {
	uint64_t addr; /* the map's key */
	uint64_t size;
	uint32_t pool, stack;
};

/* A lock event, kept to be put in time order at the end: threads' events
 * interleave by batch in a trace, so file order is no time order. */
struct lock_ev {
	uint64_t ts, addr;
	uint32_t tid, name;
	uint32_t seq;    /* file order, to keep each thread's order on equal ts */
	uint8_t type;
};

struct collect {
	struct profev_stats *s;
	struct lock_ev *lockev;
	uint32_t nlockev, lockev_cap;
	struct zone_track *zones;
	struct sample_stats *samples;
	struct frame_stats *frames;
	struct gpu_stats *gpu;
	const struct profev_reader *r;
	uint32_t threads_cap, pools_cap;
	struct profev_zone_stat *by_name; /* indexed by name id */
	uint32_t by_name_cap;
	struct u64_map live;          /* struct live_block by address */
	int tick_known;               /* s->tick_ns set from the metadata */
	uint64_t short_ns;            /* zones under this are a few ticks long */
};

/* Zones shorter than this many ticks of the client's clock have durations
 * too coarse to compare: an arm64 counter at 24 MHz ticks every 42 ns. */
#define FEW_TICKS 4

static struct profev_pool_stat *pool(struct collect *c, uint32_t name)
{
	struct profev_stats *s = c->s;
	for (uint32_t i = 0; i < s->npools; i++)
		if (s->pools[i].name == name)
			return &s->pools[i];
	if (array_grow((void **)&s->pools, &c->pools_cap, sizeof(*s->pools), s->npools + 1))
		return NULL;
	struct profev_pool_stat *p = &s->pools[s->npools++];
	memset(p, 0, sizeof(*p));
	p->name = name;
	return p;
}

static int memory(struct collect *c, const struct profev_event *ev)
{
	if (ev->type == PROFEV_EV_MEM_ALLOC) {
		struct profev_pool_stat *p = pool(c, ev->name);
		if (!p)
			return -1;
		p->allocs++;
		p->alloc_bytes += ev->payload;
		p->live_bytes += ev->payload;
		if (p->live_bytes > p->peak_bytes)
			p->peak_bytes = p->live_bytes;
		if (!ev->addr)
			return 0;
		int added;
		struct live_block *b = u64_map_insert(&c->live, ev->addr, &added);
		if (!b)
			return -1;
		if (!added) { /* allocated twice without a free: the old one is gone */
			struct profev_pool_stat *old = pool(c, b->pool);
			if (old)
				old->live_bytes -= b->size;
		}
		*b = (struct live_block){ ev->addr, ev->payload, ev->name, ev->stack };
		return 0;
	}
	struct live_block *b = ev->addr ? u64_map_find(&c->live, ev->addr) : NULL;
	struct profev_pool_stat *p = pool(c, b ? b->pool : ev->name);
	if (!p)
		return -1;
	p->frees++;
	if (b) {
		p->freed_bytes += b->size;
		p->live_bytes -= b->size;
		u64_map_remove(&c->live, b);
	}
	return 0;
}

static int zone_end(struct collect *c, uint32_t ti, const struct profev_event *ev)
{
	uint32_t name;
	uint64_t begin;
	int had = zone_track_pop(c->zones, ti, &name, &begin);
	if (frame_stats_switch(c->frames, ti, ev->tid, ev->ts, had, name))
		return -1;
	if (!had) {
		c->s->unmatched_ends++;
		return 0;
	}
	/* Call sites have names of their own: count them under the shared one. */
	const struct profev_srcloc *loc = profev_reader_srcloc(c->r, name);
	if (loc && loc->name)
		name = loc->name;
	if (name >= c->by_name_cap &&
	    array_grow((void **)&c->by_name, &c->by_name_cap, sizeof(*c->by_name), (uint64_t)name + 1))
		return -1;
	struct profev_zone_stat *z = &c->by_name[name];
	uint64_t d = ev->ts >= begin ? ev->ts - begin : 0;
	if (sample_stats_zone(c->samples, ev->tid, name, begin, ev->ts))
		return -1;
	if (!c->tick_known) {
		double tpn = profev_reader_meta(c->r)->ticks_per_ns;
		c->s->tick_ns = tpn > 0 ? 1.0 / tpn : 1.0;
		c->short_ns = (uint64_t)(FEW_TICKS * c->s->tick_ns);
		c->tick_known = 1;
	}
	if (d < c->short_ns)
		c->s->short_zones++;
	if (!z->count || d < z->min_ns)
		z->min_ns = d;
	if (d > z->max_ns)
		z->max_ns = d;
	z->count++;
	z->total_ns += d;
	z->name = name;
	return 0;
}

static int by_group(const void *a, const void *b)
{
	const struct profev_leak *x = a, *y = b;
	if (x->pool != y->pool)
		return x->pool < y->pool ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int by_bytes(const void *a, const void *b)
{
	const struct profev_leak *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return by_group(a, b);
}

/* Groups the blocks still live by (pool, callstack), largest first. */
static int leaks(struct collect *c)
{
	struct profev_stats *s = c->s;
	if (!c->live.count)
		return 0;
	s->leaks = malloc(c->live.count * sizeof(*s->leaks));
	if (!s->leaks)
		return -1;
	uint64_t n = 0;
	for (const struct live_block *b = NULL; (b = u64_map_next(&c->live, b));)
		s->leaks[n++] = (struct profev_leak){ b->stack, b->pool, 1, b->size };
	qsort(s->leaks, n, sizeof(*s->leaks), by_group);
	uint64_t groups = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (groups && by_group(&s->leaks[groups - 1], &s->leaks[i]) == 0) {
			s->leaks[groups - 1].blocks++;
			s->leaks[groups - 1].bytes += s->leaks[i].bytes;
		} else {
			s->leaks[groups++] = s->leaks[i];
		}
	}
	qsort(s->leaks, groups, sizeof(*s->leaks), by_bytes);
	s->nleaks = (uint32_t)groups;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct lock_ev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_wait(const void *a, const void *b)
{
	const struct profev_lock_stat *x = a, *y = b;
	if (x->wait_total_ns != y->wait_total_ns)
		return x->wait_total_ns < y->wait_total_ns ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct lock_state {
	uint32_t holder;       /* tid, 0 = free */
	uint64_t since;
};

struct wait_state {
	uint32_t tid;
	uint64_t addr, ts;     /* addr 0: not waiting */
	int contended;
};

/* A lock's row in the map by address. */
struct lock_row {
	uint64_t addr;         /* the map's key */
	uint64_t index;        /* in s->locks and st */
};

static struct profev_lock_stat *lock_stat(struct profev_stats *s, struct u64_map *rows,
					  struct lock_state **st, uint32_t *cap, uint64_t addr)
{
	int added;
	struct lock_row *row = u64_map_insert(rows, addr, &added);
	if (!row)
		return NULL;
	if (!added)
		return &s->locks[row->index];
	if (array_grow((void **)&s->locks, cap, sizeof(*s->locks), (uint64_t)s->nlocks + 1))
		goto fail;
	struct lock_state *n = realloc(*st, (size_t)*cap * sizeof(**st));
	if (!n)
		goto fail;
	*st = n;
	memset(&n[s->nlocks], 0, sizeof(*n));
	row->index = s->nlocks;
	struct profev_lock_stat *l = &s->locks[s->nlocks++];
	memset(l, 0, sizeof(*l));
	l->addr = addr;
	return l;
fail:
	u64_map_remove(rows, row);
	return NULL;
}

static int add_waiter(struct profev_lock_stat *l, uint32_t tid)
{
	for (uint32_t i = 0; i < l->nwaiters; i++)
		if (l->waiters[i] == tid)
			return 0;
	uint32_t *w = realloc(l->waiters, (l->nwaiters + 1) * sizeof(*w));
	if (!w)
		return -1;
	l->waiters = w;
	w[l->nwaiters++] = tid;
	return 0;
}

/*
 * The lock table: the lock events in time order, each lock's holder and
 * each thread's wait followed through them. A wait is contended when
 * another thread held the lock as it began, or acquired it while it went
 * on. Locks are found by address in a map, threads' waits by a linear
 * search (threads that lock are few).
 */
static int lock_table(struct collect *c)
{
	struct profev_stats *s = c->s;
	struct lock_state *st = NULL;
	struct wait_state *ws = NULL;
	uint32_t cap = 0, nws = 0, wcap = 0;
	struct u64_map rows;
	int rc = -1;
	u64_map_init(&rows, sizeof(struct lock_row));
	if (c->nlockev) /* else lockev may be NULL, which qsort must not get */
		qsort(c->lockev, c->nlockev, sizeof(*c->lockev), by_time);
	for (uint32_t i = 0; i < c->nlockev; i++) {
		const struct lock_ev *e = &c->lockev[i];
		struct profev_lock_stat *l = lock_stat(s, &rows, &st, &cap, e->addr);
		if (!l)
			goto out;
		struct lock_state *ls = &st[l - s->locks];
		struct wait_state *w = NULL;
		for (uint32_t k = 0; k < nws; k++)
			if (ws[k].tid == e->tid)
				w = &ws[k];
		if (!w) {
			if (array_grow((void **)&ws, &wcap, sizeof(*ws), (uint64_t)nws + 1))
				goto out;
			w = &ws[nws++];
			*w = (struct wait_state){ e->tid, 0, 0, 0 };
		}
		switch (e->type) {
		case PROFEV_EV_LOCK_WAIT:
			if (!l->name)
				l->name = e->name;
			*w = (struct wait_state){ e->tid, e->addr, e->ts, ls->holder && ls->holder != e->tid };
			break;
		case PROFEV_EV_LOCK_ACQUIRED:
			l->acquisitions++;
			if (w->addr == e->addr) {
				uint64_t d = e->ts - w->ts;
				l->wait_total_ns += d;
				if (d > l->wait_max_ns)
					l->wait_max_ns = d;
				if (w->contended) {
					l->contended++;
					if (add_waiter(l, e->tid))
						goto out;
				}
			}
			w->addr = 0;
			for (uint32_t k = 0; k < nws; k++) /* overtaken while waiting */
				if (ws[k].addr == e->addr && ws[k].tid != e->tid)
					ws[k].contended = 1;
			*ls = (struct lock_state){ e->tid, e->ts };
			break;
		case PROFEV_EV_LOCK_RELEASED:
			if (ls->holder == e->tid) {
				uint64_t d = e->ts - ls->since;
				if (d > l->hold_max_ns)
					l->hold_max_ns = d;
				ls->holder = 0;
			}
			break;
		}
	}
	if (s->nlocks > 1)
		qsort(s->locks, s->nlocks, sizeof(*s->locks), by_wait);
	rc = 0;
out:
	u64_map_free(&rows);
	free(st);
	free(ws);
	return rc;
}

static int by_total(const void *a, const void *b)
{
	const struct profev_zone_stat *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int event(struct collect *c, const struct profev_event *raw)
{
	struct profev_stats *s = c->s;
	struct profev_event view = *raw;
	const struct profev_event *ev = &view;
	if (profev_event_window_view(&view)) {
		/* a window's cut zones count with their part inside it */
		if (view.type == PROFEV_EV_ZONE_BEGIN)
			s->zones_before++;
		else
			s->zones_after++;
	}
	int64_t ti = zone_track_thread(c->zones, ev->tid);
	if (ti < 0)
		return -1;
	if ((uint32_t)ti >= s->nthreads) {
		if (array_grow((void **)&s->threads, &c->threads_cap, sizeof(*s->threads), (uint64_t)ti + 1))
			return -1;
		s->nthreads = (uint32_t)ti + 1;
		s->threads[ti] = (struct profev_thread_stat){ .tid = ev->tid, .first_ts = ev->ts };
	}
	struct profev_thread_stat *t = &s->threads[ti];
	t->events++;
	/* Samples and switches reach the file in their own order. */
	if (ev->ts > t->last_ts)
		t->last_ts = ev->ts;
	if (ev->ts < t->first_ts)
		t->first_ts = ev->ts;
	if (!s->events) {
		uint64_t start = profev_reader_meta(c->r)->mono_start_ns;
		s->first_ts = ev->ts;
		s->origin_ts = start && start <= ev->ts ? start : ev->ts; /* as the listing's */
	}
	if (ev->ts < s->first_ts)
		s->first_ts = ev->ts;
	if (ev->ts > s->last_ts)
		s->last_ts = ev->ts;
	s->events++;
	s->by_type[raw->type <= PROFEV_EV_TYPE_MAX ? raw->type : 0]++;
	if (ev->type != PROFEV_EV_MEM_ALLOC && ev->type != PROFEV_EV_MEM_FREE &&
	    ev->type != PROFEV_EV_FRAME_IMAGE && (!s->have_frame || ev->frame < s->first_frame)) {
		s->first_frame = ev->frame;
		s->have_frame = 1;
	}
	switch (ev->type) {
	case PROFEV_EV_ZONE_BEGIN: {
		uint32_t outer = 0;
		t->zones++;
		int had = zone_track_push(c->zones, (uint32_t)ti, ev->name, ev->ts, &outer);
		if (had < 0 || frame_stats_switch(c->frames, (uint32_t)ti, ev->tid, ev->ts, had, outer))
			return -1;
		break;
	}
	case PROFEV_EV_ZONE_END:
		if (zone_end(c, (uint32_t)ti, ev))
			return -1;
		break;
	case PROFEV_EV_FRAME_MARK:
	case PROFEV_EV_FRAME_START:
	case PROFEV_EV_FRAME_END:
		if (frame_stats_mark(c->frames, ev))
			return -1;
		break;
	case PROFEV_EV_LOST:
		s->lost_events += ev->payload;
		return 0;
	case PROFEV_EV_CRASH:
		if (!s->crashes++)
			s->crash = *ev;
		return 0;
	case PROFEV_EV_TRIGGER:
		if (!s->triggers++)
			s->trigger = *ev;
		return 0;
	case PROFEV_EV_MEM_ALLOC:
	case PROFEV_EV_MEM_FREE:
		return memory(c, ev);
	case PROFEV_EV_ARG:
		if ((ev->flags & PROFEV_EVF_ZONE_NAME) && profev_event_arg_kind(ev) == PROFEV_AK_STR &&
		    ev->payload <= UINT32_MAX && profev_reader_string(c->r, (uint32_t)ev->payload)[0]) {
			/* Tracy's ZoneName: the zone counts under its new name */
			zone_track_rename(c->zones, (uint32_t)ti, (uint32_t)ev->payload);
			return 0;
		}
		s->args++;
		return 0;
	case PROFEV_EV_POINT_ARG:
		s->args++;
		return 0;
	case PROFEV_EV_FLOW_OUT:
	case PROFEV_EV_FLOW_IN:
		s->flows++;
		return 0;
	case PROFEV_EV_LOCK_WAIT:
	case PROFEV_EV_LOCK_ACQUIRED:
	case PROFEV_EV_LOCK_RELEASED:
		if (!ev->payload || c->nlockev == UINT32_MAX)
			return 0;
		if (array_grow((void **)&c->lockev, &c->lockev_cap, sizeof(*c->lockev), (uint64_t)c->nlockev + 1))
			return -1;
		c->lockev[c->nlockev] = (struct lock_ev){ ev->ts, ev->payload, ev->tid, ev->name, c->nlockev,
							  ev->type };
		c->nlockev++;
		return 0;
	}
	return sample_stats_event(c->samples, c->r, c->zones, ev);
}

int profev_stats_collect(struct profev_reader *r, struct profev_stats **out)
{
	struct collect c = { .r = r };
	struct profev_chunk ch;
	u64_map_init(&c.live, sizeof(struct live_block));
	int rc;
	*out = NULL;
	c.s = calloc(1, sizeof(*c.s));
	c.zones = zone_track_new();
	c.samples = sample_stats_new();
	c.frames = frame_stats_new(r);
	c.gpu = gpu_stats_new();
	c.r = r;
	if (!c.s || !c.zones || !c.samples || !c.frames || !c.gpu) {
		gpu_stats_free(c.gpu);
		free(c.s);
		zone_track_free(c.zones);
		sample_stats_free(c.samples);
		frame_stats_free(c.frames);
		return PROFEV_E_NOMEM;
	}
	profev_reader_on_gpu_zones(r, gpu_stats_zones, c.gpu);
	while ((rc = profev_reader_next_chunk(r, &ch)) > 0) {
		c.s->chunks++;
		if (ch.kind == PROFEV_CHUNK_IMAGE) {
			if (ch.image) {
				c.s->images++;
				c.s->image_stored_bytes += ch.stored_total;
				c.s->image_raw_bytes += (uint64_t)ch.image->width * ch.image->height * 4;
			}
			continue;
		}
		if (!ch.raw)
			c.s->unknown_chunks++;
		if (ch.kind != PROFEV_CHUNK_EVENTS)
			continue;
		c.s->event_chunks++;
		c.s->event_stored_bytes += ch.stored_total;
		for (uint32_t i = 0; i < ch.nevents; i++) {
			if (event(&c, &ch.events[i])) {
				rc = PROFEV_E_NOMEM;
				goto done;
			}
		}
	}
	if (rc == 0)
		c.s->chunks++, c.s->complete = 1; /* the end chunk */
done:
	c.s->bytes = profev_reader_offset(r);
	c.s->lost_images = profev_reader_lost_images(r) + profev_reader_meta(r)->lost_images;
	c.s->unclosed_zones = zone_track_open(c.zones);
	for (uint32_t i = 0; i < c.by_name_cap; i++)
		if (c.by_name[i].count)
			c.by_name[c.s->nzones++] = c.by_name[i];
	if (c.s->nzones > 1)
		qsort(c.by_name, c.s->nzones, sizeof(*c.by_name), by_total);
	c.s->zones = c.by_name;
	if (leaks(&c) && rc >= 0)
		rc = PROFEV_E_NOMEM;
	if (sample_stats_finish(c.samples, c.zones, c.s) && rc >= 0)
		rc = PROFEV_E_NOMEM;
	sample_stats_free(c.samples);
	if (frame_stats_finish(c.frames, c.s) && rc >= 0)
		rc = PROFEV_E_NOMEM;
	frame_stats_free(c.frames);
	profev_reader_on_gpu_zones(r, NULL, NULL);
	if (gpu_stats_finish(c.gpu, r, c.s) && rc >= 0)
		rc = PROFEV_E_NOMEM;
	gpu_stats_free(c.gpu);
	if (lock_table(&c) && rc >= 0)
		rc = PROFEV_E_NOMEM;
	c.s->dropped_args = profev_reader_meta(r)->dropped_args;
	free(c.lockev);
	zone_track_free(c.zones);
	u64_map_free(&c.live);
	*out = c.s;
	return rc;
}

static void ended(const struct profev_meta *m, int complete, FILE *out)
{
	switch (m->exit_kind) {
	case PROFEV_EXIT_EXITED:
		fprintf(out, "exited with status %d\n", m->exit_code);
		return;
	case PROFEV_EXIT_SIGNALED:
		fprintf(out, "killed by signal %d (%s)\n", m->exit_code, strsignal(m->exit_code));
		return;
	case PROFEV_EXIT_NOSTART:
		fprintf(out, "could not be started: %s\n", strerror(m->exit_code));
		return;
	}
	fprintf(out, "%s\n", !complete ? "unknown: the trace is cut"
			      : m->end_ns ? "not recorded: the recording stopped before the program's end"
					  : "not recorded");
}

static int by_total_samples(const void *a, const void *b)
{
	const struct profev_func_stat *x = *(const struct profev_func_stat *const *)a;
	const struct profev_func_stat *y = *(const struct profev_func_stat *const *)b;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void funcs_write(const struct profev_stats *s, const struct profev_func_stat *const *by,
			unsigned top, FILE *out)
{
	fprintf(out, "  %10s %7s %10s %7s  %s\n", "self", "", "total", "", "function");
	for (uint32_t i = 0; i < s->nfuncs && i < top; i++)
		fprintf(out, "  %10" PRIu64 " %6.2f%% %10" PRIu64 " %6.2f%%  %s\n", by[i]->self,
			100.0 * (double)by[i]->self / (double)s->samples, by[i]->total,
			100.0 * (double)by[i]->total / (double)s->samples, by[i]->name);
}

static void samples_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			  unsigned top)
{
	char a[32], b[32];
	if (!s->nsched)
		return;
	fprintf(out, "\nsamples and CPU time by thread (%" PRIu64 " samples, %" PRIu64 " lost):\n", s->samples,
		s->lost_samples);
	fprintf(out, "  %-8s %-24s %10s %12s %12s %10s %10s\n", "tid", "name", "samples", "on CPU",
		"off CPU", "switches", "preempted");
	for (uint32_t i = 0; i < s->nsched; i++) {
		const struct profev_sched_stat *t = &s->sched[i];
		duration_text(a, sizeof(a), t->on_ns);
		duration_text(b, sizeof(b), t->off_ns);
		fprintf(out, "  %-8u %-24.24s %10" PRIu64 " %12s %12s %10" PRIu64 " %10" PRIu64 "\n", t->tid,
			profev_reader_thread_name(r, t->tid), t->samples, t->switches ? a : "-",
			t->switches ? b : "-", t->switches, t->preempted);
	}
	const struct profev_func_stat **by = s->nfuncs && s->samples ? malloc(s->nfuncs * sizeof(*by)) : NULL;
	if (by) {
		for (uint32_t i = 0; i < s->nfuncs; i++)
			by[i] = &s->funcs[i];
		fprintf(out, "\ntop functions by self samples:\n");
		funcs_write(s, by, top, out);
		qsort(by, s->nfuncs, sizeof(*by), by_total_samples);
		fprintf(out, "\ntop functions by total samples:\n");
		funcs_write(s, by, top, out);
		free(by);
	}
	int any = 0;
	for (uint32_t i = 0; i < s->nsched; i++) {
		const struct profev_sched_stat *t = &s->sched[i];
		for (uint32_t k = 0; k < t->nlongest; k++) {
			const struct profev_offcpu *o = &t->longest[k];
			if (!any++)
				fprintf(out, "\nlongest stretches off CPU:\n  %-8s %-24s %14s %12s %-9s  %s\n", "tid",
					"name", "at", "off for", "why", "in zone");
			duration_text(a, sizeof(a), o->ns);
			uint64_t at = o->ts >= s->first_ts ? o->ts - s->first_ts : 0;
			fprintf(out, "  %-8u %-24.24s %4" PRIu64 ".%09" PRIu64 " %12s %-9s  %s\n", t->tid,
				profev_reader_thread_name(r, t->tid), at / 1000000000u, at % 1000000000u, a,
				o->preempted ? "preempted" : "blocked",
				!o->zone_known ? "?" : o->zone ? profev_reader_string(r, o->zone) : "-");
		}
	}
}

static void lock_rows(const struct profev_stats *s, const struct profev_reader *r, FILE *out)
{
	char a[32], b[32], c[32];
	fprintf(out, "\nlocks by total wait:\n  %-20s %10s %10s %12s %12s %12s  %s\n", "name", "acquired",
		"contended", "total wait", "longest wait", "longest hold", "threads that waited");
	for (uint32_t i = 0; i < s->nlocks; i++) {
		const struct profev_lock_stat *l = &s->locks[i];
		char name[40];
		if (l->name)
			snprintf(name, sizeof name, "%.20s", profev_reader_string(r, l->name));
		else
			snprintf(name, sizeof name, "0x%" PRIx64, l->addr);
		duration_text(a, sizeof(a), l->wait_total_ns);
		duration_text(b, sizeof(b), l->wait_max_ns);
		duration_text(c, sizeof(c), l->hold_max_ns);
		fprintf(out, "  %-20.20s %10" PRIu64 " %10" PRIu64 " %12s %12s %12s ", name, l->acquisitions,
			l->contended, a, b, c);
		for (uint32_t k = 0; k < l->nwaiters; k++) {
			const char *tn = profev_reader_thread_name(r, l->waiters[k]);
			if (tn[0])
				fprintf(out, " %u (%s)", l->waiters[k], tn);
			else
				fprintf(out, " %u", l->waiters[k]);
		}
		fprintf(out, "%s\n", l->nwaiters ? "" : " -");
	}
}

/* Where the program crashed: the signal, the thread, and the innermost
 * frame (its function once the trace is symbolized). */
static void crash_line(const struct profev_stats *s, const struct profev_reader *r, FILE *out)
{
	const struct profev_event *ev = &s->crash;
	const char *thread = profev_reader_thread_name(r, ev->tid);
	fprintf(out, "crash:        %s", profev_reader_string(r, ev->name));
	if (ev->payload)
		fprintf(out, " at 0x%" PRIx64, ev->payload);
	fprintf(out, " on thread %u%s%s%s", ev->tid, thread[0] ? " (" : "", thread, thread[0] ? ")" : "");
	unsigned n = 0, ns = 0;
	const struct profev_frame *f = ev->stack ? profev_reader_stack(r, ev->stack, &n) : NULL;
	if (f && n && !(f->flags & PROFEV_FRAMEF_NOMODULE)) {
		const struct profev_symframe *sym = profev_reader_symbol(r, f->module, f->offset, &ns);
		const struct profev_module *m = profev_reader_module(r, f->module);
		const char *path = m ? m->path : "?", *base = strrchr(path, '/');
		if (ns && sym[0].function)
			fprintf(out, " in %s", sym[0].function);
		else
			fprintf(out, " in %s+0x%" PRIx64, base ? base + 1 : path, f->offset);
	}
	if (s->crashes > 1)
		fprintf(out, " (and %" PRIu64 " more)", s->crashes - 1);
	fputc('\n', out);
}

/* A recording window: where it lies in the run, what came before it, its
 * trigger and the zones it cut. */
static void window_lines(const struct profev_stats *s, const struct profev_reader *r, FILE *out)
{
	const struct profev_meta *m = profev_reader_meta(r);
	if (m->ring_window_end_ns > m->ring_window_start_ns) {
		uint64_t a = m->ring_window_start_ns - s->origin_ts, b = m->ring_window_end_ns - s->origin_ts;
		if (m->ring_window_start_ns < s->origin_ts)
			a = 0, b = m->ring_window_end_ns > s->origin_ts ? b : 0;
		fprintf(out, "window:       %" PRIu64 ".%03" PRIu64 " s to %" PRIu64 ".%03" PRIu64
			" s of the run (snapshot %" PRIu64 "), %" PRIu64 " frames before it, %" PRIu64
			" events let go by the ring\n", a / 1000000000u, a / 1000000u % 1000, b / 1000000000u,
			b / 1000000u % 1000, m->ring_snapshot, s->have_frame ? s->first_frame : 0,
			m->ring_let_go_events);
	} else if (s->zones_before) {
		fprintf(out, "window:       %" PRIu64 " frames before it\n", s->have_frame ? s->first_frame : 0);
	}
	if (s->triggers) {
		const struct profev_event *ev = &s->trigger;
		uint64_t at = ev->ts >= s->origin_ts ? ev->ts - s->origin_ts : 0;
		const char *thread = profev_reader_thread_name(r, ev->tid);
		fprintf(out, "trigger:      '%s' at %" PRIu64 ".%03" PRIu64 " s on thread %u%s%s%s",
			profev_reader_string(r, ev->name), at / 1000000000u, at / 1000000u % 1000, ev->tid,
			thread[0] ? " (" : "", thread, thread[0] ? ")" : "");
		if (ev->payload)
			fprintf(out, " (snapshot %" PRIu64 ")", ev->payload);
		else
			fputs(" (no snapshot)", out);
		if (s->triggers > 1)
			fprintf(out, " and %" PRIu64 " more", s->triggers - 1);
		fputc('\n', out);
	}
	if (s->zones_before || s->zones_after)
		fprintf(out, "cut zones:    %" PRIu64 " begun before the window, %" PRIu64
			" still open at its end (their times count the part inside it)\n",
			s->zones_before, s->zones_after);
}

void profev_stats_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			unsigned top_zones)
{
	struct profev_stats_style plain = { top_zones, 0, 0 };
	profev_stats_print(s, r, out, &plain);
}

void profev_stats_print(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			const struct profev_stats_style *style)
{
	unsigned top_zones = style->top;
	const struct profev_meta *m = profev_reader_meta(r);
	unsigned major, minor;
	char a[32], b[32], c[32], d[32];
	profev_reader_version(r, &major, &minor);
	fprintf(out, "format:       %u.%u%s\n", major, minor, s->complete ? "" : " (cut: no end chunk)");
	if (m->program) {
		fprintf(out, "program:      ");
		for (uint32_t i = 0; i < m->argc; i++)
			fprintf(out, "%s%s", i ? " " : "", m->argv[i]);
		if (!m->argc)
			fputs(m->program, out);
		fputc('\n', out);
	}
	if (m->pid || m->host)
		fprintf(out, "process:      pid %u on %s\n", m->pid, m->host ? m->host : "?");
	if (m->recorder)
		fprintf(out, "recorder:     %s, clock %s\n", m->recorder, m->clock ? m->clock : "?");
	fprintf(out, "ended:        ");
	ended(m, s->complete, out);
	if (s->crashes)
		crash_line(s, r, out);
	window_lines(s, r, out);
	duration_text(a, sizeof(a), s->events ? s->last_ts - s->first_ts : 0);
	fprintf(out, "duration:     %s (first to last event)\n", a);
	fprintf(out, "events:       %" PRIu64 " in %" PRIu64 " chunks (%" PRIu64 " events chunks)\n",
		s->events, s->chunks, s->event_chunks);
	fprintf(out, "on disk:      %" PRIu64 " bytes, %.3f bytes/event (events chunks %.3f)\n", s->bytes,
		s->events ? (double)s->bytes / s->events : 0.0,
		s->events ? (double)s->event_stored_bytes / s->events : 0.0);
	fprintf(out, "compression:  %.1fx against %zu-byte event records\n",
		s->event_stored_bytes ? (double)s->events * sizeof(struct profev_event) / s->event_stored_bytes : 0.0,
		sizeof(struct profev_event));
	if (s->unknown_chunks)
		fprintf(out, "skipped:      %" PRIu64 " chunks of kinds unknown to this reader\n",
			s->unknown_chunks);
	uint64_t lost = s->lost_events > m->lost_events ? s->lost_events : m->lost_events;
	fprintf(out, "lost events:  %" PRIu64 "\n", lost);
	if (s->args || s->dropped_args)
		fprintf(out, "arguments:    %" PRIu64 " recorded, %" PRIu64 " dropped (no zone open)\n", s->args,
			s->dropped_args);
	if (s->images || s->lost_images || m->refused_images) {
		fprintf(out, "images:       %" PRIu64 " stored, %" PRIu64 " lost, %" PRIu64 " refused", s->images,
			s->lost_images, m->refused_images);
		if (s->images)
			fprintf(out, "; %.0f bytes/image on disk, %.1fx smaller than RGBA",
				(double)s->image_stored_bytes / (double)s->images,
				s->image_stored_bytes ? (double)s->image_raw_bytes / (double)s->image_stored_bytes : 0.0);
		fputc('\n', out);
	}
	if (s->unmatched_ends || s->unclosed_zones)
		fprintf(out, "zones:        %" PRIu64 " ends without a begin, %" PRIu64 " never closed\n",
			s->unmatched_ends, s->unclosed_zones);

	if (s->short_zones && s->tick_ns >= 10.0)
		fprintf(out, "warning:      %" PRIu64 " zones last under %d ticks of the %s clock (%.1f ns a "
			     "tick): their durations are that coarse\n",
			s->short_zones, FEW_TICKS, m->clock ? m->clock : "client's", s->tick_ns);

	fprintf(out, "\nevents by type:\n");
	for (unsigned t = 0; t <= PROFEV_EV_TYPE_MAX; t++)
		if (s->by_type[t])
			fprintf(out, "  %-14s %10" PRIu64 "\n", t ? profev_event_type_name(t) : "unknown", s->by_type[t]);

	fprintf(out, "\nthreads:\n  %-8s %-24s %12s %12s %12s\n", "tid", "name", "events", "zones", "active");
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct profev_thread_stat *t = &s->threads[i];
		duration_text(a, sizeof(a), t->last_ts - t->first_ts);
		fprintf(out, "  %-8u %-24.24s %12" PRIu64 " %12" PRIu64 " %12s\n", t->tid,
			profev_reader_thread_name(r, t->tid), t->events, t->zones, a);
	}

	frame_report_write(s, r, out, style);
	if (s->nzones) {
		fprintf(out, "\ntop zones by total time:\n  %-24s %10s %12s %12s %12s %12s\n", "name", "count",
			"total", "mean", "min", "max");
		for (uint32_t i = 0; i < s->nzones && i < top_zones; i++) {
			const struct profev_zone_stat *z = &s->zones[i];
			duration_text(a, sizeof(a), z->total_ns);
			duration_text(b, sizeof(b), z->total_ns / z->count);
			duration_text(c, sizeof(c), z->min_ns);
			duration_text(d, sizeof(d), z->max_ns);
			fprintf(out, "  %-24.24s %10" PRIu64 " %12s %12s %12s %12s\n",
				profev_reader_string(r, z->name), z->count, a, b, c, d);
		}
	}
	samples_write(s, r, out, top_zones);
	if (s->npools) {
		fprintf(out, "\nmemory by pool:\n  %-16s %10s %10s %14s %14s %14s\n", "pool", "allocs", "frees",
			"allocated", "peak live", "live at end");
		for (uint32_t i = 0; i < s->npools; i++) {
			const struct profev_pool_stat *p = &s->pools[i];
			fprintf(out, "  %-16.16s %10" PRIu64 " %10" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n",
				p->name ? profev_reader_string(r, p->name) : "(default)", p->allocs, p->frees,
				p->alloc_bytes, p->peak_bytes, p->live_bytes);
		}
	}
	if (s->nlocks)
		lock_rows(s, r, out);
	gpu_report_write(s, r, out, top_zones);
}

void profev_stats_free(struct profev_stats *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nlocks; i++)
		free(s->locks[i].waiters);
	free(s->locks);
	free(s->threads);
	free(s->zones);
	free(s->pools);
	free(s->leaks);
	free(s->gpus);
	free(s->gpu_zones);
	sample_stats_release(s);
	frame_stats_release(s);
	free(s);
}
