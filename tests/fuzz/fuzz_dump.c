/*
 * pfdump's work (lib/show/): the text and JSON Lines listings (the JSONL
 * one through a merge window of 2 events and a thread and time filter, so
 * that events past the window and left out are taken too), the
 * statistics (plain and drawn) with the leak report and the frame list, on
 * the same mutated trace.
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
			struct profev_dump_opts o;
			profev_dump_opts_init(&o, (enum profev_dump_format)format);
			if (format == PROFEV_DUMP_JSONL) {
				o.window = 2;
				o.thread = "main";
				o.from_ns = 1000;
				o.to_ns = 1000000000;
			}
			profev_dump_list(r, fuzz_sink(), &o, NULL);
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
			struct profev_stats_style drawn = { 10, 1, 1 };
			profev_stats_print(s, r, fuzz_sink(), &drawn);
			profev_frames_write(s, r, fuzz_sink(), PROFEV_DUMP_JSONL);
			profev_leaks_write(s, r, fuzz_sink());
		}
		profev_stats_free(s);
		profev_reader_free(r);
	}
	fclose(f);
	free(d);
	return 0;
}
