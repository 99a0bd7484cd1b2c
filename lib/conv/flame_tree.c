/*
 * The stack tree of the folded and svg targets (flame_tree.h): nodes found
 * by a hash of (parent, name), callstack frames' names kept as text, and
 * the callbacks of the read loop that add zones' self time, samples or
 * allocated bytes to it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/flame_tree.h"
#include "common/common.h"
#include "common/utf8.h"

static uint32_t hash2(uint32_t parent, uint32_t name)
{
	uint64_t k = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32);
}

static int grow_slots(struct flame_tree *f)
{
	uint32_t n = f->nslots ? f->nslots * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return PROFEV_E_NOMEM;
	for (uint32_t i = 0; i < f->n; i++) {
		if (f->nodes[i].parent == FT_NONE)
			continue; /* roots are found through f->roots */
		uint32_t h = hash2(f->nodes[i].parent, f->nodes[i].name) & (n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(f->slots);
	f->slots = s;
	f->nslots = n;
	return 0;
}

static uint32_t add_node(struct flame_tree *f, uint32_t parent, uint32_t name)
{
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 1024;
		void *p = realloc(f->nodes, (size_t)cap * sizeof(*f->nodes));
		if (!p || cap > UINT32_MAX / 2)
			return FT_NONE;
		f->nodes = p;
		f->cap = cap;
	}
	uint32_t id = f->n++;
	struct ft_node *nd = &f->nodes[id];
	nd->parent = parent;
	nd->name = name;
	nd->first_child = FT_NONE;
	nd->next_sibling = FT_NONE;
	nd->weight = 0;
	if (parent != FT_NONE) {
		nd->next_sibling = f->nodes[parent].first_child;
		f->nodes[parent].first_child = id;
	}
	return id;
}

/* The child of parent named name, added if new; FT_NONE on no memory. */
static uint32_t child(struct flame_tree *f, uint32_t parent, uint32_t name)
{
	if ((uint64_t)f->n * 2 >= f->nslots && grow_slots(f))
		return FT_NONE;
	uint32_t h = hash2(parent, name) & (f->nslots - 1);
	while (f->slots[h]) {
		struct ft_node *nd = &f->nodes[f->slots[h] - 1];
		if (nd->parent == parent && nd->name == name)
			return f->slots[h] - 1;
		h = (h + 1) & (f->nslots - 1);
	}
	uint32_t id = add_node(f, parent, name);
	if (id != FT_NONE)
		f->slots[h] = id + 1;
	return id;
}

static uint32_t add_root(struct flame_tree *f, const struct conv_thread *t)
{
	if (f->nroots == f->rcap) {
		uint32_t cap = f->rcap ? f->rcap * 2 : 16;
		void *p = realloc(f->roots, cap * sizeof(*f->roots));
		if (!p)
			return FT_NONE;
		f->roots = p;
		f->rcap = cap;
	}
	uint32_t id = add_node(f, FT_NONE, 0);
	if (id != FT_NONE)
		f->roots[f->nroots++] = (struct ft_root){ id, t, -1 };
	return id;
}

int flame_tree_init(struct conv *c, struct flame_tree *f)
{
	u64_map_init(&f->blocks, 16);
	if ((c->opts->flags & PROFEV_CONV_MERGE_THREADS) && add_root(f, NULL) == FT_NONE)
		return PROFEV_E_NOMEM;
	return 0;
}

void flame_tree_free(struct flame_tree *f)
{
	free(f->nodes);
	free(f->slots);
	free(f->roots);
	free(f->text);
	free(f->names);
	free(f->nslot);
	u64_map_free(&f->blocks);
}

int flame_root_label(const struct conv *c, const struct flame_tree *f, uint32_t i, char **buf,
		     size_t *cap)
{
	const struct ft_root *r = &f->roots[i];
	const char *name = "", *gname = "";
	char tb[32];
	if (r->gpu >= 0) {
		const struct profev_gpu_context *g = profev_reader_gpu_context(c->r, (uint32_t)r->gpu);
		gname = g ? profev_reader_string(c->r, g->name) : "";
	} else if (r->t) {
		name = conv_track_name(r->t, tb);
	}
	size_t need = strlen(name) + strlen(gname) + 48;
	if (need > *cap) {
		char *p = realloc(*buf, need);
		if (!p)
			return PROFEV_E_NOMEM;
		*buf = p;
		*cap = need;
	}
	int n;
	if (r->gpu >= 0)
		n = snprintf(*buf, *cap, "GPU %" PRId64 ": %s", r->gpu, gname);
	else if (r->t && r->t->name[0] && !(c->opts->flags & PROFEV_CONV_THREAD_NAMES))
		/* Threads often share a name: the TID keeps them apart. */
		n = snprintf(*buf, *cap, "%s (%" PRIu32 ")", name, r->t->tid);
	else
		n = snprintf(*buf, *cap, "%s", name);
	return n;
}

