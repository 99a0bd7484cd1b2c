/*
 * sym/demangle.c - Itanium C++ names demangled and spelled as LLVM 14's
 * llvm-symbolizer --demangle spells them, through libiberty when it is
 * linked in, else libstdc++'s __cxa_demangle found at run time.
 */
#include <dlfcn.h>
#include <stdio.h>
#include "sym/sym_internal.h"

#ifdef PROFEV_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

/*
 * libiberty and libstdc++ share one Itanium demangler (cp-demangle.c) whose
 * spelling differs from LLVM's in a few places; rewrite those so the names
 * match llvm-symbolizer's:
 *   " [clone .cold] [clone .1]"  ->  " (.cold.1)"   (LLVM: one group)
 *   "{lambda(int)#1}"            ->  "'lambda'(int)", #2 -> "'lambda0'(...)"
 *   "{unnamed type#1}"           ->  "'unnamed'",     #2 -> "'unnamed0'"
 *   "operator< <T>"              ->  "operator<<T>" (also for operator<<)
 * Known remaining difference: LLVM 14 prints a return type before local
 * classes of function templates ("void f<int>()::L::L()").
 */
static char *llvm_style(char *s)
{
	size_t n = strlen(s);
	char *out = malloc(n + 16);
	if (!out) {
		free(s);
		return NULL;
	}
	size_t o = 0;
	const char *p = s;
	int in_clone = 0;
	while (*p) {
		if (strncmp(p, " [clone ", 8) == 0 && strchr(p + 8, ']')) {
			const char *end = strchr(p + 8, ']');
			if (!in_clone) {
				memcpy(out + o, " (", 2);
				o += 2;
				in_clone = 1;
			}
			memcpy(out + o, p + 8, (size_t)(end - p - 8));
			o += (size_t)(end - p - 8);
			p = end + 1;
			continue;
		}
		if (in_clone) {
			out[o++] = ')';
			in_clone = 0;
		}
		int lambda = strncmp(p, "{lambda(", 8) == 0;
		int unnamed = strncmp(p, "{unnamed type#", 14) == 0;
		if (lambda || unnamed) {
			/* find the matching "#N}" of this brace */
			int depth = 0;
			const char *q = p, *hash = NULL;
			for (; *q; q++) {
				if (*q == '{')
					depth++;
				else if (*q == '}' && --depth == 0)
					break;
				else if (*q == '#' && depth == 1)
					hash = q;
			}
			if (*q == '}' && hash) {
				long k = strtol(hash + 1, NULL, 10);
				const char *word = lambda ? "'lambda" : "'unnamed";
				o += (size_t)sprintf(out + o, "%s", word);
				if (k > 1)
					o += (size_t)sprintf(out + o, "%ld", k - 2);
				out[o++] = '\'';
				if (lambda) {
					/* the parameter list, "(int)" */
					memcpy(out + o, p + 7, (size_t)(hash - p - 7));
					o += (size_t)(hash - p - 7);
				}
				p = q + 1;
				continue;
			}
		}
		if (strncmp(p, "operator<", 9) == 0) {
			size_t k = p[9] == '<' ? 10 : 9;
			if (p[k] == ' ' && p[k + 1] == '<') {
				memcpy(out + o, p, k);
				o += k;
				p += k + 1;
				continue;
			}
		}
		out[o++] = *p++;
	}
	if (in_clone)
		out[o++] = ')';
	out[o] = '\0';
	free(s);
	return out;
}

char *demangle_with(cxa_demangle_fn cxa, const char *name)
{
	char *d = NULL;
	if (strncmp(name, "_Z", 2) == 0) {
#ifdef PROFEV_HAVE_LIBIBERTY
		(void)cxa;
		d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
#else
		int status = 0;
		if (cxa)
			d = cxa(name, NULL, NULL, &status);
		if (status != 0) {
			free(d);
			d = NULL;
		}
#endif
	}
	if (d)
		return llvm_style(d);
	return strdup(name);
}

/* Without libiberty linked in, borrow libstdc++'s __cxa_demangle at run
 * time so that libprofev needs no C++ runtime to link. */
void *demangler_open(cxa_demangle_fn *fn)
{
	*fn = NULL;
#ifdef PROFEV_HAVE_LIBIBERTY
	return NULL;
#else
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		*(void **)fn = dlsym(h, "__cxa_demangle");
	return h;
#endif
}

char *profev_demangle(const char *name)
{
	cxa_demangle_fn fn;
	void *h = demangler_open(&fn);
	char *d = demangle_with(fn, name);
	if (h)
		dlclose(h);
	return d;
}

const char *sym_demangled(struct profev_symbolizer *s, const char *name)
{
	char *d = demangle_with(s->demangler, name);
	if (!d)
		return NULL;
	const char *r = arena_strdup(&s->arena, d);
	free(d);
	return r;
}
