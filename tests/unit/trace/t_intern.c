/* The interning tables of lib/trace: strings (strtab.c) and callstacks
 * (cstack.c, frame arrays interned as bytes in a strtab). */
#include <stdlib.h>
#include "check.h"
#include "trace/trace_internal.h"

static void test_strtab(void)
{
	struct strtab *t = strtab_new();
	int is_new;
	char buf[32];
	for (int i = 0; i < 10000; i++) {
		int n = snprintf(buf, sizeof(buf), "name %d", i);
		CHECK_EQ(strtab_intern(t, buf, (size_t)n, &is_new), i + 1);
		CHECK(is_new);
	}
	CHECK_EQ(strtab_intern(t, "name 42", 7, &is_new), 43);
	CHECK(!is_new);
	CHECK_EQ(strtab_append(t, "name 42", 7), 10001); /* a forced copy gets a new id */
	CHECK_EQ(strtab_intern(t, "name 42", 7, &is_new), 43);
	CHECK_EQ(strtab_intern(t, "", 0, &is_new), 10002);
	CHECK_EQ(strtab_count(t), 10002);
	strtab_free(t);
	strtab_free(NULL);
}

static void test_cstack(void)
{
	struct cstack *c = cstack_new();
	int is_new;
	struct profev_frame f[3] = { { 1, 0, 10 }, { 1, 0, 20 }, { 2, 1, 30 } };
	uint32_t a = cstack_intern(c, f, 3, &is_new);
	CHECK(is_new);
	CHECK_EQ(cstack_intern(c, f, 3, &is_new), a);
	CHECK(!is_new);
	CHECK(cstack_intern(c, f, 2, &is_new) != a);
	CHECK(cstack_intern(c, f + 1, 2, &is_new) != a);
	CHECK_EQ(cstack_append(c, f, 3), 4);
	CHECK_EQ(cstack_count(c), 4);
	cstack_free(c);
	cstack_free(NULL);
}

int main(void)
{
	test_strtab();
	test_cstack();
	return CHECK_DONE();
}
