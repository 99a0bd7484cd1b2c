/*
 * sym/debuginfod_cache.c - libdebuginfod's cache (shared with gdb, perf
 * and valgrind), read here directly so that files downloaded before are
 * found offline and without the library: <cache>/<build-id>/debuginfo,
 * an empty file being libdebuginfod's record of a miss. Removals touch
 * only files of that name: a wrong file sent by a server, and a miss
 * remembered for a transfer that broke rather than for a 404.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sym/debuginfod_internal.h"

/* libdebuginfod's choice (elfutils 0.188, debuginfod-client.c). */
char *cache_dir(int *nomem)
{
	char buf[4096];
	const char *e = getenv("DEBUGINFOD_CACHE_PATH");
	const char *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	if (e && *e)
		snprintf(buf, sizeof(buf), "%s", e);
	else if (home && *home &&
		 snprintf(buf, sizeof(buf), "%s/.debuginfod_client_cache", home) > 0 &&
		 stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
		;
	else if (xdg && *xdg)
		snprintf(buf, sizeof(buf), "%s/debuginfod_client", xdg);
	else if (home && *home)
		snprintf(buf, sizeof(buf), "%s/.cache/debuginfod_client", home);
	else
		return NULL;
	char *s = strdup(buf);
	*nomem = !s;
	return s;
}

void cache_file(const struct profev_debuginfod *d, const char *hex, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s/debuginfo", d->cache, hex);
}

int cache_lookup(const struct profev_debuginfod *d, const char *hex, char **path)
{
	char cpath[4096 + 160];
	struct stat st;
	*path = NULL;
	if (!d->cache)
		return 0;
	cache_file(d, hex, cpath, sizeof(cpath));
	if (stat(cpath, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (st.st_size == 0)
		return 2;
	return (*path = strdup(cpath)) ? 1 : -1;
}

void cache_remove(const char *path, const char *hex)
{
	size_t n = strlen(path), h = strlen(hex);
	if (n < h + 12 || strcmp(path + n - 10, "/debuginfo") != 0 ||
	    strncmp(path + n - 10 - h, hex, h) != 0 || path[n - 11 - h] != '/')
		return;
	unlink(path);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%.*s", (int)(n - 10), path);
	rmdir(dir);
}

void cache_forget_miss(const struct profev_debuginfod *d, const char *hex)
{
	char cpath[4096 + 160];
	struct stat st;
	if (!d->cache)
		return;
	cache_file(d, hex, cpath, sizeof(cpath));
	if (stat(cpath, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		cache_remove(cpath, hex);
}
