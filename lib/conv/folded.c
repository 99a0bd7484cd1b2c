/*
 * Folded target: collapsed stacks, "outer;inner;leaf weight" per line, as
 * flamegraph.pl and speedscope read them; the weight is the stack's self
 * time in ns. Zones form a tree of (parent, name) nodes, each open zone
 * remembers its node, so an end adds its self time in O(1); the lines are
 * written from the tree at the end. Per thread, the first frame names the
 * thread; with PROFEV_CONV_MERGE_THREADS all threads share one tree.
 * With PROFEV_CONV_SAMPLES the tree holds the samples' callstacks instead,
 * each sample a weight of 1, and zones are left out: frames are named by
 * function (once pfsym has run) or module+offset, names the folded target
 * keeps itself (FNAME ids), since the trace has no string for them.
 * Memory grows with the number of distinct stacks, not with events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/conv_internal.h"
#include "trace/trace_internal.h"
#include "common/utf8.h"

#define NONE UINT32_MAX
#define FNAME 0x80000000u /* a node name that is an index in fnames */

struct fnode {
	uint32_t parent, name; /* name: string id; a root's is unused */
	uint32_t first_child, next_sibling;
	uint64_t weight;       /* self time, ns */
};

struct root {
	uint32_t node;
	const struct conv_thread *t; /* NULL: the merged root or a GPU context's */
	int64_t gpu;                 /* a GPU context's id, -1: none */
};

struct folded {
	struct fnode *nodes;
	uint32_t n, cap;
	uint32_t *slots; /* hash of (parent, name) -> node + 1 */
	uint32_t nslots;
	struct root *roots;
	uint32_t nroots, rcap;
	char *path;      /* the line being written */
	size_t plen, pcap;
	/* frame names of samples: offsets of NUL-terminated names in text */
	char *text;
	size_t tlen, tcap;
	uint32_t *names, nnames, namecap;
	uint32_t *nslot, nslotcap; /* hash of name -> index + 1 */
};

static uint32_t hash2(uint32_t parent, uint32_t name)
{
	uint64_t k = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32);
}

