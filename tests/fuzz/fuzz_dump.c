/*
 * pfdump's work (lib/show/): the text and JSON Lines listings, and the
 * statistics with the leak report, on the same mutated trace.
 */
#include "fuzz.h"
#include "profev_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *d = fuzz_trace(data, size);
	for (int format = PROFEV_DUMP_TEXT; format <= PROFEV_DUMP_JSONL; format++) {
		FILE *f = fuzz_file(d, size);
		struct profev_reader *r = profev_reader_new(f, NULL);
		if (r) {
			profev_dump_events(r, fuzz_sink(), (enum profev_dump_format)format);
			profev_reader_free(r);
		}
		fclose(f);
	}
	FILE *f = fuzz_file(d, size);
	struct profev_reader *r = profev_reader_new(f, NULL);
	if (r) {
		struct profev_stats *s = NULL;
		profev_stats_collect(r, &s); /* *s is set on a read error too */
		if (s) {
			profev_stats_write(s, r, fuzz_sink(), 10);
			profev_leaks_write(s, r, fuzz_sink());
		}
		profev_stats_free(s);
		profev_reader_free(r);
	}
	fclose(f);
	free(d);
	return 0;
}
