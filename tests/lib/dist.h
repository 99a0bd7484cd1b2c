/* Traces whose zone times come from known distributions, for testing
 * pfdump --compare where the truth is known (mkdist, t_compare_truth).
 *
 * FRAMES frames on thread "main", each a frame mark and
 * then these zones one after another, times drawn from SEED:
 *   steady   lognormal, median 200 us, sigma 0.2 (a 20% spread)
 *   bimodal  97% near 100 us, 3% near 1000 us (lognormal, sigma 0.05):
 *            mean 127 us, p99 in the upper mode (about 1022 us)
 *   noisy    50 us + exponential of mean 50 us
 *   load     from two call sites, load_mesh (assets.c:10, 120 us) and
 *            load_texture (assets.c:42, 80 us), lognormal sigma 0.1
 *   legacy   30 us
 *   rare     40 us, in one frame of 100
 * and an allocation of 256 bytes from one callstack, freed at once. The
 * frame lasts its zones and 100 us more.
 *
 * CHANGES, a comma-separated list, changes the distributions:
 *   slow     steady 10% slower (every time x 1.10)
 *   tail     bimodal: 98.5% near 97.12 us, 1.5% near 2089 us: the same
 *            mean, p99 doubled
 *   site     load_texture 30% slower (load_mesh unchanged)
 *   swap     no legacy; a zone "shiny" of 30 us instead
 *   alloc    the allocations take 512 bytes
 *
 * Same arguments, same bytes. */
#ifndef PROFEV_DIST_H
#define PROFEV_DIST_H
#include <stdint.h>
#include "profev_trace.h"

/* 1 if changes (may be NULL) is a comma-separated list of known changes. */
int dist_changes_valid(const char *changes);
/* Write the trace to fd. 0, or a negative profev_errc with err set. */
int dist_write(int fd, uint64_t seed, uint64_t frames, const char *changes, struct profev_error *err);
#endif
