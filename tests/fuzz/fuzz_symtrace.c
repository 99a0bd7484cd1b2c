/*
 * pfsym's whole rewrite (profev_symtrace(), lib/sym/rewrite.c) of a
 * mutated trace: its modules are looked up as recorded (the seeds name the
 * small ELF files of tests/fuzz/corpus/symbolize/, relative to the top of
 * the sources, where `make fuzz` runs), symbolized, and the trace written
 * again with symbols. Oracle: when the rewrite succeeds its output reads
 * back whole, with as many events as the input.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "profev_sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int out = -1;
	if (out < 0 && (out = memfd_create("profev-fuzz-symtrace", 0)) < 0)
		abort();
	if (ftruncate(out, 0) < 0 || lseek(out, 0, SEEK_SET) < 0)
		abort();
	uint8_t *d = fuzz_trace(data, size);
	FILE *in = fuzz_file(d, size);
	struct profev_symtrace_opts opts = { { NULL, 0, "" }, { 0, 0, 0 } };
	struct profev_symtrace_report *rep = NULL;
	struct profev_error err;
	int rc = profev_symtrace(in, out, &opts, &rep, &err);
	fclose(in);
	volatile size_t sink = fuzz_touch(err.message);
	if (rep) {
		for (unsigned i = 0; i < rep->nmodules; i++) {
			const struct profev_symtrace_module *m = &rep->modules[i];
			sink += fuzz_touch(m->path) + fuzz_touch(m->debug_file) + fuzz_touch(m->symbols_file);
			for (unsigned k = 0; k < m->nwarnings; k++)
				sink += fuzz_touch(m->warnings[k]);
		}
		profev_symtrace_report_free(rep);
	}
	if (rc == 0) {
		int rin, rout;
		in = fuzz_file(d, size);
		uint64_t nin = fuzz_count_events(in, &rin, NULL);
		fclose(in);
		FILE *o = fdopen(dup(out), "rb");
		if (!o || fseek(o, 0, SEEK_SET) < 0)
			abort();
		uint64_t nout = fuzz_count_events(o, &rout, NULL);
		fclose(o);
		if (rin != 0 || rout != 0 || nin != nout) {
			fprintf(stderr, "symtrace: input %d with %llu events, output %d with %llu\n", rin,
				(unsigned long long)nin, rout, (unsigned long long)nout);
			abort();
		}
	}
	(void)sink;
	free(d);
	return 0;
}
