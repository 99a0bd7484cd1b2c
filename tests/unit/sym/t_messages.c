/*
 * lib/sym/messages.c: sym_fail() sets the error it returns; sym_warn()
 * keeps each text once, in the module's symbolizer, and marks the file
 * it was about as damaged; past WARN_MAX texts, one last warning counts
 * the others.
 */
#include "check.h"
#include "sym/sym_internal.h"

int main(void)
{
	struct profev_symbolizer *s = sym_alloc(NULL), *part = sym_alloc(NULL);
	CHECK(s && part);
	if (!s || !part)
		return CHECK_DONE();
	CHECK_EQ(sym_fail(s, PROFEV_E_CORRUPT, "'%s': bad at %d", "f", 7), PROFEV_E_CORRUPT);
	CHECK_EQ(s->err.code, PROFEV_E_CORRUPT);
	CHECK_STR(s->err.message, "'f': bad at 7");

	part->owner = s;
	sym_warn(part, "'%s': damaged", "a.dwo");
	sym_warn(s, "'%s': damaged", "a.dwo");
	sym_warn(s, "'%s': damaged", "b");
	const char *const *w;
	CHECK_EQ(profev_symbolizer_warnings(s, &w), 2);
	CHECK_STR(w[0], "'a.dwo': damaged");
	CHECK_STR(w[1], "'b': damaged");
	CHECK_EQ(part->nwarnings, 0);
	CHECK(part->damaged && s->damaged);

	/* many texts: WARN_MAX kept, then one that counts the rest (each
	 * repeated text once) */
	s->path = "m.debug";
	for (int i = 0; i < 1000; i++)
		sym_warn(s, "'%s': unit at offset 0x%x: bad", "m.debug", i % 500);
	CHECK_EQ(profev_symbolizer_warnings(s, &w), WARN_MAX + 1);
	CHECK_STR(w[2], "'m.debug': unit at offset 0x0: bad");
	CHECK_STR(w[WARN_MAX], "'m.debug': and 486 more warnings about damage, not shown");
	sym_close(part);
	sym_close(s);
	return CHECK_DONE();
}
