/*
 * lib/sym/arena.c: arrays built in place at the arena's end, and the
 * strings allocated after them.
 */
#include <stdint.h>
#include "check.h"
#include "sym/sym_internal.h"

/* Arrays built in place at the arena's end keep their bytes as they grow
 * past a block (into a huge-page one), aligned, and strings after them do
 * not overlap them. */
static void check_arena(void)
{
	struct arena a = { 0 };
	CHECK(arena_alloc(&a, 3) != NULL);
	uint32_t *v = arena_reserve_tail(&a, 0, 16 * sizeof(*v));
	CHECK(v && (uintptr_t)v % 16 == 0);
	if (!v)
		return;
	size_t n = 0, cap = 16;
	for (uint32_t i = 0; i < 3u << 20; i++) {
		if (n == cap) {
			uint32_t *w = arena_reserve_tail(&a, n * sizeof(*v), 2 * cap * sizeof(*v));
			CHECK(w != NULL);
			if (!w)
				break;
			v = w;
			cap *= 2;
		}
		v[n++] = i * 2654435761u;
	}
	arena_commit_tail(&a, n * sizeof(*v));
	char *str = arena_strdup(&a, "after");
	CHECK(str && (str >= (char *)(v + n) || str + 6 <= (char *)v));
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += v[i] != (uint32_t)i * 2654435761u;
	CHECK_EQ(n, (size_t)3 << 20);
	CHECK_EQ(bad, 0);
	CHECK(a.nblocks > 1);
	/* a tail reserved and never committed is given back: the next starts there */
	void *r = arena_reserve_tail(&a, 0, 64);
	CHECK(r == arena_reserve_tail(&a, 0, 32));
	arena_free(&a);
}

int main(void)
{
	check_arena();
	return CHECK_DONE();
}
