/*
 * conv/flame_tree.h - the stack tree behind the folded and svg targets (not
 * installed).
 *
 * Zones, samples, allocations or GPU zones form a tree of (parent, name)
 * nodes, one root per thread (one for all with PROFEV_CONV_MERGE_THREADS,
 * one per GPU context with PROFEV_CONV_GPU). Each open zone remembers its
 * node, so an end adds its self time in O(1). With PROFEV_CONV_SAMPLES each
 * sample adds 1 to its callstack's node, with PROFEV_CONV_ALLOC each
 * allocation its bytes (PROFEV_CONV_LIVE: less the bytes of the blocks
 * freed later), and zones are left out. Callstack frames are named by
 * function once pfsym has run, else module+offset: names the tree keeps
 * itself (FT_FNAME ids), since the trace has no string for them.
 *
 * A target using it keeps a struct flame_tree first in its state (c->fmt)
 * and takes the callbacks below into its ops table; folded.c writes the
 * tree as lines, svg.c as a picture. Memory grows with the number of
 * distinct stacks (and, for PROFEV_CONV_LIVE, of blocks still allocated),
 * not with events.
 */
#ifndef PROFEV_FLAME_TREE_H
#define PROFEV_FLAME_TREE_H
#include "conv/conv_internal.h"

#define FT_NONE UINT32_MAX
#define FT_FNAME 0x80000000u /* a node name that is an index in the tree's names */

struct ft_node {
	uint32_t parent, name; /* name: string id or FT_FNAME | index; a root's is unused */
	uint32_t first_child, next_sibling;
	uint64_t weight;       /* self weight: ns, samples or bytes */
};

struct ft_root {
	uint32_t node;
	const struct conv_thread *t; /* NULL: the merged root or a GPU context's */
	int64_t gpu;                 /* a GPU context's id, -1: none */
};

struct flame_tree {
	struct ft_node *nodes;
	uint32_t n, cap;
	uint32_t *slots; /* hash of (parent, name) -> node + 1 */
	uint32_t nslots;
	struct ft_root *roots;
	uint32_t nroots, rcap;
	/* frame names of callstacks: offsets of NUL-terminated names in text */
	char *text;
	size_t tlen, tcap;
	uint32_t *names, nnames, namecap;
	uint32_t *nslot, nslotcap; /* hash of name -> index + 1 */
	struct u64_map blocks;     /* PROFEV_CONV_LIVE: address -> node of its block */
};

/* Set up the tree of c (c->fmt points at it). 0 or PROFEV_E_NOMEM. */
CONV_HIDDEN int flame_tree_init(struct conv *c, struct flame_tree *f);
CONV_HIDDEN void flame_tree_free(struct flame_tree *f);

/* A node name's text (a string of the reader or one of the tree's). */
static inline const char *flame_tree_name(const struct conv *c, const struct flame_tree *f,
					  uint32_t name)
{
	return name & FT_FNAME ? f->text + f->names[name & ~FT_FNAME] : profev_reader_string(c->r, name);
}

/* Root i's frame, NUL-terminated in *buf (grown with malloc; *cap its
 * size): "GPU N: NAME" for a GPU context; a thread's name and " (TID)"
 * (its name alone with PROFEV_CONV_THREAD_NAMES), "thread TID" if it has
 * none; "" for the merged root, which has no frame. @return its length, or
 * PROFEV_E_NOMEM. */
CONV_HIDDEN int flame_root_label(const struct conv *c, const struct flame_tree *f, uint32_t i,
				 char **buf, size_t *cap);

/* A name as folded stacks and the svg target write it, into o (at least
 * 3 * n + 9 bytes): ';' becomes ':', line ends spaces, bytes that are not
 * UTF-8 U+FFFD (counted in *replaced), an empty name "(unnamed)".
 * @return the bytes written. */
CONV_HIDDEN size_t flame_name_clean(char *o, const char *s, size_t n, uint64_t *replaced);

/* The callbacks that fill the tree (c->fmt begins with a struct flame_tree). */
CONV_HIDDEN int flame_nothing(struct conv *c);
CONV_HIDDEN int flame_thread(struct conv *c, struct conv_thread *t);
CONV_HIDDEN int flame_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge);
CONV_HIDDEN int flame_zone_rename(struct conv *c, struct conv_thread *t, struct conv_zone *z);
CONV_HIDDEN int flame_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z,
			       uint64_t ts, int edge);
CONV_HIDDEN int flame_event(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
CONV_HIDDEN int flame_message(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
			      const char *text, size_t len);
CONV_HIDDEN int flame_counter(struct conv *c, const struct profev_event *ev);
CONV_HIDDEN int flame_sample(struct conv *c, struct conv_thread *t, const struct profev_event *ev);
CONV_HIDDEN int flame_memory(struct conv *c, struct conv_thread *t, const struct profev_event *ev,
			     const struct conv_mem *m);
CONV_HIDDEN int flame_gpu_begin(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z);
CONV_HIDDEN int flame_gpu_end(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z);

/* The ops of a target built on the tree: folded's and svg's differ in name,
 * init, fini and finish only. Their PROFEV_CONV_ALLOC variants add
 * .memory = flame_memory (targets.c picks them): without it the read loop
 * does not follow the blocks, which costs time and memory. */
#define FLAME_TREE_OPS                         \
	.split_ok = 0,                         \
	.part_begin = flame_nothing,           \
	.part_end = flame_nothing,             \
	.thread = flame_thread,                \
	.zone_begin = flame_zone_begin,        \
	.zone_end = flame_zone_end,            \
	.zone_rename = flame_zone_rename,      \
	.instant = flame_event,                \
	.message = flame_message,              \
	.lost = flame_event,                   \
	.counter = flame_counter,              \
	.sample = flame_sample,                \
	.gpu_begin = flame_gpu_begin,          \
	.gpu_end = flame_gpu_end
#endif
