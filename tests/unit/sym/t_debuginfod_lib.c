/*
 * lib/sym/debuginfod_lib.c: libdebuginfod.so.1 loads with every function
 * the client calls, or says why not (naming the library and the Debian
 * package); the answer is the same at each call.
 */
#include <string.h>
#include "check.h"
#include "sym/debuginfod_internal.h"

int main(void)
{
	const char *why = NULL;
	const struct dfd_lib *l = dfd_lib_load(&why);
	if (l) {
		CHECK(l->begin && l->find_debuginfo && l->set_progressfn && l->set_user_data &&
		      l->get_user_data && l->get_url && l->end);
	} else {
		CHECK(why && strstr(why, "libdebuginfod.so.1"));
		printf("no libdebuginfod: %s\n", why);
	}
	const char *why2 = NULL;
	CHECK(dfd_lib_load(&why2) == l);
	CHECK(why2 != NULL);
	return CHECK_DONE();
}
