#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "callgrind.h"

unsigned long long callgrind_ir(const char *file, const char *fn)
{
	char cmd[512];
	/* --threshold=100 lists every function, not only the costliest 99%. */
	snprintf(cmd, sizeof cmd, "callgrind_annotate --inclusive=yes --threshold=100 '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	if (!p)
		return 0;
	char line[1024];
	unsigned long long ir = 0;
	while (fgets(line, sizeof line, p)) {
		if (!strstr(line, fn))
			continue;
		/* "1,234,567 (12.3%)  file:function": the count without its commas */
		char *s = line, *d = line;
		for (; *s && *s != ' ' && *s != '('; s++)
			if (*s != ',')
				*d++ = *s;
		*d = 0;
		ir = strtoull(line, NULL, 10);
		break;
	}
	pclose(p);
	return ir;
}
