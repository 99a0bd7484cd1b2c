/* The C seed of the symbolizer's corpus (make-seeds.sh): DWARF 5 with
 * inline chains, a static function and a cold part. No libc. */
static inline __attribute__((always_inline)) int leaf(int x)
{
	return x * 3 + 1;
}

static inline __attribute__((always_inline)) int middle(int x)
{
	return leaf(x) ^ leaf(x + 1);
}

static __attribute__((noinline)) int helper(int x)
{
	return middle(x) + 2;
}

__attribute__((cold, noinline)) int rare(int x)
{
	return helper(x) - 1;
}

int seed_entry(int x)
{
	if (x < 0)
		return rare(x);
	return helper(x) + middle(x);
}
