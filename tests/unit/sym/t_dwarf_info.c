/*
 * lib/sym/dwarf_info.c's address map against LLVM's updateAddressDieMap
 * done literally (a sorted array standing for its std::map): the same
 * entries, in order, for ranges nested as DIEs nest them in preorder
 * (with siblings out of address order and several ranges per DIE), and
 * for any ranges at all: overlapping, equal, empty and inverted.
 */
#include <stdlib.h>
#include "check.h"
#include "sym/dwarf_form.h"

/* The reference: AddrDieMap as a sorted array of (key, hi, sub). */
struct ref {
	struct dmap *v;
	size_t n;
};

/* upper_bound(key) */
static size_t ref_ub(const struct ref *m, uint64_t key)
{
	size_t i = 0;
	while (i < m->n && m->v[i].lo <= key)
		i++;
	return i;
}

/* m[key] = (hi, sub) */
static void ref_set(struct ref *m, uint64_t key, uint64_t hi, int32_t sub)
{
	size_t i = ref_ub(m, key);
	if (i > 0 && m->v[i - 1].lo == key) {
		m->v[i - 1].hi = hi;
		m->v[i - 1].sub = sub;
		return;
	}
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = (struct dmap){ key, hi, sub };
	m->n++;
}

static void ref_insert(struct ref *m, uint64_t lo, uint64_t hi, int32_t sub)
{
	if (lo == hi)
		return;
	size_t b = ref_ub(m, lo);
	if (b > 0 && lo < m->v[b - 1].hi) {
		b--;
		struct dmap old = m->v[b];
		if (hi < old.hi)
			ref_set(m, hi, old.hi, old.sub);
		/* the entry keyed old.lo, wherever it now is */
		if (lo > old.lo)
			m->v[ref_ub(m, old.lo) - 1].hi = lo;
	}
	ref_set(m, lo, hi, sub);
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return n ? rnd_state % n : 0;
}

/* ranges r[0..n) into both maps: the same entries. */
static void compare(struct range *r, int32_t *sub, size_t n)
{
	struct profev_symbolizer *s = sym_alloc(NULL);
	struct cu cu;
	memset(&cu, 0, sizeof(cu));
	struct ref m = { malloc((2 * n + 1) * sizeof(*m.v)), 0 };
	CHECK(s && m.v);
	if (!s || !m.v)
		return;
	for (size_t i = 0; i < n; i++)
		ref_insert(&m, r[i].lo, r[i].hi, sub[i]);
	CHECK_EQ(info_map_build(s, &cu, r, sub, n), 0);
	CHECK_EQ(cu.nmap, m.n);
	size_t bad = 0;
	for (size_t i = 0; i < m.n && i < cu.nmap; i++)
		bad += cu.map[i].lo != m.v[i].lo || cu.map[i].hi != m.v[i].hi ||
		       cu.map[i].sub != m.v[i].sub;
	CHECK_EQ(bad, 0);
	free(m.v);
	profev_symbolizer_free(s);
}

/* A DIE tree in preorder: each DIE's ranges inside one of its parent's,
 * siblings placed in any order, some DIEs with several ranges. */
static size_t nested(struct range *r, int32_t *sub, size_t cap, uint64_t lo, uint64_t hi,
		     int depth, int32_t *next)
{
	size_t n = 0;
	if (depth > 4 || hi - lo < 4 || cap == 0)
		return 0;
	int32_t me = (*next)++;
	r[n] = (struct range){ lo, hi };
	sub[n++] = me;
	unsigned kids = (unsigned)rnd(5);
	for (unsigned k = 0; k < kids && n < cap; k++) {
		uint64_t span = hi - lo, a = lo + rnd(span), b = a + 1 + rnd(hi - a);
		if (rnd(4) == 0)
			a = b = lo + rnd(span); /* an empty range */
		n += nested(r + n, sub + n, cap - n, a, b > hi ? hi : b, depth + 1, next);
	}
	return n;
}

int main(void)
{
	enum { N = 4000 };
	struct range *r = malloc(N * sizeof(*r));
	int32_t *sub = malloc(N * sizeof(*sub));
	if (!r || !sub)
		return 1;
	for (int round = 0; round < 200; round++) {
		/* functions in descending address order, as GCC emits them */
		size_t n = 0;
		int32_t next = 0;
		for (uint64_t f = 40; f-- > 0 && n < N - 100;)
			n += nested(r + n, sub + n, N - 100 - n, 0x1000 + f * 0x400,
				    0x1000 + f * 0x400 + 0x100 + rnd(0x300), 0, &next);
		compare(r, sub, n);
		/* anything: overlaps, equal keys, empty and inverted ranges */
		n = 50 + rnd(400);
		for (size_t i = 0; i < n; i++) {
			uint64_t a = rnd(300), b = rnd(8) ? a + rnd(60) : rnd(300);
			r[i] = (struct range){ a, b };
			sub[i] = (int32_t)i;
		}
		compare(r, sub, n);
	}
	free(r);
	free(sub);
	return CHECK_DONE();
}
