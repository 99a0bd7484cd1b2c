/*
 * sym/arena.c - the bump allocator of what lives as long as a
 * symbolizer: strings, and each unit's tables once loaded (sym_internal.h
 * says how it is used).
 */
#include <sys/mman.h>
#include "sym/sym_internal.h"

#define ARENA_BLOCK_MIN ((size_t)64 << 10)
#define ARENA_BLOCK_MAX ((size_t)32 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/* A block of at least n bytes, made current. -1: no memory. */
static int arena_block(struct arena *a, size_t n)
{
	size_t sz = a->next < ARENA_BLOCK_MIN ? ARENA_BLOCK_MIN : a->next;
	if (sz < n)
		sz = n;
	if (a->nblocks == a->capblocks &&
	    grow((void **)&a->blocks, &a->capblocks, a->nblocks + 1, sizeof(*a->blocks)))
		return -1;
	struct arena_block b = { NULL, sz, 0 };
	if (sz >= HUGE_PAGE) {
		sz = (sz + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		char *m = mmap(NULL, sz + HUGE_PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			/* the 2 MB-aligned part, the rest given back */
			size_t head = (HUGE_PAGE - (uintptr_t)m % HUGE_PAGE) % HUGE_PAGE;
			if (head)
				munmap(m, head);
			munmap(m + head + sz, HUGE_PAGE - head);
			b = (struct arena_block){ m + head, sz, 1 };
#ifdef MADV_HUGEPAGE
			madvise(b.p, sz, MADV_HUGEPAGE);
#endif
		}
	}
	if (!b.p && !(b.p = malloc(b.len)))
		return -1;
	a->blocks[a->nblocks++] = b;
	a->cur = b.p;
	a->left = b.len;
	if (a->next < ARENA_BLOCK_MAX)
		a->next = a->next ? a->next * 2 : ARENA_BLOCK_MIN * 2;
	return 0;
}

char *arena_alloc(struct arena *a, size_t n)
{
	if (n > a->left && arena_block(a, n))
		return NULL;
	char *p = a->cur;
	a->cur += n;
	a->left -= n;
	return p;
}

void *arena_reserve_tail(struct arena *a, size_t used, size_t n)
{
	size_t pad = (16 - (uintptr_t)a->cur % 16) % 16;
	if (used == 0 && pad <= a->left) {
		a->cur += pad;
		a->left -= pad;
	}
	if (n <= a->left)
		return a->cur;
	char *old = a->cur;
	if (arena_block(a, n))
		return NULL;
	if (used)
		memcpy(a->cur, old, used);
	return a->cur;
}

void arena_commit_tail(struct arena *a, size_t n)
{
	a->cur += n;
	a->left -= n;
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

void arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->nblocks; i++) {
		if (a->blocks[i].mapped)
			munmap(a->blocks[i].p, a->blocks[i].len);
		else
			free(a->blocks[i].p);
	}
	free(a->blocks);
	memset(a, 0, sizeof(*a));
}
