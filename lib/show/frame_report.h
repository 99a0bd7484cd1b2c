/* Printing the frame statistics: the --stats section of each frame set and
 * the --frames listing. Not installed. */
#ifndef PROFEV_FRAME_REPORT_H
#define PROFEV_FRAME_REPORT_H
#include <stdio.h>
#include "profev_dump.h"

/* The frame sets' section of the --stats report. */
void frame_report_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			const struct profev_stats_style *style);
/* A duration for people: "850 ns", "12.50 us", "16.67 ms", "12.000 s"
 * (the --stats tables' too). */
void duration_text(char *out, size_t n, uint64_t ns);
#endif