size_t flame_name_clean(char *out, const char *s, size_t n, uint64_t *replaced)
{
	char *o = out;
	if (!n) {
		memcpy(o, "(unnamed)", 9);
		return 9;
	}
	const uint8_t *u = (const uint8_t *)s;
	for (size_t i = 0; i < n;) {
		unsigned k = utf8_seq_len(u + i, n - i);
		if (!k) {
			memcpy(o, UTF8_REPLACEMENT, 3);
			o += 3;
			(*replaced)++;
			i++;
			continue;
		}
		if (k == 1) {
			char ch = (char)u[i];
			*o++ = ch == ';' ? ':' : ch == '\n' || ch == '\r' ? ' ' : ch;
		} else {
			memcpy(o, u + i, k);
			o += k;
		}
		i += k;
	}
	return (size_t)(o - out);
}

int flame_nothing(struct conv *c)
{
	(void)c;
	return 0;
}

int flame_thread(struct conv *c, struct conv_thread *t)
{
	(void)c;
	(void)t;
	return 0;
}

/* The root node of t's tree (the merged one with MERGE_THREADS); FT_NONE
 * on no memory. */
static uint32_t thread_root(struct conv *c, struct conv_thread *t)
{
	struct flame_tree *f = c->fmt;
	if (c->opts->flags & PROFEV_CONV_MERGE_THREADS)
		return 0;
	/* t->aux holds the thread's root node + 1 */
	if (!t->aux) {
		uint32_t r = add_root(f, t);
		if (r == FT_NONE)
			return FT_NONE;
		t->aux = (uint64_t)r + 1;
	}
	return (uint32_t)(t->aux - 1);
}

#define NOT_ZONES (PROFEV_CONV_SAMPLES | PROFEV_CONV_GPU | PROFEV_CONV_ALLOC)

int flame_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	struct flame_tree *f = c->fmt;
	(void)edge;
	if (t->kind == CONV_FRAMES || (c->opts->flags & NOT_ZONES))
		return 0;
	uint32_t parent;
	size_t level = (size_t)(z - t->stack);
	if (level)
		parent = (uint32_t)t->stack[level - 1].aux;
	else if ((parent = thread_root(c, t)) == FT_NONE)
		return PROFEV_E_NOMEM;
	uint32_t id = child(f, parent, z->name);
	if (id == FT_NONE)
		return PROFEV_E_NOMEM;
	z->aux = id;
	return 0;
}

/* Named at run time: its time goes to the node of its new name, under the
 * same parent (children it already had stay under the old one). */
int flame_zone_rename(struct conv *c, struct conv_thread *t, struct conv_zone *z)
{
	return flame_zone_begin(c, t, z, CONV_EDGE_NORMAL);
}

int flame_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts, int edge)
{
	struct flame_tree *f = c->fmt;
	(void)edge;
	if (t->kind == CONV_FRAMES || (c->opts->flags & NOT_ZONES))
		return 0;
	uint64_t dur = ts - z->shown;
	f->nodes[z->aux].weight += dur > z->child ? dur - z->child : 0;
	return 0;
}

/* --gpu: a GPU zone under the one it is in, or its context's root. */
int flame_gpu_begin(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z)
{
	struct flame_tree *f = c->fmt;
	if (!(c->opts->flags & PROFEV_CONV_GPU))
		return 0;
	uint32_t parent;
	if (z > t->stack) {
		parent = (uint32_t)z[-1].aux;
	} else {
		if (!t->aux) { /* t->aux: its root node + 1 */
			uint32_t r = add_root(f, NULL);
			if (r == FT_NONE)
				return PROFEV_E_NOMEM;
			f->roots[f->nroots - 1].gpu = t->ctx;
			t->aux = (uint64_t)r + 1;
		}
		parent = (uint32_t)(t->aux - 1);
	}
	uint32_t id = child(f, parent, z->name);
	if (id == FT_NONE)
		return PROFEV_E_NOMEM;
	z->aux = id;
	return 0;
}

int flame_gpu_end(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z)
{
	struct flame_tree *f = c->fmt;
	(void)t;
	if (c->opts->flags & PROFEV_CONV_GPU) {
		uint64_t dur = z->end - z->begin;
		f->nodes[z->aux].weight += dur > z->child ? dur - z->child : 0;
	}
	return 0;
}

int flame_event(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	(void)c;
	(void)t;
	(void)ev;
	return 0;
}

int flame_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		  const char *text, size_t len)
{
	(void)c;
	(void)t;
	(void)ev;
	(void)text;
	(void)len;
	return 0;
}

int flame_counter(struct conv *c, const struct profev_event *ev)
{
	(void)c;
	(void)ev;
	return 0;
}

