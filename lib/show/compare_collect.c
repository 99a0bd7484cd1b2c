/* One trace's side of pfdump --compare: every zone's duration by the name
 * id it ended under (a call site's own id, or a run-time name), every
 * frame's time by frame set, allocations by callstack. At the end the ids
 * become text, so that two traces' names can meet. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "common/u64_map.h"
#include "show/compare.h"
#include "show/zone_track.h"

struct vec {
	uint64_t *v;
	uint64_t n, cap;
};

/* A frame set being read: its durations and the frame begun. */
struct fset {
	uint32_t name;
	int discontinuous, open;
	uint64_t start;
	struct vec d;
};

struct stack_use {
	uint64_t count, bytes;
};

struct gather {
	const struct profev_reader *r;
	struct zone_track *zones;
	struct vec *by_id;         /* zone durations by name id */
	uint32_t nid;
	struct fset *sets;
	uint32_t nsets, capsets;
	struct stack_use *by_stack; /* by callstack id */
	uint32_t nstack;
	uint64_t mem_events;
};

static int vec_add(struct vec *v, uint64_t x)
{
	if (__builtin_expect(v->n == v->cap, 0)) {
		uint64_t cap = v->cap ? v->cap * 2 : 64;
		uint64_t *p = realloc(v->v, cap * sizeof(*p));
		if (!p)
			return -1;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

/* Grow an array of elem-sized entries indexed by id to hold id, zeroed. */
static int grow_to(void **p, uint32_t *n, size_t elem, uint32_t id)
{
	if (id < *n)
		return 0;
	uint64_t want = *n ? *n : 64;
	while (want <= id)
		want *= 2;
	if (want > UINT32_MAX)
		return -1;
	void *q = realloc(*p, want * elem);
	if (!q)
		return -1;
	memset((char *)q + *n * elem, 0, (want - *n) * elem);
	*p = q;
	*n = (uint32_t)want;
	return 0;
}

static int frame_event(struct gather *g, const struct profev_event *ev)
{
	int discontinuous = ev->type != PROFEV_EV_FRAME_MARK;
	struct fset *s = NULL;
	for (uint32_t i = 0; i < g->nsets; i++)
		if (g->sets[i].name == ev->name && g->sets[i].discontinuous == discontinuous)
			s = &g->sets[i];
	if (!s) {
		if (array_grow((void **)&g->sets, &g->capsets, sizeof(*g->sets), (uint64_t)g->nsets + 1))
			return -1;
		s = &g->sets[g->nsets++];
		memset(s, 0, sizeof(*s));
		s->name = ev->name;
		s->discontinuous = discontinuous;
	}
	/* as pfdump --stats: a mark before the frame it would end is ignored */
	if (s->open && ev->ts < s->start)
		return 0;
	if (s->open && vec_add(&s->d, ev->ts - s->start))
		return -1;
	if (ev->type == PROFEV_EV_FRAME_END) {
		s->open = 0;
		return 0;
	}
	s->open = 1;
	s->start = ev->ts;
	return 0;
}

static int event(struct gather *g, const struct profev_event *ev)
{
	int64_t ti;
	uint32_t name, stack;
	uint64_t begin;
	switch (ev->type) {
	case PROFEV_EV_ZONE_BEGIN:
		ti = zone_track_thread(g->zones, ev->tid);
		return ti < 0 || zone_track_push(g->zones, (uint32_t)ti, ev->name, ev->ts, NULL) < 0 ? -1 : 0;
	case PROFEV_EV_ZONE_END:
		ti = zone_track_thread(g->zones, ev->tid);
		if (ti < 0)
			return -1;
		if (!zone_track_pop(g->zones, (uint32_t)ti, &name, &begin))
			return 0;
		if (name > profev_reader_string_count(g->r)) /* only in a corrupt trace */
			name = 0;
		if (grow_to((void **)&g->by_id, &g->nid, sizeof(*g->by_id), name))
			return -1;
		return vec_add(&g->by_id[name], ev->ts >= begin ? ev->ts - begin : 0);
	case PROFEV_EV_FRAME_MARK:
	case PROFEV_EV_FRAME_START:
	case PROFEV_EV_FRAME_END:
		return frame_event(g, ev);
	case PROFEV_EV_MEM_ALLOC:
		g->mem_events++;
		stack = ev->stack <= profev_reader_stack_count(g->r) ? ev->stack : 0;
		if (grow_to((void **)&g->by_stack, &g->nstack, sizeof(*g->by_stack), stack))
			return -1;
		g->by_stack[stack].count++;
		g->by_stack[stack].bytes += ev->payload;
		return 0;
	case PROFEV_EV_MEM_FREE:
		g->mem_events++;
		return 0;
	case PROFEV_EV_ARG:
		if ((ev->flags & PROFEV_EVF_ZONE_NAME) && profev_event_arg_kind(ev) == PROFEV_AK_STR &&
		    ev->payload <= UINT32_MAX && profev_reader_string(g->r, (uint32_t)ev->payload)[0]) {
			/* Tracy's ZoneName: the zone counts under its new name */
			ti = zone_track_thread(g->zones, ev->tid);
			if (ti < 0)
				return -1;
			zone_track_rename(g->zones, (uint32_t)ti, (uint32_t)ev->payload);
		}
		return 0;
	}
	return 0;
}

/* ---- the side as text --------------------------------------------------- */

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* A callstack as "f <- g <- h", innermost first: functions where pfsym
 * has run, else module+0xoffset. */
static char *stack_text(const struct profev_reader *r, uint32_t id)
{
	unsigned n;
	const struct profev_frame *f = profev_reader_stack(r, id, &n);
	if (!id || !f || !n)
		return dup_str("(no callstack)");
	struct buf b = { 0 };
	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;
		const struct profev_symframe *sym = profev_reader_symbol(r, f[i].module, f[i].offset, &k);
		for (unsigned j = 0; j < (sym ? k : 1); j++) {
			char part[512];
			if (sym && sym[j].function) {
				snprintf(part, sizeof part, "%s", sym[j].function);
			} else {
				const struct profev_module *m = profev_reader_module(r, f[i].module);
				const char *path = m && m->path ? m->path : "?";
				snprintf(part, sizeof part, "%s+0x%" PRIx64, basename_of(path), f[i].offset);
			}
			if ((b.len && buf_put(&b, " <- ", 4)) || buf_put(&b, part, strlen(part))) {
				buf_free(&b);
				return NULL;
			}
		}
	}
	if (buf_put(&b, "", 1)) {
		buf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}

static int by_series(const void *x, const void *y)
{
	const struct cmp_series *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	return strcmp(a->where ? a->where : "", b->where ? b->where : "");
}

static int by_stack(const void *x, const void *y)
{
	return strcmp(((const struct cmp_alloc *)x)->stack, ((const struct cmp_alloc *)y)->stack);
}

static int finish(struct gather *g, struct profev_compare_side *s)
{
	const struct profev_reader *r = g->r;
	uint64_t most = 0;
	for (uint32_t i = 0; i < g->nsets; i++)
		if (g->sets[i].d.n > most)
			most = g->sets[i].d.n;
	for (uint32_t i = 0; i < g->nid; i++)
		if (g->by_id[i].n > most)
			most = g->by_id[i].n;
	uint64_t *scratch = most ? malloc(most * sizeof(*scratch)) : NULL;
	if (most && !scratch)
		return -1;
	/* frame sets */
	s->frames = g->nsets ? calloc(g->nsets, sizeof(*s->frames)) : NULL;
	if (g->nsets && !s->frames)
		goto nomem;
	for (uint32_t i = 0; i < g->nsets; i++) {
		struct fset *f = &g->sets[i];
		char name[4096];
		snprintf(name, sizeof name, "%s%s", profev_reader_string(r, f->name),
			 f->discontinuous ? " (start/end)" : "");
		struct cmp_series *c = &s->frames[s->nframes++];
		c->name = dup_str(name);
		c->v = f->d.v;
		c->n = f->d.n;
		c->owned = 1;
		f->d.v = NULL;
		if (!c->name)
			goto nomem;
		compare_sort(c->v, c->n, scratch);
	}
	if (s->nframes > 1)
		qsort(s->frames, s->nframes, sizeof(*s->frames), by_series);
	/* zone times: one raw vector per id that ended a zone */
	uint32_t ids = 0;
	for (uint32_t i = 0; i < g->nid; i++)
		ids += g->by_id[i].n > 0;
	s->raw = ids ? calloc(ids, sizeof(*s->raw)) : NULL;
	struct cmp_series *all = ids ? calloc(ids, sizeof(*all)) : NULL;
	if (ids && (!s->raw || !all)) {
		free(all);
		goto nomem;
	}
	uint32_t nsites = 0;
	for (uint32_t i = 0; i < g->nid; i++) {
		struct vec *v = &g->by_id[i];
		if (!v->n)
			continue;
		compare_sort(v->v, v->n, scratch);
		struct cmp_series *c = &all[s->nraw];
		s->raw[s->nraw++] = v->v;
		c->v = v->v;
		c->n = v->n;
		v->v = NULL;
		const struct profev_srcloc *loc = profev_reader_srcloc(r, i);
		c->name = dup_str(profev_reader_string(r, loc && loc->name ? loc->name : i));
		if (!c->name)
			goto nomem_all;
		if (loc) {
			char where[4096];
			const char *fn = profev_reader_string(r, loc->function);
			const char *file = profev_reader_string(r, loc->file);
			snprintf(where, sizeof where, "%s%s%s:%" PRIu32, fn, *fn ? " " : "", *file ? file : "?", loc->line);
			c->where = dup_str(where);
			if (!c->where)
				goto nomem_all;
			nsites++;
		}
	}
	if (s->nraw > 1)
		qsort(all, s->nraw, sizeof(*all), by_series);
	/* sites: the raw vectors with a location */
	s->sites = nsites ? calloc(nsites, sizeof(*s->sites)) : NULL;
	s->zones = s->nraw ? calloc(s->nraw, sizeof(*s->zones)) : NULL;
	if ((nsites && !s->sites) || (s->nraw && !s->zones))
		goto nomem_all;
	for (uint32_t i = 0; i < s->nraw; i++) {
		if (all[i].where) {
			s->sites[s->nsites] = all[i];
			all[i].where = NULL; /* the site's now */
			s->sites[s->nsites].name = dup_str(all[i].name);
			if (!s->sites[s->nsites++].name)
				goto nomem_all;
		}
	}
	/* zones by name: the raw vectors of one name, merged when several */
	for (uint32_t i = 0; i < s->nraw;) {
		uint32_t k = i + 1;
		uint64_t n = all[i].n;
		while (k < s->nraw && strcmp(all[k].name, all[i].name) == 0)
			n += all[k++].n;
		struct cmp_series *z = &s->zones[s->nzones++];
		z->name = all[i].name;
		all[i].name = NULL;
		z->n = n;
		if (k == i + 1) {
			z->v = all[i].v;
		} else {
			z->v = malloc(n * sizeof(*z->v));
			if (!z->v)
				goto nomem_all;
			z->owned = 1;
			if (n > most) {
				uint64_t *t = realloc(scratch, n * sizeof(*scratch));
				if (!t)
					goto nomem_all;
				scratch = t;
				most = n;
			}
			uint64_t at = 0;
			for (uint32_t j = i; j < k; j++) {
				memcpy(z->v + at, all[j].v, all[j].n * sizeof(*z->v));
				at += all[j].n;
			}
			compare_sort(z->v, n, scratch);
		}
		i = k;
	}
	for (uint32_t i = 0; i < s->nraw; i++) {
		free(all[i].name);
		free(all[i].where);
	}
	free(all);
	all = NULL;
	/* allocations by callstack text */
	uint32_t stacks = 0;
	for (uint32_t i = 0; i < g->nstack; i++)
		stacks += g->by_stack[i].count > 0;
	s->mem_events = g->mem_events;
	s->allocs = stacks ? calloc(stacks, sizeof(*s->allocs)) : NULL;
	if (stacks && !s->allocs)
		goto nomem;
	for (uint32_t i = 0; i < g->nstack; i++) {
		if (!g->by_stack[i].count)
			continue;
		struct cmp_alloc *a = &s->allocs[s->nallocs];
		a->stack = stack_text(r, i);
		if (!a->stack)
			goto nomem;
		a->count = g->by_stack[i].count;
		a->bytes = g->by_stack[i].bytes;
		s->nallocs++;
	}
	if (s->nallocs > 1)
		qsort(s->allocs, s->nallocs, sizeof(*s->allocs), by_stack);
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->nallocs; i++) { /* stacks that read the same */
		if (k && strcmp(s->allocs[k - 1].stack, s->allocs[i].stack) == 0) {
			s->allocs[k - 1].count += s->allocs[i].count;
			s->allocs[k - 1].bytes += s->allocs[i].bytes;
			free(s->allocs[i].stack);
		} else {
			s->allocs[k++] = s->allocs[i];
		}
	}
	s->nallocs = k;
	free(scratch);
	return 0;
nomem_all:
	if (all) {
		for (uint32_t i = 0; i < s->nraw; i++) {
			free(all[i].name);
			free(all[i].where);
		}
		free(all);
	}
nomem:
	free(scratch);
	return -1;
}

void profev_compare_side_free(struct profev_compare_side *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nframes; i++) {
		free(s->frames[i].name);
		free(s->frames[i].v);
	}
	free(s->frames);
	for (uint32_t i = 0; i < s->nzones; i++) {
		free(s->zones[i].name);
		if (s->zones[i].owned)
			free(s->zones[i].v);
	}
	free(s->zones);
	for (uint32_t i = 0; i < s->nsites; i++) {
		free(s->sites[i].name);
		free(s->sites[i].where);
	}
	free(s->sites);
	for (uint32_t i = 0; i < s->nallocs; i++)
		free(s->allocs[i].stack);
	free(s->allocs);
	for (uint32_t i = 0; i < s->nraw; i++)
		free(s->raw[i]);
	free(s->raw);
	free(s);
}

int profev_compare_collect(struct profev_reader *r, struct profev_compare_side **out)
{
	struct gather g = { .r = r };
	*out = calloc(1, sizeof(**out));
	g.zones = zone_track_new();
	if (!*out || !g.zones) {
		free(*out);
		*out = NULL;
		zone_track_free(g.zones);
		return PROFEV_E_NOMEM;
	}
	const struct profev_event *evs;
	size_t n;
	int rc;
	while ((rc = profev_reader_next_events(r, &evs, &n)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (event(&g, &evs[i])) {
				rc = PROFEV_E_NOMEM;
				goto done;
			}
		}
	}
done:
	if (finish(&g, *out) && rc >= 0)
		rc = PROFEV_E_NOMEM;
	zone_track_free(g.zones);
	for (uint32_t i = 0; i < g.nid; i++)
		free(g.by_id[i].v);
	free(g.by_id);
	for (uint32_t i = 0; i < g.nsets; i++)
		free(g.sets[i].d.v);
	free(g.sets);
	free(g.by_stack);
	return rc;
}
