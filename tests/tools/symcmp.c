/*
 * symcmp: pfsym's symbolizer against llvm-symbolizer --inlines --demangle
 * on one module, at addresses spread over all its code (every STRIDE
 * bytes), for the CLI tests of split DWARF and damaged debug files.
 *
 *   symcmp [-d DIR]... [--dwp FILE] [--stride N] [--lenient] MODULE REF
 *   symcmp [-d DIR]... [--dwp FILE] [--stride N] --lookup-only MODULE
 *
 * MODULE is opened as pfsym opens it (its debug file found by build-id in
 * the DIRs, split DWARF looked for there too); REF is the file (and any
 * llvm-symbolizer options, e.g. "prog --dwp=x.dwp") llvm-symbolizer reads.
 * Prints the warnings as pfsym would ("warning: ..."), then one line:
 * "N addresses, K known, I inlined, D differ, L without lines" (I: answers
 * of more than one frame, which only the DIEs give). Exit 0 when no answer
 * differs; with --lenient an answer that has no file and no line (a unit
 * left unresolved) does not count as differing, any other difference
 * does. Exit 1 on a difference, 2 when something could not be run.
 * --lookup-only looks the addresses up without comparing (for the loops
 * over damaged files, which must only end well): "N addresses, K known".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "profev_sym.h"
#include "symfix.h"

int main(int argc, char **argv)
{
	const char *dirs[16], *dwp = NULL;
	unsigned ndirs = 0, stride = 3;
	int lenient = 0, only = 0, i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-d") == 0 && i + 1 < argc && ndirs < 16)
			dirs[ndirs++] = argv[++i];
		else if (strcmp(argv[i], "--dwp") == 0 && i + 1 < argc)
			dwp = argv[++i];
		else if (strcmp(argv[i], "--stride") == 0 && i + 1 < argc)
			stride = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--lenient") == 0)
			lenient = 1;
		else if (strcmp(argv[i], "--lookup-only") == 0)
			only = 1;
		else
			break;
	}
	if (argc - i != 2 - only || stride == 0) {
		fprintf(stderr, "usage: symcmp [-d DIR]... [--dwp FILE] [--stride N] [--lenient] MODULE REF\n"
				"       symcmp [-d DIR]... [--dwp FILE] [--stride N] --lookup-only MODULE\n");
		return 2;
	}
	const char *module = argv[i], *ref = only ? NULL : argv[i + 1];
	uint8_t id[64];
	int idlen = profev_elf_build_id(module, id, sizeof(id));
	struct profev_debuginfo_opts o = { dirs, ndirs, "" };
	struct profev_debuginfo di;
	if (profev_debuginfo_find(module, id, idlen > 0 ? (unsigned)idlen : 0, &o, &di) != 0) {
		fprintf(stderr, "symcmp: out of memory\n");
		return 2;
	}
	for (unsigned k = 0; k < di.nwarnings; k++)
		fprintf(stderr, "warning: %s\n", di.warnings[k]);
	if (!di.path) {
		/* refused by the search (warned): every address unknown */
		int refused = di.nwarnings > 0;
		if (refused)
			printf("0 addresses, 0 known, 0 inlined, 0 differ, 0 without lines (refused)\n");
		else
			fprintf(stderr, "symcmp: '%s': no debug info found\n", module);
		profev_debuginfo_release(&di);
		return refused && (lenient || only) ? 0 : refused ? 1 : 2;
	}
	struct profev_symbolizer_files f = { di.path, di.symbols_path, di.sup_path, dwp, dirs, ndirs };
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_open(&f, &err);
	if (!s) {
		/* a refused file: what pfsym warns about, every address unknown */
		fprintf(stderr, "warning: %s\n", err.message);
		printf("0 addresses, 0 known, 0 inlined, 0 differ, 0 without lines (refused)\n");
		profev_debuginfo_release(&di);
		return lenient || only ? 0 : 1;
	}
	if (only) {
		size_t n, known = 0;
		uint64_t *a = symfix_sample(module, stride, &n);
		int rc = 0;
		for (size_t k = 0; k < n && rc == 0; k++) {
			const struct profev_symframe *fr;
			int got = profev_symbolizer_lookup(s, a[k], &fr);
			if (got < 0) {
				fprintf(stderr, "symcmp: %s\n", profev_symbolizer_error(s)->message);
				rc = 2;
			}
			known += got > 0;
		}
		const char *const *w;
		unsigned nw = profev_symbolizer_warnings(s, &w);
		for (unsigned k = 0; k < nw; k++)
			fprintf(stderr, "warning: %s\n", w[k]);
		printf("%zu addresses, %zu known\n", n, known);
		free(a);
		profev_symbolizer_free(s);
		profev_debuginfo_release(&di);
		return rc;
	}
	char tmp[] = "/tmp/symcmp.XXXXXX";
	if (!mkdtemp(tmp)) {
		perror("symcmp: mkdtemp");
		return 2;
	}
	size_t n, known, dropped = 0, inlined = 0;
	uint64_t *a = symfix_sample(module, stride, &n);
	int bad = symfix_check(tmp, s, ref, a, n, &known, lenient ? &dropped : NULL);
	for (size_t k = 0; bad >= 0 && k < n; k++) {
		const struct profev_symframe *fr;
		inlined += profev_symbolizer_lookup(s, a[k], &fr) > 1;
	}
	const char *const *w;
	unsigned nw = profev_symbolizer_warnings(s, &w);
	for (unsigned k = 0; k < nw; k++)
		fprintf(stderr, "warning: %s\n", w[k]);
	if (bad >= 0)
		printf("%zu addresses, %zu known, %zu inlined, %d differ, %zu without lines\n", n,
		       known, inlined, bad, dropped);
	free(a);
	symfix_remove(tmp);
	profev_symbolizer_free(s);
	profev_debuginfo_release(&di);
	return bad < 0 ? 2 : bad > 0;
}
