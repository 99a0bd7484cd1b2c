/*
 * The debuginfod client (lib/sym/debuginfod*.c) on what a server sent: the
 * input stands in for a downloaded file, put where the transport leaves
 * one (the client's cache, <cache>/<build-id>/debuginfo), and the client
 * asked for the module's build-id offline. It finds the file, verifies it
 * as a download (ELF, whole, the build-id asked for; a wrong one leaves
 * the cache), takes it as the module's debug file, and then its dwz file;
 * a file it takes is opened by the symbolizer and looked up. The build-id
 * asked for is the input's own when it has one, so mutations of a good
 * file get past the check; the input's first byte, odd, asks for another.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz.h"
#include "profev_sym.h"

static char cache[64];

static void remove_cache(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", cache);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!cache[0]) {
		snprintf(cache, sizeof(cache), "/tmp/profev-fuzz-dfd.%d", (int)getpid());
		mkdir(cache, 0700);
		atexit(remove_cache);
		setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
		unsetenv("DEBUGINFOD_URLS");
	}
	static const uint8_t other[20] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2,
					   3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	char tmp[128], dir[128], file[160];
	snprintf(tmp, sizeof(tmp), "%s/input", cache);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	uint8_t id[64];
	int n = profev_elf_build_id(tmp, id, sizeof(id));
	if (n <= 0 || (size && (data[0] & 1))) {
		memcpy(id, other, sizeof(other));
		n = sizeof(other);
	}
	char hex[129];
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(dir, sizeof(dir), "%s/%s", cache, hex);
	snprintf(file, sizeof(file), "%s/debuginfo", dir);
	mkdir(dir, 0700);
	if (rename(tmp, file) != 0)
		abort();

	volatile size_t sink = 0;
	struct profev_debuginfod_opts o = { 0 };
	o.offline = 1;
	struct profev_error err;
	struct profev_debuginfod *d = profev_debuginfod_new(&o, &err);
	if (!d)
		abort();
	struct profev_debuginfo di;
	memset(&di, 0, sizeof(di));
	int rc = profev_debuginfo_fetch(d, "fuzz.so", id, (unsigned)n, &di);
	sink += (size_t)rc;
	for (unsigned i = 0; i < di.nwarnings; i++)
		sink += fuzz_touch(di.warnings[i]);
	if (rc > 0 && di.path) {
		struct profev_symbolizer *s = profev_symbolizer_new(di.path, di.symbols_path, &err);
		if (s) {
			const struct profev_symframe *f;
			for (uint64_t a = 0; a < 0x4000; a += 0x100) {
				int k = profev_symbolizer_lookup(s, a, &f);
				for (int j = 0; j < k; j++)
					sink += fuzz_touch(f[j].function) + fuzz_touch(f[j].file);
			}
			profev_symbolizer_free(s);
		} else {
			sink += fuzz_touch(err.message);
		}
	}
	profev_debuginfo_release(&di);
	profev_debuginfod_free(d);
	unlink(file);
	rmdir(dir);
	(void)sink;
	return 0;
}
