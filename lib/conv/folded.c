/*
 * Folded target: collapsed stacks, "outer;inner;leaf weight" per line, as
 * flamegraph.pl and speedscope read them; the weight is the stack's self
 * time in ns (samples with PROFEV_CONV_SAMPLES, bytes with
 * PROFEV_CONV_ALLOC). The stacks are flame_tree.c's tree, written at the
 * end by a walk of it; per thread, the first frame names the thread.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/flame_tree.h"
#include "common/common.h"

struct folded {
	struct flame_tree tree; /* first: the tree's callbacks find it at c->fmt */
	char *path;             /* the line being written */
	size_t plen, pcap;
	char *label;            /* a root's frame */
	size_t label_cap;
};

static int fo_init(struct conv *c)
{
	struct folded *f = calloc(1, sizeof(*f));
	if (!(c->fmt = f))
		return PROFEV_E_NOMEM;
	return flame_tree_init(c, &f->tree);
}

static void fo_fini(struct conv *c)
{
	struct folded *f = c->fmt;
	if (!f)
		return;
	flame_tree_free(&f->tree);
	free(f->path);
	free(f->label);
	free(f);
}

/* Append a frame to the path (flame_name_clean()). */
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
	o += flame_name_clean(o, s, n, &c->st.replaced_bytes);
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
static int push_children(const struct flame_tree *f, struct walk_stack *s, uint32_t node, size_t plen)
{
	for (uint32_t k = f->nodes[node].first_child; k != FT_NONE; k = f->nodes[k].next_sibling) {
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
	const struct flame_tree *tr = &f->tree;
	size_t base = f->plen;
	struct walk_stack s = { 0 };
	int rc = push_children(tr, &s, root, base);
	while (!rc && s.n) {
		struct walk_frame fr = s.f[--s.n];
		const struct ft_node *nd = &tr->nodes[fr.node];
		f->plen = fr.plen;
		const char *name = flame_tree_name(c, tr, nd->name);
		rc = path_add(c, name, strlen(name));
		if (!rc && nd->weight)
			rc = write_line(c, nd->weight);
		if (!rc)
			rc = push_children(tr, &s, fr.node, f->plen);
	}
	free(s.f);
	f->plen = base;
	return rc;
}

static int fo_finish(struct conv *c)
{
	struct folded *f = c->fmt;
	const struct flame_tree *tr = &f->tree;
	int rc = 0;
	for (uint32_t i = 0; i < tr->nroots && !rc; i++) {
		f->plen = 0;
		int n = flame_root_label(c, tr, i, &f->label, &f->label_cap);
		if (n < 0)
			return n;
		if (n && (rc = path_add(c, f->label, (size_t)n)))
			break;
		rc = walk(c, tr->roots[i].node);
	}
	return rc;
}

const struct conv_ops conv_folded_ops = {
	.name = "folded",
	FLAME_TREE_OPS,
	.init = fo_init,
	.fini = fo_fini,
	.finish = fo_finish,
};

const struct conv_ops conv_folded_alloc_ops = {
	.name = "folded",
	FLAME_TREE_OPS,
	.memory = flame_memory,
	.init = fo_init,
	.fini = fo_fini,
	.finish = fo_finish,
};
