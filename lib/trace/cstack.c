/* Callstack deduplication: identical frame arrays share one id. A frame
 * array is interned as its bytes in a string table (strtab.c): struct
 * profev_frame has no padding (4 + 4 + 8 bytes), so equal frames are equal
 * bytes and the bytes hash as they are. */
#include <stdlib.h>
#include "trace/trace_internal.h"

_Static_assert(sizeof(struct profev_frame) == 16, "frames compare as bytes: no padding");

struct cstack {
	struct strtab *arrays;
};

struct cstack *cstack_new(void)
{
	struct cstack *t = malloc(sizeof(*t));
	if (t && !(t->arrays = strtab_new())) {
		free(t);
		t = NULL;
	}
	return t;
}

void cstack_free(struct cstack *t)
{
	if (!t)
		return;
	strtab_free(t->arrays);
	free(t);
}

uint32_t cstack_count(const struct cstack *t)
{
	return strtab_count(t->arrays);
}

/* The bytes of n frames; an empty array may come as NULL. */
static const char *bytes(const struct profev_frame *f, unsigned n)
{
	return n ? (const char *)f : "";
}

uint32_t cstack_intern(struct cstack *t, const struct profev_frame *f, unsigned n, int *is_new)
{
	return strtab_intern(t->arrays, bytes(f, n), n * sizeof(*f), is_new);
}

uint32_t cstack_append(struct cstack *t, const struct profev_frame *f, unsigned n)
{
	return strtab_append(t->arrays, bytes(f, n), n * sizeof(*f));
}
