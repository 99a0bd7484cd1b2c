/* The modules of one address space by address range (module_map.c): the
 * modules a client reports, and each sampled process's executable mappings.
 * A pc's module turns it into a trace frame (module index and offset).
 * Not installed. */
#ifndef PROFEV_REC_MODULE_MAP_H
#define PROFEV_REC_MODULE_MAP_H

#include <stdint.h>
#include "profev_trace.h"

struct module_range {
	uint64_t lo, hi;              /* absolute addresses, hi excluded */
	uint64_t bias;                /* pc - bias is the module's own address */
	uint32_t index;               /* the writer's module index */
	uint32_t file;                /* the sampler's file table index, UINT32_MAX if none */
};

/* Sorted by lo, no two ranges overlapping. Zeroed is empty. */
struct module_map {
	struct module_range *ranges;
	uint32_t n, cap;
};

#define module_map_add profev__module_map_add
#define module_map_find profev__module_map_find
#define module_map_copy profev__module_map_copy
#define module_map_free profev__module_map_free

/* Add a range; it replaces whatever it overlaps (the address space was
 * reused after a dlclose or munmap: pcs from now on belong to the new
 * module). With max ranges left after that, the range is not added.
 * @return 0, or -1 on no memory (the overlapped ranges are gone). */
int module_map_add(struct module_map *m, const struct module_range *add, uint32_t max);

/* The range that holds pc, or NULL. m may be NULL. */
const struct module_range *module_map_find(const struct module_map *m, uint64_t pc);

/* The trace frame of pc: its module and offset in it, or the bare pc with
 * PROFEV_FRAMEF_NOMODULE. flags (0 or PROFEV_FRAMEF_RETURN) are kept. m
 * may be NULL. */
static inline struct profev_frame module_map_frame(const struct module_map *m, uint64_t pc,
						   uint32_t flags)
{
	const struct module_range *r = module_map_find(m, pc);
	if (r)
		return (struct profev_frame){ r->index, flags, pc - r->bias };
	return (struct profev_frame){ 0, flags | PROFEV_FRAMEF_NOMODULE, pc };
}

/* dst, empty, becomes a copy of src. @return 0, or -1 on no memory. */
int module_map_copy(struct module_map *dst, const struct module_map *src);

/* Frees the ranges; the map is empty. */
void module_map_free(struct module_map *m);

#endif
