/*
 * A flame graph's boxes (flame_graph.h): the tree of names as text, filled
 * from the read loop's tree and from a base's folded stacks, and laid out
 * as boxes no narrower than a pixel.
 */
#include <stdlib.h>
#include "conv/flame_graph.h"
#include "common/common.h"

static uint32_t text_hash(uint32_t parent, const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull ^ parent;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return (uint32_t)(h ^ h >> 32);
}

static int grow_slots(struct flame_graph *g)
{
	uint32_t n = g->nslots ? g->nslots * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return PROFEV_E_NOMEM;
	for (uint32_t i = 1; i < g->n; i++) {
		const struct fg_node *nd = &g->nodes[i];
		uint32_t h = text_hash(nd->parent, g->text + nd->name, nd->nlen) & (n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(g->slots);
	g->slots = s;
	g->nslots = n;
	return 0;
}

static uint32_t add_node(struct flame_graph *g, uint32_t parent, const char *name, size_t n)
{
	if (n > UINT32_MAX / 2 || g->tlen + n > UINT32_MAX || g->n >= UINT32_MAX / 2 ||
	    array_grow((void **)&g->nodes, &g->cap, sizeof(*g->nodes), (uint64_t)g->n + 1))
		return FT_NONE;
	if (g->tlen + n > g->tcap) {
		size_t cap = g->tcap ? g->tcap : 4096;
		while (cap < g->tlen + n)
			cap *= 2;
		char *p = realloc(g->text, cap);
		if (!p)
			return FT_NONE;
		g->text = p;
		g->tcap = cap;
	}
	memcpy(g->text + g->tlen, name, n);
	uint32_t id = g->n++;
	struct fg_node *nd = &g->nodes[id];
	memset(nd, 0, sizeof(*nd));
	nd->name = (uint32_t)g->tlen;
	nd->nlen = (uint32_t)n;
	g->tlen += n;
	nd->parent = parent;
	nd->first_child = FT_NONE;
	nd->next_sibling = FT_NONE;
	if (parent != FT_NONE) {
		nd->next_sibling = g->nodes[parent].first_child;
		g->nodes[parent].first_child = id;
	}
	return id;
}

/* The child of parent named name[0..n), added if new; FT_NONE on no memory. */
static uint32_t child(struct flame_graph *g, uint32_t parent, const char *name, size_t n)
{
	if ((uint64_t)g->n * 2 >= g->nslots && grow_slots(g))
		return FT_NONE;
	uint32_t h = text_hash(parent, name, n) & (g->nslots - 1);
	while (g->slots[h]) {
		const struct fg_node *nd = &g->nodes[g->slots[h] - 1];
		if (nd->parent == parent && nd->nlen == n && !memcmp(g->text + nd->name, name, n))
			return g->slots[h] - 1;
		h = (h + 1) & (g->nslots - 1);
	}
	uint32_t id = add_node(g, parent, name, n);
	if (id != FT_NONE)
		g->slots[h] = id + 1;
	return id;
}

int fg_init(struct flame_graph *g)
{
	memset(g, 0, sizeof(*g));
	return add_node(g, FT_NONE, "all", 3) == FT_NONE ? PROFEV_E_NOMEM : 0;
}

void fg_free(struct flame_graph *g)
{
	free(g->nodes);
	free(g->text);
	free(g->slots);
	memset(g, 0, sizeof(*g));
}

/* The child of parent named by raw text s, cleaned as folded output cleans
 * it (so that a base's folded names match). */
static uint32_t child_clean(struct flame_graph *g, struct conv *c, uint32_t parent, const char *s,
			    char **buf, size_t *cap)
{
	size_t n = strlen(s), need = 3 * n + 9;
	if (need > *cap) {
		char *p = realloc(*buf, need);
		if (!p)
			return FT_NONE;
		*buf = p;
		*cap = need;
	}
	size_t len = flame_name_clean(*buf, s, n, &c->st.replaced_bytes);
	return child(g, parent, *buf, len);
}

int fg_add_tree(struct flame_graph *g, struct conv *c, const struct flame_tree *f)
{
	uint32_t *map = f->n ? malloc((size_t)f->n * sizeof(*map)) : NULL;
	char *buf = NULL, *label = NULL;
	size_t cap = 0, label_cap = 0;
	int rc = f->n && !map ? PROFEV_E_NOMEM : 0;
	/* Roots first, under "all" (the merged root is "all" itself)... */
	for (uint32_t i = 0; i < f->nroots && !rc; i++) {
		int n = flame_root_label(c, f, i, &label, &label_cap);
		if (n < 0) {
			rc = n;
		} else if (!n) {
			map[f->roots[i].node] = 0;
		} else {
			uint32_t id = child_clean(g, c, 0, label, &buf, &cap);
			if (id == FT_NONE)
				rc = PROFEV_E_NOMEM;
			map[f->roots[i].node] = id;
		}
	}
	/* ... then the other nodes, each made after its parent. */
	for (uint32_t i = 0; i < f->n && !rc; i++) {
		const struct ft_node *nd = &f->nodes[i];
		uint32_t id = map[i];
		if (nd->parent != FT_NONE) {
			id = child_clean(g, c, map[nd->parent], flame_tree_name(c, f, nd->name), &buf, &cap);
			if (id == FT_NONE) {
				rc = PROFEV_E_NOMEM;
				break;
			}
			map[i] = id;
		}
		g->nodes[id].self += nd->weight;
	}
	free(map);
	free(buf);
	free(label);
	return rc;
}

int fg_add_folded(struct flame_graph *g, const char *text, size_t len, uint64_t *bad)
{
	const char *p = text, *end = text + len;
	g->diff = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *sp = le;
		while (sp > p && sp[-1] != ' ')
			sp--;
		uint64_t w = 0;
		int ok = sp > p + 1 && sp < le;
		for (const char *d = sp; ok && d < le; d++) {
			if (*d < '0' || *d > '9' || w > (UINT64_MAX - 9) / 10)
				ok = 0;
			else
				w = w * 10 + (uint64_t)(*d - '0');
		}
		if (!ok) {
			if (le > p)
				(*bad)++;
		} else {
			uint32_t node = 0;
			const char *q = p, *stop = sp - 1;
			while (q <= stop && node != FT_NONE) {
				const char *semi = memchr(q, ';', (size_t)(stop - q));
				const char *fe = semi ? semi : stop;
				node = child(g, node, q, (size_t)(fe - q));
				q = fe + 1;
			}
			if (node == FT_NONE)
				return PROFEV_E_NOMEM;
			g->nodes[node].bself += w;
		}
		p = le + 1;
	}
	return 0;
}

void fg_sum(struct flame_graph *g)
{
	for (uint32_t i = 0; i < g->n; i++) {
		g->nodes[i].total = g->nodes[i].self;
		g->nodes[i].btotal = g->nodes[i].bself;
	}
	/* A node is made after its parent: children come later. */
	for (uint32_t i = g->n; i-- > 1;) {
		struct fg_node *nd = &g->nodes[i];
		g->nodes[nd->parent].total += nd->total;
		g->nodes[nd->parent].btotal += nd->btotal;
	}
}

static const struct flame_graph *sort_graph; /* qsort has no context argument */

static int by_name(const void *a, const void *b)
{
	const struct fg_node *x = &sort_graph->nodes[*(const uint32_t *)a];
	const struct fg_node *y = &sort_graph->nodes[*(const uint32_t *)b];
	size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
	int d = memcmp(sort_graph->text + x->name, sort_graph->text + y->name, n);
	return d ? d : (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

struct pending {
	uint32_t node, depth;
	uint64_t x;
};

int fg_layout(const struct flame_graph *g, double min_units, struct fg_box **boxes, uint32_t *nboxes)
{
	struct fg_box *b = NULL;
	uint32_t nb = 0, bcap = 0, nk = 0, kcap = 0, ns = 0, scap = 0;
	uint32_t *kids = NULL;
	struct pending *st = NULL;
	int rc = 0;
	*boxes = NULL;
	*nboxes = 0;
	if (!g->n || !g->nodes[0].total || (double)g->nodes[0].total < min_units)
		return 0;
	if (array_grow((void **)&st, &scap, sizeof(*st), 1))
		return PROFEV_E_NOMEM;
	st[ns++] = (struct pending){ 0, 0, 0 };
	while (ns && !rc) {
		struct pending p = st[--ns];
		const struct fg_node *nd = &g->nodes[p.node];
		if (array_grow((void **)&b, &bcap, sizeof(*b), (uint64_t)nb + 2)) {
			rc = PROFEV_E_NOMEM;
			break;
		}
		b[nb++] = (struct fg_box){ p.node, nd->parent, p.depth, 0, p.x, nd->total, nd->btotal };
		nk = 0;
		for (uint32_t k = nd->first_child; k != FT_NONE; k = g->nodes[k].next_sibling) {
			if (array_grow((void **)&kids, &kcap, sizeof(*kids), (uint64_t)nk + 1)) {
				rc = PROFEV_E_NOMEM;
				break;
			}
			kids[nk++] = k;
		}
		if (rc || !nk)
			continue;
		sort_graph = g;
		qsort(kids, nk, sizeof(*kids), by_name);
		uint64_t x = p.x, small = 0, bsmall = 0;
		uint32_t nsmall = 0, first = ns;
		for (uint32_t i = 0; i < nk; i++) {
			const struct fg_node *k = &g->nodes[kids[i]];
			if (!k->total)
				continue; /* in the base only */
			if ((double)k->total < min_units) {
				small += k->total;
				bsmall += k->btotal;
				nsmall++;
				continue;
			}
			if (array_grow((void **)&st, &scap, sizeof(*st), (uint64_t)ns + 1)) {
				rc = PROFEV_E_NOMEM;
				break;
			}
			st[ns++] = (struct pending){ kids[i], p.depth + 1, x };
			x += k->total;
		}
		/* Drawn in name order: the stack pops the last pushed first. */
		for (uint32_t i = first, j = ns ? ns - 1 : 0; i < j; i++, j--) {
			struct pending t = st[i];
			st[i] = st[j];
			st[j] = t;
		}
		if (nsmall && (double)small >= min_units)
			b[nb++] = (struct fg_box){ FT_NONE, p.node, p.depth + 1, nsmall, x, small, bsmall };
	}
	free(st);
	free(kids);
	if (rc) {
		free(b);
		return rc;
	}
	*boxes = b;
	*nboxes = nb;
	return 0;
}
