#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "callgrind.h"

/* fn as a whole function name after the "file:" of a listing line: the
 * line "3,503,354 (16.28%)  /src/bench_client.c:zone_pairs [/bench]" names
 * zone_pairs, not zone_pairs_x nor my_zone_pairs. */
static int names(const char *line, const char *fn)
{
	size_t n = strlen(fn);
	for (const char *p = line; (p = strstr(p, fn)) != NULL; p++)
		if (p > line && p[-1] == ':' && strchr(" \t\n[", p[n]))
			return 1;
	return 0;
}

unsigned long long callgrind_ir(const char *file, const char *fn)
{
	char cmd[512], what[128];
	snprintf(what, sizeof what, "the instructions of %s()", fn);
	/* --threshold=100 lists every function, not only the costliest 99%. */
	snprintf(cmd, sizeof cmd, "callgrind_annotate --inclusive=yes --threshold=100 '%s' 2>&1", file);
	FILE *p = popen(cmd, "r");
	if (!p) {
		bench_cannot(what, "cannot run callgrind_annotate");
		return 0;
	}
	char line[1024], first[200] = "";
	unsigned long long ir = 0;
	int found = 0;
	while (fgets(line, sizeof line, p)) {
		if (!first[0]) { /* what a failing callgrind_annotate says */
			size_t n = strcspn(line, "\n");
			n = n < sizeof first - 1 ? n : sizeof first - 1;
			memcpy(first, line, n);
			first[n] = 0;
		}
		if (found || !names(line, fn))
			continue;
		/* "  1,234,567 (12.3%)  file:function": the count is right-aligned
		 * to the widest one, so it may follow blanks; its commas go. */
		const char *s = line + strspn(line, " \t");
		char digits[32];
		size_t d = 0;
		for (; (*s >= '0' && *s <= '9') || *s == ','; s++)
			if (*s != ',' && d < sizeof digits - 1)
				digits[d++] = *s;
		digits[d] = 0;
		if (d && (*s == ' ' || *s == '\t')) {
			ir = strtoull(digits, NULL, 10);
			found = 1;
		}
	}
	int status = pclose(p);
	if (!found) {
		if (status)
			bench_cannot(what, "callgrind_annotate failed on '%s': %s", file, first);
		else
			bench_cannot(what, "callgrind_annotate lists no function %s with a count in '%s'", fn, file);
		return 0;
	}
	if (!ir)
		bench_cannot(what, "callgrind counted no instruction of %s in '%s'", fn, file);
	return ir;
}