static int grow_slots(struct folded *f)
{
	uint32_t n = f->nslots ? f->nslots * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return PROFEV_E_NOMEM;
	for (uint32_t i = 0; i < f->n; i++) {
		if (f->nodes[i].parent == NONE)
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

static uint32_t add_node(struct folded *f, uint32_t parent, uint32_t name)
{
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 1024;
		void *p = realloc(f->nodes, (size_t)cap * sizeof(*f->nodes));
		if (!p || cap > UINT32_MAX / 2)
			return NONE;
		f->nodes = p;
		f->cap = cap;
	}
	uint32_t id = f->n++;
	struct fnode *nd = &f->nodes[id];
	nd->parent = parent;
	nd->name = name;
	nd->first_child = NONE;
	nd->next_sibling = NONE;
	nd->weight = 0;
	if (parent != NONE) {
		nd->next_sibling = f->nodes[parent].first_child;
		f->nodes[parent].first_child = id;
	}
	return id;
}

/* The child of parent named name, added if new; NONE on no memory. */
static uint32_t child(struct folded *f, uint32_t parent, uint32_t name)
{
	if ((uint64_t)f->n * 2 >= f->nslots && grow_slots(f))
		return NONE;
	uint32_t h = hash2(parent, name) & (f->nslots - 1);
	while (f->slots[h]) {
		struct fnode *nd = &f->nodes[f->slots[h] - 1];
		if (nd->parent == parent && nd->name == name)
			return f->slots[h] - 1;
		h = (h + 1) & (f->nslots - 1);
	}
	uint32_t id = add_node(f, parent, name);
	if (id != NONE)
		f->slots[h] = id + 1;
	return id;
}

static uint32_t add_root(struct folded *f, const struct conv_thread *t)
{
	if (f->nroots == f->rcap) {
		uint32_t cap = f->rcap ? f->rcap * 2 : 16;
		void *p = realloc(f->roots, cap * sizeof(*f->roots));
		if (!p)
			return NONE;
		f->roots = p;
		f->rcap = cap;
	}
	uint32_t id = add_node(f, NONE, 0);
	if (id != NONE)
		f->roots[f->nroots++] = (struct root){ id, t, -1 };
	return id;
}

static int fo_init(struct conv *c)
{
	struct folded *f = calloc(1, sizeof(*f));
	if (!(c->fmt = f))
		return PROFEV_E_NOMEM;
	if ((c->opts->flags & PROFEV_CONV_MERGE_THREADS) && add_root(f, NULL) == NONE)
		return PROFEV_E_NOMEM;
	return 0;
}

static void fo_fini(struct conv *c)
{
	struct folded *f = c->fmt;
	if (!f)
		return;
	free(f->nodes);
	free(f->slots);
	free(f->roots);
	free(f->path);
	free(f->text);
	free(f->names);
	free(f->nslot);
	free(f);
}

static int fo_nothing(struct conv *c)
{
	(void)c;
	return 0;
}

static int fo_thread(struct conv *c, struct conv_thread *t)
{
	(void)c;
	(void)t;
	return 0;
}

/* The root node of t's tree (the merged one with MERGE_THREADS); NONE on
 * no memory. */
static uint32_t thread_root(struct conv *c, struct conv_thread *t)
{
	struct folded *f = c->fmt;
	if (c->opts->flags & PROFEV_CONV_MERGE_THREADS)
		return 0;
	/* t->aux holds the thread's root node + 1 */
	if (!t->aux) {
		uint32_t r = add_root(f, t);
		if (r == NONE)
			return NONE;
		t->aux = (uint64_t)r + 1;
	}
	return (uint32_t)(t->aux - 1);
}

static int fo_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge)
{
	struct folded *f = c->fmt;
	(void)edge;
	if (t->kind == CONV_FRAMES || (c->opts->flags & (PROFEV_CONV_SAMPLES | PROFEV_CONV_GPU)))
		return 0;
	uint32_t parent;
	size_t level = (size_t)(z - t->stack);
	if (level)
		parent = (uint32_t)t->stack[level - 1].aux;
	else if ((parent = thread_root(c, t)) == NONE)
		return PROFEV_E_NOMEM;
	uint32_t id = child(f, parent, z->name);
	if (id == NONE)
		return PROFEV_E_NOMEM;
	z->aux = id;
	return 0;
}

/* Named at run time: its time goes to the node of its new name, under the
 * same parent (children it already had stay under the old one). */
static int fo_zone_rename(struct conv *c, struct conv_thread *t, struct conv_zone *z)
{
	return fo_zone_begin(c, t, z, CONV_EDGE_NORMAL);
}

static int fo_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
		       int edge)
{
	struct folded *f = c->fmt;
	(void)edge;
	if (t->kind == CONV_FRAMES || (c->opts->flags & (PROFEV_CONV_SAMPLES | PROFEV_CONV_GPU)))
		return 0;
	uint64_t dur = ts - z->shown;
	f->nodes[z->aux].weight += dur > z->child ? dur - z->child : 0;
	return 0;
}

/* --gpu: a GPU zone under the one it is in, or its context's root. */
static int fo_gpu_begin(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z)
{
	struct folded *f = c->fmt;
	if (!(c->opts->flags & PROFEV_CONV_GPU))
		return 0;
	uint32_t parent;
	if (z > t->stack) {
		parent = (uint32_t)z[-1].aux;
	} else {
		if (!t->aux) { /* t->aux: its root node + 1 */
			uint32_t r = add_root(f, NULL);
			if (r == NONE)
				return PROFEV_E_NOMEM;
			f->roots[f->nroots - 1].gpu = t->ctx;
			t->aux = (uint64_t)r + 1;
		}
		parent = (uint32_t)(t->aux - 1);
	}
	uint32_t id = child(f, parent, z->name);
	if (id == NONE)
		return PROFEV_E_NOMEM;
	z->aux = id;
	return 0;
}

