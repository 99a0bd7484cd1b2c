/*
 * lib/sym/demangle.c: Itanium names spelled as llvm-symbolizer --demangle
 * (LLVM 14) spells them, clone suffixes, lambdas and unnamed types,
 * operator templates; names that are not mangled come back unchanged.
 */
#include <stdlib.h>
#include "check.h"
#include "profev_sym.h"

static void check_demangle(void)
{
	struct { const char *in, *out; } t[] = {
		{ "main", "main" },
		{ "_Z3foov", "foo()" },
		{ "_Z3foov.cold", "foo() (.cold)" },
		{ "_Z3fooi.constprop.0.isra.0", "foo(int) (.constprop.0.isra.0)" },
		{ "_ZN7fixture3BoxIiE5twiceEPFvvE", "fixture::Box<int>::twice(void (*)())" },
		{ "_Z1fIN1AIiEEEvT_", "void f<A<int> >(A<int>)" },
		{ "_Z1fI1AIS0_IiEEEvv", "void f<A<A<int> > >()" },
		{ "_Z2tfIZ3useiEUliE_EiT_", "int tf<use(int)::'lambda'(int)>(use(int)::'lambda'(int))" },
		{ "_ZZ3useiENKUliE0_clEi", "use(int)::'lambda0'(int)::operator()(int) const" },
		{ "_Z3foov.cold.1", "foo() (.cold.1)" },
		{ "_ZltIiEbRK1AIT_ES4_", "bool operator<<int>(A<int> const&, A<int> const&)" },
		{ "_ZlsIcEiRi1BIT_E", "int operator<<<char>(int&, B<char>)" },
		{ "_Znot_mangled", "_Znot_mangled" },
		{ "work_rare.cold", "work_rare.cold" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *d = profev_demangle(t[i].in);
		CHECK_STR(d, t[i].out);
		free(d);
	}
}

int main(void)
{
	check_demangle();
	return CHECK_DONE();
}