/* ---- callstacks ---- */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int nslot_grow(struct flame_tree *f)
{
	uint32_t n = f->nslotcap ? f->nslotcap * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return PROFEV_E_NOMEM;
	for (uint32_t i = 0; i < f->nnames; i++) {
		uint32_t h = name_hash(f->text + f->names[i]) & (n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(f->nslot);
	f->nslot = s;
	f->nslotcap = n;
	return 0;
}

/* The FT_FNAME id of a frame name, added if new; FT_NONE on no memory. */
static uint32_t frame_name(struct flame_tree *f, const char *s)
{
	if ((uint64_t)f->nnames * 2 >= f->nslotcap && nslot_grow(f))
		return FT_NONE;
	uint32_t h = name_hash(s) & (f->nslotcap - 1);
	for (uint32_t k; (k = f->nslot[h]) != 0; h = (h + 1) & (f->nslotcap - 1))
		if (strcmp(f->text + f->names[k - 1], s) == 0)
			return FT_FNAME | (k - 1);
	size_t len = strlen(s) + 1;
	if (f->nnames >= FT_FNAME - 1 ||
	    array_grow((void **)&f->names, &f->namecap, sizeof(*f->names), (uint64_t)f->nnames + 1))
		return FT_NONE;
	if (f->tlen + len > f->tcap) {
		size_t cap = f->tcap ? f->tcap : 4096;
		while (cap < f->tlen + len)
			cap *= 2;
		char *p = realloc(f->text, cap);
		if (!p || cap > UINT32_MAX)
			return FT_NONE;
		f->text = p;
		f->tcap = cap;
	}
	memcpy(f->text + f->tlen, s, len);
	f->names[f->nnames] = (uint32_t)f->tlen;
	f->tlen += len;
	f->nslot[h] = ++f->nnames;
	return FT_FNAME | (f->nnames - 1);
}

/* The node of callstack stack under t's root: from the outermost frame in,
 * each frame's inline chain outermost first. FT_NONE on no memory. */
static uint32_t stack_node(struct conv *c, struct conv_thread *t, uint32_t stack)
{
	struct flame_tree *f = c->fmt;
	uint32_t node = thread_root(c, t);
	if (node == FT_NONE)
		return FT_NONE;
	unsigned n;
	const struct profev_frame *fr = conv_stack(c, stack, &n);
	char buf[512];
	for (unsigned i = n; i-- > 0;) {
		unsigned ns = 0;
		const struct profev_symframe *sym = NULL;
		if (!(fr[i].flags & PROFEV_FRAMEF_NOMODULE))
			sym = conv_symbol(c, fr[i].module, fr[i].offset, &ns);
		for (unsigned k = ns ? ns : 1; k-- > 0;) {
			const char *name = buf;
			if (ns) {
				name = sym[k].function ? sym[k].function : "??";
			} else if (fr[i].flags & PROFEV_FRAMEF_NOMODULE) {
				snprintf(buf, sizeof(buf), "0x%" PRIx64, fr[i].offset);
			} else {
				const struct profev_module *m = profev_reader_module(c->r, fr[i].module);
				const char *path = m ? m->path : "?";
				const char *base = strrchr(path, '/');
				snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, base ? base + 1 : path, fr[i].offset);
			}
			uint32_t id = frame_name(f, name);
			if (id == FT_NONE || (node = child(f, node, id)) == FT_NONE)
				return FT_NONE;
		}
	}
	return node;
}

/* One sample: weight 1 on its stack's innermost frame. */
int flame_sample(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct flame_tree *f = c->fmt;
	if (!(c->opts->flags & PROFEV_CONV_SAMPLES))
		return 0;
	uint32_t node = stack_node(c, t, ev->stack);
	if (node == FT_NONE)
		return PROFEV_E_NOMEM;
	f->nodes[node].weight++;
	return 0;
}

/* --alloc: an allocation's bytes on its callstack's node; with --live, a
 * free takes its block's bytes off the node they were put on. Allocations
 * without a callstack weigh on their thread's root. */
int flame_memory(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		 const struct conv_mem *m)
{
	struct flame_tree *f = c->fmt;
	int live = (c->opts->flags & PROFEV_CONV_LIVE) != 0;
	if (ev->type == PROFEV_EV_MEM_FREE) {
		uint64_t *b = live && ev->addr ? u64_map_find(&f->blocks, ev->addr) : NULL;
		if (b) {
			struct ft_node *nd = &f->nodes[b[1]];
			nd->weight -= m->size < nd->weight ? m->size : nd->weight;
			u64_map_remove(&f->blocks, b);
		}
		return 0;
	}
	if (!t || !m->size)
		return 0; /* a thread the filter left out */
	uint32_t node = stack_node(c, t, ev->stack);
	if (node == FT_NONE)
		return PROFEV_E_NOMEM;
	f->nodes[node].weight += m->size;
	if (live && ev->addr) {
		uint64_t *b = u64_map_insert(&f->blocks, ev->addr, NULL);
		if (!b)
			return PROFEV_E_NOMEM;
		b[1] = node;
	}
	return 0;
}
