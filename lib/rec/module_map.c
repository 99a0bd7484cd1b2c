/* The modules of an address space by range (module_map.h). */
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "rec/module_map.h"

int module_map_add(struct module_map *m, const struct module_range *add, uint32_t max)
{
	uint32_t out = 0;
	for (uint32_t i = 0; i < m->n; i++)
		if (m->ranges[i].hi <= add->lo || m->ranges[i].lo >= add->hi)
			m->ranges[out++] = m->ranges[i];
	m->n = out;
	if (m->n >= max)
		return 0;
	if (array_grow((void **)&m->ranges, &m->cap, sizeof *m->ranges, m->n + 1))
		return -1;
	uint32_t k = 0;
	while (k < m->n && m->ranges[k].lo < add->lo)
		k++;
	memmove(m->ranges + k + 1, m->ranges + k, (m->n - k) * sizeof *m->ranges);
	m->ranges[k] = *add;
	m->n++;
	return 0;
}

const struct module_range *module_map_find(const struct module_map *m, uint64_t pc)
{
	if (!m)
		return NULL;
	uint32_t lo = 0, hi = m->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->ranges[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && pc >= m->ranges[lo].lo ? &m->ranges[lo] : NULL;
}

int module_map_copy(struct module_map *dst, const struct module_map *src)
{
	if (!src->n)
		return 0;
	if (!(dst->ranges = malloc(src->n * sizeof *dst->ranges)))
		return -1;
	memcpy(dst->ranges, src->ranges, src->n * sizeof *dst->ranges);
	dst->n = dst->cap = src->n;
	return 0;
}

void module_map_free(struct module_map *m)
{
	free(m->ranges);
	m->ranges = NULL;
	m->n = m->cap = 0;
}
