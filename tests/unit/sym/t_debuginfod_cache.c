/*
 * lib/sym/debuginfod_cache.c: the cache directory is libdebuginfod's
 * choice (DEBUGINFOD_CACHE_PATH first); a build-id's file is found, an
 * empty one is a remembered miss, none is nothing; a removal touches only
 * a <hex>/debuginfo file and its emptied directory; forgetting a miss
 * leaves a real file alone.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "sym/debuginfod_internal.h"

static char tmp[] = "/tmp/t_debuginfod_cache.XXXXXX";

static void put(const char *hex, const char *body)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, hex);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/debuginfo", tmp, hex);
	FILE *f = fopen(p, "w");
	CHECK(f);
	if (f) {
		fputs(body, f);
		fclose(f);
	}
}

static int exists(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	return access(p, F_OK) == 0;
}

int main(void)
{
	if (!mkdtemp(tmp))
		return perror("mkdtemp"), 1;
	int nomem = 0;
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/nonexistent-home", 1);
	setenv("DEBUGINFOD_CACHE_PATH", tmp, 1);
	char *dir = cache_dir(&nomem);
	CHECK_STR(dir, tmp);
	free(dir);
	unsetenv("DEBUGINFOD_CACHE_PATH");
	dir = cache_dir(&nomem);
	CHECK_STR(dir, "/nonexistent-home/.cache/debuginfod_client");
	free(dir);
	setenv("XDG_CACHE_HOME", "/x", 1);
	dir = cache_dir(&nomem);
	CHECK_STR(dir, "/x/debuginfod_client");
	free(dir);
	CHECK_EQ(nomem, 0);

	struct profev_debuginfod d = { 0 };
	d.cache = tmp;
	char *path = NULL;
	CHECK_EQ(cache_lookup(&d, "aa11", &path), 0);
	CHECK(!path);
	put("aa11", "ELF");
	put("bb22", "");
	CHECK_EQ(cache_lookup(&d, "aa11", &path), 1);
	char want[512];
	cache_file(&d, "aa11", want, sizeof(want));
	CHECK_STR(path, want);
	char *none = NULL;
	CHECK_EQ(cache_lookup(&d, "bb22", &none), 2);
	CHECK(!none);

	cache_forget_miss(&d, "aa11");      /* a real file: kept */
	CHECK(exists("aa11/debuginfo"));
	cache_forget_miss(&d, "bb22");
	CHECK(!exists("bb22/debuginfo") && !exists("bb22"));
	cache_remove(path, "cc33");         /* not its build-id: kept */
	CHECK(exists("aa11/debuginfo"));
	cache_remove(path, "aa11");
	CHECK(!exists("aa11/debuginfo") && !exists("aa11"));
	free(path);
	d.cache = NULL;
	CHECK_EQ(cache_lookup(&d, "aa11", &path), 0);
	rmdir(tmp);
	return CHECK_DONE();
}
