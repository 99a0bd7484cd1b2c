/* libprofev-tracy without a recorder: the site table (one site per key and
 * type, the same from every thread, NULL once 4096 keys are in), zone
 * contexts, run-time source locations and lock contexts. What the macros
 * record under pfrec is tests/cli/120-rec-tracy.sh. */
#include <pthread.h>
#include <stdlib.h>
#include "check.h"
#define TRACY_ENABLE 1
#include "tracy/TracyC.h"

#define KEYS 4096
static char keys[KEYS + 1];

static void *insert_all(void *arg)
{
	struct profev_site **out = arg;
	for (int i = 0; i < KEYS / 2; i++)
		out[i] = profev_tracy__site(&keys[i], PROFEV__R_COUNTER, &profev_cat_tracy, "k", 0, 0, 0);
	return NULL;
}

int main(void)
{
	/* A key gives the same site every time; another type, another site. */
	struct profev_site *a = profev_tracy__site(keys, PROFEV__R_FRAME, &profev__frames, "frames", 0, 0, 0);
	CHECK(a != NULL);
	CHECK(profev_tracy__site(keys, PROFEV__R_FRAME, &profev__frames, "other", 0, 0, 0) == a);
	CHECK_STR(a->name, "frames");
	CHECK_EQ(a->type, PROFEV__R_FRAME);
	CHECK(a->category == &profev__frames);
	CHECK_EQ_U64(a->word, 0);
	/* With a function the site carries its source location. */
	struct profev_site *l = profev_tracy__site(&keys[1], PROFEV__R_BEGIN, &profev_cat_tracy, "zone", "fn",
						   "f.c", 12);
	CHECK(l && l->type == (PROFEV__R_BEGIN | PROFEV__SITE_LOC) && l->line == 12);
	CHECK_STR(l->function, "fn");
	CHECK_STR(l->file, "f.c");
	struct profev_site *b = profev_tracy__site(keys, PROFEV__R_COUNTER, &profev_cat_tracy, "plot", 0, 0, 0);
	CHECK(b != NULL && b != a);

	/* Two threads that insert the same keys at once get the same sites. */
	static struct profev_site *one[KEYS / 2], *two[KEYS / 2];
	pthread_t t1, t2;
	pthread_create(&t1, NULL, insert_all, one);
	pthread_create(&t2, NULL, insert_all, two);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	int same = 0, distinct = 1;
	for (int i = 0; i < KEYS / 2; i++) {
		same += one[i] && one[i] == two[i];
		if (i && one[i] == one[i - 1])
			distinct = 0;
	}
	CHECK_EQ(same, KEYS / 2);
	CHECK(distinct);
	CHECK(one[0] == b); /* keys[0] as a counter was inserted above */

	/* The table holds 4096 keys: 3 + 2047 new ones so far; then NULL. */
	int made = 0;
	for (int i = KEYS / 2; i <= KEYS; i++)
		made += profev_tracy__site(&keys[i], PROFEV__R_COUNTER, &profev_cat_tracy, "k", 0, 0, 0) != NULL;
	CHECK_EQ(made, KEYS - (KEYS / 2 + 2));
	CHECK(profev_tracy__site(&keys[KEYS], PROFEV__R_COUNTER, &profev_cat_tracy, "k", 0, 0, 0) == NULL);
	CHECK(profev_tracy__site(&keys[5], PROFEV__R_COUNTER, &profev_cat_tracy, "k", 0, 0, 0) == one[5]);

	/* A zone context carries the whole end word; 0 is "no zone". */
	uint64_t w = (uint64_t)0x12345678 << 32 | 7u << 16 | PROFEV__R_END;
	TracyCZoneCtx c = profev_tracy__ctx(w);
	CHECK_EQ_U64(profev_tracy__end_word(c), w);
	CHECK(c.active != 0);
	CHECK_EQ(profev_tracy__ctx(0).active, 0);
	CHECK_EQ(sizeof(TracyCZoneCtx), 8);

	/* Not recording: zones are not begun, and a run-time source location
	 * is freed all the same (ASan sees a leak otherwise). */
	CHECK(!profev_active());
	TracyCZoneN(z, "zone", 1);
	CHECK_EQ(z.active, 0);
	TracyCZoneEnd(z);
	uint64_t loc = ___tracy_alloc_srcloc_name(1, "f.c", 3, "fn", 2, "name", 4, 0);
	CHECK(loc != 0);
	CHECK_EQ(___tracy_emit_zone_begin_alloc(loc, 1).active, 0);
	loc = ___tracy_alloc_srcloc(1, "f.c", 3, "fn", 2, 0);
	CHECK_EQ(___tracy_emit_zone_begin_alloc_callstack(loc, 4, 0).active, 0);
	CHECK_EQ(___tracy_connected(), 0);

	/* Lock contexts: made, renamed (cut to their 63 bytes), freed. */
	TracyCLockCtx lk;
	TracyCLockAnnounce(lk);
	CHECK(lk != NULL);
	TracyCLockCustomName(lk, "a name much longer than sixty-three bytes, which is what a context keeps", 72);
	CHECK_EQ(___tracy_before_lock_lockable_ctx(lk), 1);
	TracyCLockTerminate(lk);
	return CHECK_DONE();
}
