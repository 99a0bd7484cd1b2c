/* Printing the frame statistics; see frame_report.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "common/json_write.h"
#include "common/outbuf.h"
#include "show/frame_report.h"

#define SPARK_COLUMNS 60

void duration_text(char *out, size_t n, uint64_t ns)
{
	if (ns < 10000)
		snprintf(out, n, "%" PRIu64 " ns", ns);
	else if (ns < 10000000)
		snprintf(out, n, "%.2f us", ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(out, n, "%.2f ms", ns / 1e6);
	else
		snprintf(out, n, "%.3f s", ns / 1e9);
}

/* Frame times all in milliseconds, to the microsecond, so they compare
 * at a glance. */
static void ms_text(char *out, size_t n, uint64_t ns)
{
	snprintf(out, n, "%.3f ms", ns / 1e6);
}

static void set_label(const struct profev_frame_set *f, const struct profev_reader *r, char *out, size_t n)
{
	const char *name = profev_reader_string(r, f->name);
	if (!f->name && !f->discontinuous)
		snprintf(out, n, "the default set");
	else
		snprintf(out, n, "'%.60s'%s", name, f->discontinuous ? " (start/end)" : "");
}

/* The frame times over the trace, one column per run of frames showing its
 * longest: block characters coloured by how far above the median, or
 * ASCII. */
static void sparkline(const struct profev_frame_set *f, FILE *out, const struct profev_stats_style *st)
{
	static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
					       "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[8] = { '_', '.', '-', ':', '=', '+', '*', '#' };
	uint64_t cols = f->count < SPARK_COLUMNS ? f->count : SPARK_COLUMNS;
	const char *colour = NULL;
	fprintf(out, "  over time:    ");
	for (uint64_t c = 0; c < cols; c++) {
		uint64_t from = c * f->count / cols, to = (c + 1) * f->count / cols, v = 0;
		for (uint64_t i = from; i < to; i++)
			if (f->frames[i].ns > v)
				v = f->frames[i].ns;
		unsigned level = f->max_ns ? (unsigned)((v * 7 + f->max_ns / 2) / f->max_ns) : 0;
		if (st->color) {
			/* green up to 1.5 times the median, yellow to twice, red above */
			const char *want = v <= f->p50_ns + f->p50_ns / 2 ? "\033[32m"
					   : v <= 2 * f->p50_ns                 ? "\033[33m"
										: "\033[31m";
			if (want != colour)
				fputs(colour = want, out);
		}
		if (st->unicode)
			fputs(blocks[level], out);
		else
			fputc(ascii[level], out);
	}
	if (colour)
		fputs("\033[0m", out);
	fprintf(out, "\n                %" PRIu64 " frames, %s per column, the longest of each shown\n", f->count,
		cols == f->count ? "one" : "several");
}

static void worst_write(const struct profev_frame_set *f, const struct profev_stats *s,
			const struct profev_reader *r, FILE *out)
{
	char a[32], b[32];
	fprintf(out, "  longest frames, with the zones that took most of them (self time, thread)%s:\n",
		f->zones_partial ? " [zones partial: threads ran too far ahead of the marks]" : "");
	fprintf(out, "    %-10s %15s %10s  %s\n", "frame", "start", "duration", "zones");
	for (uint32_t i = 0; i < f->nworst; i++) {
		const struct profev_worst_frame *w = &f->worst[i];
		uint64_t at = w->f.start_ts >= s->origin_ts ? w->f.start_ts - s->origin_ts : 0;
		ms_text(a, sizeof(a), w->f.ns);
		fprintf(out, "    #%-9" PRIu64 " %5" PRIu64 ".%09" PRIu64 " %10s  ", w->f.number, at / 1000000000u,
			at % 1000000000u, a);
		for (uint32_t k = 0; k < w->nzones; k++) {
			const struct profev_frame_zone *z = &w->zones[k];
			const char *tn = profev_reader_thread_name(r, z->tid);
			ms_text(b, sizeof(b), z->ns);
			fprintf(out, "%s%.40s %s (", k ? ", " : "", z->name ? profev_reader_string(r, z->name) : "?", b);
			if (tn[0])
				fprintf(out, "%.30s", tn);
			else
				fprintf(out, "%u", z->tid);
			fputc(')', out);
		}
		fprintf(out, "%s\n", w->nzones ? "" : "-");
	}
}

