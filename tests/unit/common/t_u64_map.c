/* The u64-keyed hash map (lib/common/u64_map.c): inserts, finds, removals
 * with backward shifts and iteration, held against a plain array through
 * random operations on keys that collide in their home slot. */
#include <stdlib.h>
#include "check.h"
#include "common/u64_map.h"

struct entry {
	uint64_t key;
	uint64_t value;
	uint32_t extra;
};

#define KEYS 600

static uint64_t rng = 88172645463325252ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Keys that share home slots in small tables: multiples of a power of two
 * make the multiplicative hash's low bits collide often. */
static uint64_t key_of(unsigned i)
{
	return ((uint64_t)i + 1) << 40 | (i % 3);
}

static void random_operations(void)
{
	struct u64_map m;
	u64_map_init(&m, sizeof(struct entry));
	uint64_t model[KEYS] = { 0 }; /* value + 1, 0 = absent */
	for (int step = 0; step < 200000; step++) {
		unsigned i = (unsigned)(next_random() % KEYS);
		uint64_t key = key_of(i);
		switch (next_random() % 3) {
		case 0: {
			int added = -1;
			struct entry *e = u64_map_insert(&m, key, &added);
			CHECK(e != NULL);
			if (!e)
				return;
			CHECK_EQ(added, model[i] == 0);
			if (added)
				CHECK_EQ_U64(e->value, 0);
			e->value = (uint64_t)step;
			e->extra = i;
			model[i] = (uint64_t)step + 1;
			break;
		}
		case 1:
			CHECK_EQ(u64_map_delete(&m, key), model[i] != 0);
			model[i] = 0;
			break;
		default: {
			struct entry *e = u64_map_find(&m, key);
			CHECK_EQ(e != NULL, model[i] != 0);
			if (e && model[i]) {
				CHECK_EQ_U64(e->value + 1, model[i]);
				CHECK_EQ(e->extra, i);
			}
		}
		}
		if (check_failures > 10)
			break;
	}
	uint64_t expected = 0, seen = 0;
	for (unsigned i = 0; i < KEYS; i++)
		expected += model[i] != 0;
	CHECK_EQ_U64(m.count, expected);
	for (struct entry *e = u64_map_next(&m, NULL); e; e = u64_map_next(&m, e)) {
		unsigned i = e->extra;
		CHECK(i < KEYS && key_of(i) == e->key && model[i] == e->value + 1);
		seen++;
	}
	CHECK_EQ_U64(seen, expected);
	u64_map_free(&m);
	CHECK(u64_map_find(&m, key_of(0)) == NULL);
}

static void set_and_clear(void)
{
	struct u64_map set;
	u64_map_init(&set, sizeof(uint64_t));
	CHECK(u64_map_find(&set, 5) == NULL);
	CHECK(u64_map_next(&set, NULL) == NULL);
	CHECK_EQ(u64_map_delete(&set, 5), 0);
	for (uint64_t k = 1; k <= 1000; k++) {
		int added = 0;
		CHECK(u64_map_insert(&set, k * 7, &added) != NULL);
		CHECK_EQ(added, 1);
	}
	CHECK_EQ_U64(set.count, 1000);
	CHECK(set.mask + 1 >= 2000);
	int added = 1;
	CHECK(u64_map_insert(&set, 7, &added) != NULL);
	CHECK_EQ(added, 0);
	CHECK(u64_map_find(&set, 8) == NULL);
	uint64_t slots = set.mask + 1;
	u64_map_clear(&set);
	CHECK_EQ_U64(set.count, 0);
	CHECK_EQ_U64(set.mask + 1, slots);
	CHECK(u64_map_find(&set, 7) == NULL);
	CHECK(u64_map_insert(&set, 7, NULL) != NULL);
	CHECK(u64_map_find(&set, 7) != NULL);
	u64_map_free(&set);
}

/* A full run wrapping the table's end: removal at the last slot must pull
 * back the entries that wrapped to slot 0. */
static void wrapping_runs(void)
{
	struct u64_map m;
	u64_map_init(&m, sizeof(uint64_t));
	CHECK(u64_map_insert(&m, 1, NULL) != NULL); /* allocates 16 slots */
	uint64_t same_home[6];
	unsigned found = 0;
	for (uint64_t k = 2; found < 6 && k < 1000000; k++)
		if (u64_map_home(&m, k) == m.mask)
			same_home[found++] = k;
	CHECK_EQ(found, 6);
	for (unsigned i = 0; i < found; i++)
		CHECK(u64_map_insert(&m, same_home[i], NULL) != NULL);
	CHECK_EQ_U64(m.mask, 15);
	CHECK_EQ(u64_map_delete(&m, same_home[0]), 1);
	for (unsigned i = 1; i < found; i++)
		CHECK(u64_map_find(&m, same_home[i]) != NULL);
	CHECK(u64_map_find(&m, 1) != NULL);
	u64_map_free(&m);
}

int main(void)
{
	random_operations();
	set_and_clear();
	wrapping_runs();
	return CHECK_DONE();
}
