/*
 * conv/flame_graph.h - a flame graph's boxes (not installed).
 *
 * The svg target's tree of names as text: flame_tree.c's tree once the
 * trace is read (whose names are string ids of one reader), under a root
 * "all", and for a differential graph the base's folded stacks in the same
 * nodes, matched by name. Then the layout: each node's inclusive weight,
 * its children in name order (as flamegraph.pl sorts them), and which
 * boxes are drawn: those at least min_width pixels wide; the narrower
 * children of a node merge into one box after the others, drawn when it is
 * that wide itself (flamegraph.pl leaves them out).
 */
#ifndef PROFEV_FLAME_GRAPH_H
#define PROFEV_FLAME_GRAPH_H
#include "conv/flame_tree.h"

struct fg_node {
	uint32_t name, nlen;   /* the name: text[name..name + nlen), cleaned */
	uint32_t parent;       /* FT_NONE for the root */
	uint32_t first_child, next_sibling;
	uint64_t self, total;  /* this trace's weight: its own, with its children's */
	uint64_t bself, btotal; /* the base's, for a differential graph */
};

struct flame_graph {
	struct fg_node *nodes; /* 0: the root, "all" */
	uint32_t n, cap;
	char *text;
	size_t tlen, tcap;
	uint32_t *slots;       /* hash of (parent, name) -> node + 1 */
	uint32_t nslots;
	int diff;              /* a base was added */
};

/* flame.js (svg.c): the script of the SVG, and of the report's graphs. */
CONV_HIDDEN extern const char conv_flame_js[];

/* An empty graph with its root. 0 or PROFEV_E_NOMEM. */
CONV_HIDDEN int fg_init(struct flame_graph *g);
CONV_HIDDEN void fg_free(struct flame_graph *g);

/* Add the tree of c's conversion (its weights as this trace's), each
 * thread or GPU context under the root. 0 or PROFEV_E_NOMEM. */
CONV_HIDDEN int fg_add_tree(struct flame_graph *g, struct conv *c, const struct flame_tree *f);

/* Add folded stacks ("a;b;c weight" lines) as the base's weights. Lines
 * that are not such lines are skipped and counted in *bad.
 * 0 or PROFEV_E_NOMEM. */
CONV_HIDDEN int fg_add_folded(struct flame_graph *g, const char *text, size_t len, uint64_t *bad);

/* Fill every node's totals. */
CONV_HIDDEN void fg_sum(struct flame_graph *g);

/* A box to draw, in drawing order (a node before its children). */
struct fg_box {
	uint32_t node;         /* FT_NONE: the merged small children of parent */
	uint32_t parent;       /* its node's parent, or the node whose children merged */
	uint32_t depth;        /* 0: the root */
	uint32_t merged;       /* merged: how many children */
	uint64_t x;            /* from the left, in weight units */
	uint64_t w, bw;        /* its weight, and the base's (inclusive) */
};

/* The boxes of g at least min_units wide (min_units > 0), in *boxes
 * (malloc'ed, *n of them; the caller frees). 0 or PROFEV_E_NOMEM. */
CONV_HIDDEN int fg_layout(const struct flame_graph *g, double min_units, struct fg_box **boxes,
			  uint32_t *n);
#endif
