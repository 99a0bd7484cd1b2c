/* mkdist: traces whose zone times come from known distributions, for
 * testing pfdump --compare where the truth is known (see tests/lib/dist.h
 * for the distributions and the changes).
 *
 *   mkdist OUT SEED [FRAMES] [slow,tail,site,swap,alloc]
 *
 * FRAMES defaults to 1000; OUT may be "-" for stdout. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dist.h"

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: mkdist OUT SEED [FRAMES] [slow,tail,site,swap,alloc]\n");
		return 2;
	}
	const char *changes = argc > 4 ? argv[4] : "";
	if (!dist_changes_valid(changes)) {
		fprintf(stderr, "mkdist: unknown change in '%s'\n", changes);
		return 2;
	}
	int fd = strcmp(argv[1], "-") == 0 ? 1 : open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	struct profev_error err;
	int rc = dist_write(fd, strtoull(argv[2], NULL, 10), argc > 3 ? strtoull(argv[3], NULL, 10) : 1000, changes, &err);
	if (rc)
		fprintf(stderr, "mkdist: %s\n", err.message);
	if (fd != 1)
		close(fd);
	return rc ? 1 : 0;
}