static int fo_gpu_end(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z)
{
	struct folded *f = c->fmt;
	(void)t;
	if (c->opts->flags & PROFEV_CONV_GPU) {
		uint64_t dur = z->end - z->begin;
		f->nodes[z->aux].weight += dur > z->child ? dur - z->child : 0;
	}
	return 0;
}

static int fo_event(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	(void)c;
	(void)t;
	(void)ev;
	return 0;
}

static int fo_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
		      const char *text, size_t len)
{
	(void)c;
	(void)t;
	(void)ev;
	(void)text;
	(void)len;
	return 0;
}

static int fo_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	(void)c;
	(void)t;
	(void)ev;
	return 0;
}

static int fo_counter(struct conv *c, const struct profev_event *ev)
{
	(void)c;
	(void)ev;
	return 0;
}

/* ---- samples ---- */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int nslot_grow(struct folded *f)
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

/* The FNAME id of a frame name, added if new; NONE on no memory. */
static uint32_t frame_name(struct folded *f, const char *s)
{
	if ((uint64_t)f->nnames * 2 >= f->nslotcap && nslot_grow(f))
		return NONE;
	uint32_t h = name_hash(s) & (f->nslotcap - 1);
	for (uint32_t k; (k = f->nslot[h]) != 0; h = (h + 1) & (f->nslotcap - 1))
		if (strcmp(f->text + f->names[k - 1], s) == 0)
			return FNAME | (k - 1);
	size_t len = strlen(s) + 1;
	if (f->nnames >= FNAME - 1 ||
	    array_grow((void **)&f->names, &f->namecap, sizeof(*f->names), (uint64_t)f->nnames + 1))
		return NONE;
	if (f->tlen + len > f->tcap) {
		size_t cap = f->tcap ? f->tcap : 4096;
		while (cap < f->tlen + len)
			cap *= 2;
		char *p = realloc(f->text, cap);
		if (!p || cap > UINT32_MAX)
			return NONE;
		f->text = p;
		f->tcap = cap;
	}
	memcpy(f->text + f->tlen, s, len);
	f->names[f->nnames] = (uint32_t)f->tlen;
	f->tlen += len;
	f->nslot[h] = ++f->nnames;
	return FNAME | (f->nnames - 1);
}

/* One sample: its stack from the outermost frame in, each frame's inline
 * chain outermost first, weight 1 on the innermost. */
static int fo_sample(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct folded *f = c->fmt;
	if (!(c->opts->flags & PROFEV_CONV_SAMPLES))
		return 0;
	uint32_t node = thread_root(c, t);
	if (node == NONE)
		return PROFEV_E_NOMEM;
	unsigned n;
	const struct profev_frame *fr = conv_stack(c, ev->stack, &n);
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
			if (id == NONE || (node = child(f, node, id)) == NONE)
				return PROFEV_E_NOMEM;
		}
	}
	f->nodes[node].weight++;
	return 0;
}

/* Append a frame to the path: ';' separates frames and a line ends the
 * record, so both are replaced inside names; invalid UTF-8 becomes U+FFFD. */
