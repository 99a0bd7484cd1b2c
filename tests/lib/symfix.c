/* The symbolizer's test fixtures; see symfix.h. */
#include <stdio.h>
#include <stdlib.h>
#include "symfix.h"

int symfix_run(const char *cmd)
{
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

int symfix_build(const char *dir, char *fx, size_t cap)
{
	char cmd[4096];
	const char *root = getenv("PROFEV_ROOT");
	snprintf(fx, cap, "%s/fx", dir);
	snprintf(cmd, sizeof(cmd), "sh '%s/tests/sym/build.sh' '%s'", root ? root : ".", fx);
	return symfix_run(cmd) ? -1 : 0;
}

void symfix_remove(const char *dir)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	symfix_run(cmd);
}
