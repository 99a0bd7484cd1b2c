/*
 * modules - prints the modules a trace names, one line each:
 * "module PATH BUILD-ID" (the build-id in hex, empty when the module has
 * none), for the tests that check what pfrec found of a program's modules.
 * usage: modules TRACE   (exit 1 when TRACE cannot be read)
 */
#include <stdio.h>

#include "profev_trace.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: modules TRACE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	struct profev_error err;
	struct profev_reader *r = f ? profev_reader_new(f, &err) : NULL;
	if (!r) {
		fprintf(stderr, "modules: cannot read %s\n", argv[1]);
		if (f)
			fclose(f);
		return 1;
	}
	/* The modules arrive as definitions along the events: read them all first. */
	struct profev_event ev;
	while (profev_reader_next_event(r, &ev, NULL) == 1)
		;
	for (unsigned i = 0; i < profev_reader_module_count(r); i++) {
		const struct profev_module *m = profev_reader_module(r, i);
		printf("module %s ", m->path);
		for (unsigned k = 0; k < m->build_id_len; k++)
			printf("%02x", m->build_id[k]);
		printf("\n");
	}
	profev_reader_free(r);
	fclose(f);
	return 0;
}