static int path_add(struct conv *c, const char *s, size_t n)
{
	struct folded *f = c->fmt;
	size_t need = f->plen + 3 * n + 16;
	if (need > f->pcap) {
		size_t cap = f->pcap ? f->pcap : 256;
		while (cap < need)
			cap *= 2;
		char *p = realloc(f->path, cap);
		if (!p)
			return PROFEV_E_NOMEM;
		f->path = p;
		f->pcap = cap;
	}
	char *o = f->path + f->plen;
	if (f->plen)
		*o++ = ';';
	if (!n) {
		memcpy(o, "(unnamed)", 9);
		o += 9;
	}
	const uint8_t *u = (const uint8_t *)s;
	for (size_t i = 0; i < n;) {
		unsigned k = utf8_seq_len(u + i, n - i);
		if (!k) {
			memcpy(o, UTF8_REPLACEMENT, 3);
			o += 3;
			c->st.replaced_bytes++;
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
	f->plen = (size_t)(o - f->path);
	return 0;
}

static int write_line(struct conv *c, uint64_t weight)
{
	struct folded *f = c->fmt;
	int rc = outbuf_reserve(&c->out, f->plen + 24);
	if (rc)
		return rc;
	outbuf_put(&c->out, f->path, f->plen);
	char num[24];
	int n = snprintf(num, sizeof(num), " %" PRIu64 "\n", weight);
	outbuf_put(&c->out, num, (size_t)n);
	return 0;
}

struct walk_frame {
	uint32_t node;
	size_t plen; /* bytes of the path above it */
};

struct walk_stack {
	struct walk_frame *f;
	uint32_t n, cap;
};

/* Push node's children, each to come after a path of plen bytes. */
static int push_children(const struct folded *f, struct walk_stack *s, uint32_t node, size_t plen)
{
	for (uint32_t k = f->nodes[node].first_child; k != NONE; k = f->nodes[k].next_sibling) {
		if (array_grow((void **)&s->f, &s->cap, sizeof(*s->f), (uint64_t)s->n + 1))
			return PROFEV_E_NOMEM;
		s->f[s->n++] = (struct walk_frame){ k, plen };
	}
	return 0;
}

/* Depth-first walk below root, writing a line per stack with self time. */
static int walk(struct conv *c, uint32_t root)
{
	struct folded *f = c->fmt;
	size_t base = f->plen;
	struct walk_stack s = { 0 };
	int rc = push_children(f, &s, root, base);
	while (!rc && s.n) {
		struct walk_frame fr = s.f[--s.n];
		const struct fnode *nd = &f->nodes[fr.node];
		f->plen = fr.plen;
		const char *name = nd->name & FNAME ? f->text + f->names[nd->name & ~FNAME]
						    : profev_reader_string(c->r, nd->name);
		rc = path_add(c, name, strlen(name));
		if (!rc && nd->weight)
			rc = write_line(c, nd->weight);
		if (!rc)
			rc = push_children(f, &s, fr.node, f->plen);
	}
	free(s.f);
	f->plen = base;
	return rc;
}

static int fo_finish(struct conv *c)
{
	struct folded *f = c->fmt;
	int rc = 0;
	for (uint32_t i = 0; i < f->nroots && !rc; i++) {
		f->plen = 0;
		const struct conv_thread *t = f->roots[i].t;
		if (f->roots[i].gpu >= 0) {
			const struct profev_gpu_context *g =
				profev_reader_gpu_context(c->r, (uint32_t)f->roots[i].gpu);
			const char *name = g ? profev_reader_string(c->r, g->name) : "";
			char label[1100];
			int n = snprintf(label, sizeof label, "GPU %" PRId64 ": %s", f->roots[i].gpu, name);
			if ((rc = path_add(c, label, (size_t)n < sizeof label ? (size_t)n : sizeof label - 1)))
				break;
		} else if (t) {
			char label[64], tb[32];
			const char *name = conv_track_name(t, tb);
			if ((rc = path_add(c, name, strlen(name))))
				break;
			if (t->name[0]) {
				/* Threads often share a name: the TID keeps them apart. */
				int n = snprintf(label, sizeof(label), " (%" PRIu32 ")", t->tid);
				/* path_add() left 16 bytes of room */
				memcpy(f->path + f->plen, label, (size_t)n);
				f->plen += (size_t)n;
			}
		}
		rc = walk(c, f->roots[i].node);
	}
	return rc;
}

const struct conv_ops conv_folded_ops = {
	.name = "folded",
	.split_ok = 0,
	.init = fo_init,
	.fini = fo_fini,
	.part_begin = fo_nothing,
	.part_end = fo_nothing,
	.thread = fo_thread,
	.zone_begin = fo_zone_begin,
	.zone_end = fo_zone_end,
	.zone_rename = fo_zone_rename,
	.instant = fo_event,
	.message = fo_message,
	.lost = fo_lost,
	.counter = fo_counter,
	.finish = fo_finish,
	.sample = fo_sample,
	.gpu_begin = fo_gpu_begin,
	.gpu_end = fo_gpu_end,
};
