/*
 * fixsum: recomputes the chunk checksums of a trace, as the fuzz targets do
 * before reading an input, so that a crash input found by a target also
 * reaches the same code through the commands (tests/golden/bad/).
 *   usage: fixsum [--skip N] IN OUT   (--skip: drop N leading option bytes,
 *                                      as the pfconv targets take)
 */
#include "fuzz.h"

int main(int argc, char **argv)
{
	size_t skip = 0;
	if (argc == 5 && strcmp(argv[1], "--skip") == 0) {
		skip = (size_t)atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: fixsum [--skip N] IN OUT\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	static uint8_t buf[64 << 20];
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (!f || ferror(f)) {
		fprintf(stderr, "fixsum: unable to read '%s'\n", argv[1]);
		return 2;
	}
	fclose(f);
	if (skip > n)
		skip = n;
	fuzz_fix_checksums(buf + skip, n - skip);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(buf + skip, 1, n - skip, f) != n - skip || fclose(f) != 0) {
		fprintf(stderr, "fixsum: unable to write '%s'\n", argv[2]);
		return 2;
	}
	return 0;
}
