/*
 * sym/debuginfod_lib.c - elfutils' libdebuginfod, loaded with dlopen()
 * when a server is first to be asked, not linked: it brings libcurl and
 * the TLS, HTTP/2, SSH and LDAP libraries behind it, and its constructor
 * initializes curl. Linked, every profev command (pfrec included) would
 * pay for that at each start and would not start at all on a machine
 * without them; loaded on demand, it costs nothing unless pfsym has
 * something to fetch, and its absence is a warning.
 *
 * It is loaded once per process and never unloaded: unloading it unloads
 * libcurl and its TLS library, whose global state (initialized by
 * libdebuginfod's constructor) would be left behind, and curl's global
 * initialization is not meant to run twice.
 */
#include <dlfcn.h>
#include <stdio.h>
#include "sym/debuginfod_internal.h"

static struct {
	void *dl;
	int tried;
	char error[384];
	struct dfd_lib fn;
} lib;

const struct dfd_lib *dfd_lib_load(const char **why)
{
	*why = lib.error;
	if (lib.tried)
		return lib.dl ? &lib.fn : NULL;
	lib.tried = 1;
	dlerror();
	void *dl = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *e = dlerror();
		snprintf(lib.error, sizeof(lib.error),
			 "unable to load %s (%s; Debian: apt-get install libdebuginfod1)",
			 DEBUGINFOD_SONAME, e ? e : "not found");
		return NULL;
	}
	static const char *const names[] = { "begin", "find_debuginfo", "set_progressfn",
					     "set_user_data", "get_user_data", "get_url", "end" };
	void **slots[] = { (void **)&lib.fn.begin, (void **)&lib.fn.find_debuginfo,
			   (void **)&lib.fn.set_progressfn, (void **)&lib.fn.set_user_data,
			   (void **)&lib.fn.get_user_data, (void **)&lib.fn.get_url,
			   (void **)&lib.fn.end };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char sym[64];
		snprintf(sym, sizeof(sym), "debuginfod_%s", names[i]);
		if (!(*slots[i] = dlsym(dl, sym))) {
			snprintf(lib.error, sizeof(lib.error),
				 "%s lacks %s (elfutils 0.179 or later is needed)", DEBUGINFOD_SONAME, sym);
			return NULL;   /* kept loaded all the same, see above */
		}
	}
	*(void **)&lib.fn.set_verbose_fd = dlsym(dl, "debuginfod_set_verbose_fd");
	lib.dl = dl;
	return &lib.fn;
}