void frame_report_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			const struct profev_stats_style *style)
{
	char label[80];
	for (uint32_t i = 0; i < s->nframe_sets; i++) {
		const struct profev_frame_set *f = &s->frame_sets[i];
		set_label(f, r, label, sizeof label);
		if (!f->count) {
			fprintf(out, "\nframes of %s: none whole\n", label);
			continue;
		}
		char v[7][32], sd[32];
		const uint64_t fig[7] = { f->min_ns, f->p50_ns, f->p90_ns, f->p99_ns, f->p999_ns, f->max_ns };
		for (int k = 0; k < 6; k++)
			ms_text(v[k], sizeof v[k], fig[k]);
		ms_text(sd, sizeof sd, (uint64_t)(f->stddev_ns + 0.5));
		fprintf(out, "\nframes of %s: %" PRIu64 " frames, mean %.2f FPS\n", label, f->count, f->fps);
		fprintf(out, "  frame time:   min %s, p50 %s, p90 %s, p99 %s, p99.9 %s, max %s, stddev %s\n", v[0],
			v[1], v[2], v[3], v[4], v[5], sd);
		if (f->disordered)
			fprintf(out, "  %" PRIu64 " marks earlier than the frame they would end, left out\n",
				f->disordered);
		sparkline(f, out, style);
		worst_write(f, s, r, out);
	}
}

static int sink_file(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : PROFEV_E_IO;
}

struct frame_ref {
	const struct profev_frame_time *f;
	uint32_t set;
};

static int by_start(const void *a, const void *b)
{
	const struct frame_ref *x = a, *y = b;
	if (x->f->start_ts != y->f->start_ts)
		return x->f->start_ts < y->f->start_ts ? -1 : 1;
	return x->set < y->set ? -1 : x->set > y->set;
}

int profev_frames_write(const struct profev_stats *s, const struct profev_reader *r, FILE *out,
			enum profev_dump_format format)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->nframe_sets; i++)
		n += s->frame_sets[i].count;
	struct frame_ref *all = n ? malloc(n * sizeof(*all)) : NULL;
	if (n && !all)
		return PROFEV_E_NOMEM;
	n = 0;
	for (uint32_t i = 0; i < s->nframe_sets; i++)
		for (uint64_t k = 0; k < s->frame_sets[i].count; k++)
			all[n++] = (struct frame_ref){ &s->frame_sets[i].frames[k], i };
	if (n > 1)
		qsort(all, n, sizeof(*all), by_start);
	struct outbuf o;
	if (outbuf_init(&o, 1 << 16, sink_file, out)) {
		free(all);
		return PROFEV_E_NOMEM;
	}
	for (uint64_t i = 0; i < n && !o.err; i++) {
		const struct profev_frame_set *set = &s->frame_sets[all[i].set];
		const struct profev_frame_time *f = all[i].f;
		const char *name = profev_reader_string(r, set->name);
		uint64_t at = f->start_ts >= s->origin_ts ? f->start_ts - s->origin_ts : 0;
		size_t len = strlen(name);
		if (outbuf_reserve(&o, 128 + 4 * len + JSON_STRING_MAX(len)))
			break;
		char line[160];
		int k;
		if (format == PROFEV_DUMP_JSONL) {
			k = snprintf(line, sizeof line, "{\"ts\":%" PRIu64 ",\"set\":", at);
			outbuf_put(&o, line, (size_t)k);
			json_string(&o, name, len);
			k = snprintf(line, sizeof line, ",\"discontinuous\":%s,\"frame\":%" PRIu64 ",\"duration_ns\":%" PRIu64 "}\n",
				     set->discontinuous ? "true" : "false", f->number, f->ns);
			outbuf_put(&o, line, (size_t)k);
			continue;
		}
		k = snprintf(line, sizeof line, "%5" PRIu64 ".%09" PRIu64 "  #%-9" PRIu64 " %8" PRIu64 ".%06" PRIu64 " ms",
			     at / 1000000000u, at % 1000000000u, f->number, f->ns / 1000000u, f->ns % 1000000u);
		outbuf_put(&o, line, (size_t)k);
		if (len || set->discontinuous)
			outbuf_lit(&o, "  ");
		for (size_t c = 0; c < len; c++) { /* names are the program's bytes: one line each */
			unsigned char ch = (unsigned char)name[c];
			if (ch < 0x20 || ch == 0x7f) {
				k = snprintf(line, sizeof line, "\\x%02x", ch);
				outbuf_put(&o, line, (size_t)k);
			} else {
				outbuf_byte(&o, ch);
			}
		}
		if (set->discontinuous)
			outbuf_lit(&o, " (start/end)");
		outbuf_byte(&o, '\n');
	}
	int rc = o.err ? o.err : outbuf_flush(&o);
	outbuf_free(&o);
	free(all);
	return rc;
}
