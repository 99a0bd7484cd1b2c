/* pfdump --compare: one trace's side (compare_collect.c fills it) and the
 * rows that match two sides with their verdicts (compare_rows.c), written
 * by compare_write.c. Not installed. */
#ifndef PROFEV_COMPARE_H
#define PROFEV_COMPARE_H
#include <stdint.h>
#include "profev_dump.h"
#include "show/compare_stats.h"

/* Durations under one name: a frame set's frame times, a zone name's or a
 * call site's zone times. Sorted once the side is whole. */
struct cmp_series {
	char *name;                /* zone or frame set name, "" for the default set */
	char *where;               /* call site: "function file:line"; NULL otherwise */
	uint64_t *v;
	uint64_t n;
	int owned;                 /* v is this series' own (else a raw one's) */
};

/* Allocations made from one callstack (text: its frames, innermost first). */
struct cmp_alloc {
	char *stack;
	uint64_t count, bytes;
};

struct profev_compare_side {
	struct cmp_series *frames;  /* by set name */
	uint32_t nframes;
	struct cmp_series *zones;   /* by name */
	uint32_t nzones;
	struct cmp_series *sites;   /* by name, then where */
	uint32_t nsites;
	struct cmp_alloc *allocs;   /* by stack text */
	uint32_t nallocs;
	uint64_t mem_events;        /* MEM_ALLOC and MEM_FREE events */
	uint64_t **raw;             /* the vectors sites and zones point into */
	uint32_t nraw;
};

/* The share of alpha the tail test takes when the tail can be tested; the
 * rank test has the rest. */
#define TAIL_SHARE 0.2

enum cmp_kind { CMP_FRAMES, CMP_ZONE, CMP_SITE, CMP_ALLOC };

enum cmp_verdict {
	CMP_SAME = 0,              /* no significant change above the threshold */
	CMP_SLOWER, CMP_FASTER,
	CMP_RARE,                  /* too few samples on a side */
	CMP_ONLY_BASE, CMP_ONLY_NEW,
	CMP_MORE, CMP_LESS,        /* allocations: change above the threshold */
};

/* A name present in either trace, matched. */
struct cmp_row {
	enum cmp_kind kind;
	const char *name, *where;  /* the series' (or the stack's text in name) */
	const struct cmp_series *a, *b; /* NULL when absent on that side */
	struct sample_summary sa, sb;
	double ratio, lo, hi;      /* of medians, with its interval; 0 if untested */
	double p99_ratio;
	double p, z;               /* Mann-Whitney; p = -1 untested */
	double tail_p, tail_z;     /* share above the pooled p99; -1 untested */
	enum cmp_verdict verdict;
	int by_tail;               /* the verdict comes from the tail test */
	const struct cmp_alloc *alloc_a, *alloc_b;
	double change;             /* the sort key: |ln ratio| of what decided */
};

struct cmp_table {
	struct cmp_row *rows;
	uint32_t n;
};

/* Match base's and new's series of one kind and decide each row. NULL
 * pointers in t on no memory (returns -1). */
int cmp_rows(const struct profev_compare_side *base, const struct profev_compare_side *new_, enum cmp_kind kind,
	     const struct profev_compare_opts *o, struct cmp_table *t);
void cmp_table_free(struct cmp_table *t);

extern const char *const cmp_verdict_names[];
#endif
