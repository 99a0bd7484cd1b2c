/*
 * The HTML report (profev_conv_report()): one self-contained page per run
 * or pair of runs, side by side: the frame-time chart of each frame set
 * with its worst frames marked, the frame statistics and the longest
 * frames, the zones table, the flame graphs the caller drew (svg.c with
 * PROFEV_CONV_SVG_EMBED). The figures are pfdump --stats's (struct
 * profev_stats, which the caller gathers with profev_stats_collect(): this
 * file reads <profev_dump.h>'s structs and calls nothing of lib/show/).
 * flame.js and report.js (C strings at build time) draw and sort in the
 * browser; nothing is fetched.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/flame_graph.h"
#include "common/common.h"
#include "profev_dump.h"

static const char report_js[] =
#include "report_js.h"
	;

#define TOP_ZONES 100

struct html {
	struct outbuf o;
	char *buf;          /* a name being cleaned */
	size_t cap;
	uint64_t replaced;
	int rc;             /* the first error, sticky */
};

static int sink_write(void *ctx, const void *data, size_t len)
{
	const struct profev_conv_sink *s = ctx;
	return s->write(s->ctx, data, len) < 0 ? PROFEV_E_IO : 0;
}

static void put(struct html *h, const char *s, size_t n)
{
	if (h->rc || (h->rc = outbuf_reserve(&h->o, n)))
		return;
	outbuf_put(&h->o, s, n);
}

static void puts_(struct html *h, const char *s) { put(h, s, strlen(s)); }

static void fmt(struct html *h, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void fmt(struct html *h, const char *f, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(tmp, sizeof tmp, f, ap);
	va_end(ap);
	if (n > 0)
		put(h, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Any text, valid UTF-8 (flame_name_clean()) with markup escaped. */
static void text(struct html *h, const char *s)
{
	size_t n = strlen(s), need = 3 * n + 9;
	if (h->rc)
		return;
	if (need > h->cap) {
		char *p = realloc(h->buf, need);
		if (!p) {
			h->rc = PROFEV_E_NOMEM;
			return;
		}
		h->buf = p;
		h->cap = need;
	}
	n = flame_name_clean(h->buf, s, n, &h->replaced);
	for (size_t i = 0; i < n; i++) {
		char c = h->buf[i];
		if (c == '&')
			puts_(h, "&amp;");
		else if (c == '<')
			puts_(h, "&lt;");
		else if (c == '>')
			puts_(h, "&gt;");
		else if (c == '"')
			puts_(h, "&quot;");
		else
			put(h, &c, 1);
	}
}

/* A duration for people, in a table cell carrying its ns for sorting. */
static void ns_cell(struct html *h, double ns)
{
	const char *u = "ns";
	double v = ns;
	if (ns >= 1e9)
		v = ns / 1e9, u = "s";
	else if (ns >= 1e6)
		v = ns / 1e6, u = "ms";
	else if (ns >= 1e3)
		v = ns / 1e3, u = "us";
	fmt(h, "<td data-v=\"%.0f\">%.*f %s</td>", ns, v < 10 && ns >= 1e3 ? 3 : v < 100 && ns >= 1e3 ? 2 : ns >= 1e3 ? 1 : 0, v, u);
}

static const char style[] =
	"<style>\n"
	"body { font-family: sans-serif; font-size: 14px; margin: 16px; color: #222; }\n"
	"h1 { font-size: 20px; } h2 { font-size: 17px; } h3 { font-size: 15px; margin: 18px 0 6px; }\n"
	".runs { display: flex; gap: 24px; } .run { flex: 1; min-width: 0; }\n"
	"table { border-collapse: collapse; margin: 4px 0; }\n"
	"td, th { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }\n"
	"td.name, th.name { text-align: left; white-space: normal; }\n"
	"table.sortable th { cursor: pointer; background: #f0f0f0; }\n"
	"th[data-sort=down]::after { content: ' \\25BC'; } th[data-sort=up]::after { content: ' \\25B2'; }\n"
	"svg.chart { width: 100%; max-width: 760px; height: auto; display: block; }\n"
	"svg.chart .plot { fill: #fafafa; stroke: #ccc; }\n"
	"svg.chart polyline.frames { fill: none; stroke: #3060c0; stroke-width: 1; }\n"
	"svg.chart circle.worst { fill: none; stroke: #d02020; stroke-width: 2; }\n"
	"svg.chart line.pct { stroke: #888; stroke-dasharray: 4 3; }\n"
	"svg.chart text { font-size: 10px; fill: #555; } svg.chart text.pct { text-anchor: end; }\n"
	"svg.flame { width: 100%; height: auto; display: block; }\n"
	".note { color: #666; }\n"
	"</style>\n";

static void frame_set(struct html *h, const struct profev_report_run *run, unsigned ri, uint32_t si)
{
	const struct profev_frame_set *fs = &run->stats->frame_sets[si];
	const struct profev_reader *r = run->r;
	puts_(h, "<h3>Frame times");
	if (fs->name) {
		puts_(h, ": ");
		text(h, profev_reader_string(r, fs->name));
	}
	puts_(h, "</h3>\n");
	fmt(h, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" data-run=\"%u\" data-set=\"%" PRIu32
	       "\"></svg>\n", ri, si);
	fmt(h, "<table class=\"stats\"><tr><th>frames</th><th>FPS</th><th>mean</th><th>min</th><th>p50</th>"
	       "<th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>std dev</th></tr>\n<tr><td>%" PRIu64
	       "</td><td>%.1f</td>", fs->count, fs->fps);
	ns_cell(h, fs->mean_ns);
	ns_cell(h, (double)fs->min_ns);
	ns_cell(h, (double)fs->p50_ns);
	ns_cell(h, (double)fs->p90_ns);
	ns_cell(h, (double)fs->p99_ns);
	ns_cell(h, (double)fs->p999_ns);
	ns_cell(h, (double)fs->max_ns);
	ns_cell(h, fs->stddev_ns);
	puts_(h, "</tr></table>\n");
	if (!fs->nworst)
		return;
	puts_(h, "<table class=\"worst\"><tr><th>frame</th><th>start</th><th>duration</th>"
		 "<th class=\"name\">where the time went (thread: zone)</th></tr>\n");
	for (uint32_t i = 0; i < fs->nworst; i++) {
		const struct profev_worst_frame *w = &fs->worst[i];
		fmt(h, "<tr><td>%" PRIu64 "</td>", w->f.number);
		fmt(h, "<td>%.3f s</td>", (double)(w->f.start_ts - run->stats->origin_ts) / 1e9);
		ns_cell(h, (double)w->f.ns);
		puts_(h, "<td class=\"name\">");
		for (uint32_t k = 0; k < w->nzones; k++) {
			const char *tn = profev_reader_thread_name(r, w->zones[k].tid);
			if (k)
				puts_(h, "; ");
			if (*tn)
				text(h, tn);
			else
				fmt(h, "thread %" PRIu32, w->zones[k].tid);
			puts_(h, ": ");
			text(h, profev_reader_string(r, w->zones[k].name));
			fmt(h, " %.2f ms", (double)w->zones[k].ns / 1e6);
		}
		puts_(h, "</td></tr>\n");
	}
	puts_(h, "</table>\n");
	if (fs->zones_partial)
		puts_(h, "<p class=\"note\">A thread ran too far ahead of the frame marks: some zone time "
			 "is missing from the longest frames.</p>\n");
}

static void zones(struct html *h, const struct profev_report_run *run)
{
	const struct profev_stats *s = run->stats;
	uint32_t n = s->nzones < TOP_ZONES ? s->nzones : TOP_ZONES;
	puts_(h, "<h3>Zones</h3>\n");
	if (!n) {
		puts_(h, "<p class=\"note\">No zones.</p>\n");
		return;
	}
	if (n < s->nzones)
		fmt(h, "<p class=\"note\">The %" PRIu32 " with the most time of %" PRIu32
		       " zone names; a heading sorts.</p>\n", n, s->nzones);
	puts_(h, "<table class=\"sortable zones\"><thead><tr><th class=\"name\">zone</th><th>count</th>"
		 "<th data-sort=\"down\">total</th><th>mean</th><th>min</th><th>max</th></tr></thead><tbody>\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct profev_zone_stat *z = &s->zones[i];
		puts_(h, "<tr><td class=\"name\">");
		text(h, profev_reader_string(run->r, z->name));
		fmt(h, "</td><td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", z->count, z->count);
		ns_cell(h, (double)z->total_ns);
		ns_cell(h, z->count ? (double)z->total_ns / (double)z->count : 0);
		ns_cell(h, (double)z->min_ns);
		ns_cell(h, (double)z->max_ns);
		puts_(h, "</tr>\n");
	}
	puts_(h, "</tbody></table>\n");
}

static void graph(struct html *h, const char *title, const char *svg, size_t len)
{
	if (!svg)
		return;
	fmt(h, "<h3>%s</h3>\n", title);
	put(h, svg, len);
}

static void run_column(struct html *h, const struct profev_report_run *run, unsigned ri)
{
	const struct profev_stats *s = run->stats;
	puts_(h, "<section class=\"run\">\n<h2>");
	text(h, run->name);
	puts_(h, "</h2>\n");
	fmt(h, "<p>%" PRIu64 " events over %.3f s, %" PRIu32 " threads, %" PRIu32 " zone names%s.</p>\n",
	    s->events, s->last_ts > s->first_ts ? (double)(s->last_ts - s->first_ts) / 1e9 : 0,
	    s->nthreads, s->nzones, s->complete ? "" : "; the trace is cut: what was whole");
	for (uint32_t i = 0; i < s->nframe_sets; i++)
		frame_set(h, run, ri, i);
	if (!s->nframe_sets)
		puts_(h, "<p class=\"note\">No frames: the program marked none (PROFEV_FRAME_MARK).</p>\n");
	zones(h, run);
	graph(h, "Flame graph: zones by time", run->flame, run->flame_len);
	graph(h, "Flame graph: CPU samples", run->samples, run->samples_len);
	graph(h, "Flame graph: allocated bytes", run->alloc, run->alloc_len);
	puts_(h, "</section>\n");
}

/* The frames as JSON for report.js: starts since the trace's start and
 * durations in ns, the worst frames by index. */
static void frames_json(struct html *h, const struct profev_report_run *run)
{
	const struct profev_stats *s = run->stats;
	puts_(h, "{\"sets\":[");
	for (uint32_t i = 0; i < s->nframe_sets; i++) {
		const struct profev_frame_set *fs = &s->frame_sets[i];
		fmt(h, "%s{\"p50\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"start\":[", i ? "," : "", fs->p50_ns,
		    fs->p99_ns);
		for (uint64_t k = 0; k < fs->count; k++)
			fmt(h, "%s%" PRIu64, k ? "," : "", fs->frames[k].start_ts - s->origin_ts);
		puts_(h, "],\"ns\":[");
		for (uint64_t k = 0; k < fs->count; k++)
			fmt(h, "%s%" PRIu64, k ? "," : "", fs->frames[k].ns);
		puts_(h, "],\"number\":[");
		for (uint64_t k = 0; k < fs->count; k++)
			fmt(h, "%s%" PRIu64, k ? "," : "", fs->frames[k].number);
		puts_(h, "],\"worst\":[");
		for (uint32_t w = 0; w < fs->nworst; w++) {
			/* frames are in time order: find the worst one's index */
			uint64_t lo = 0, hi = fs->count;
			while (lo < hi) {
				uint64_t mid = lo + (hi - lo) / 2;
				if (fs->frames[mid].start_ts < fs->worst[w].f.start_ts)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < fs->count)
				fmt(h, "%s%" PRIu64, w ? "," : "", lo);
		}
		puts_(h, "]}");
	}
	puts_(h, "]}");
}

int profev_conv_report(const struct profev_report_run *runs, unsigned nruns, const char *diff_svg,
		       size_t diff_len, const struct profev_conv_sink *sink, struct profev_error *err)
{
	struct profev_error dummy;
	if (!err)
		err = &dummy;
	err_clear(err);
	if (!runs || !nruns || !sink || !sink->write) {
		err_set(err, PROFEV_E_ARG, "no runs or no output");
		return PROFEV_E_ARG;
	}
	struct html h = { 0 };
	int rc = outbuf_init(&h.o, 1 << 20, sink_write, (void *)sink);
	if (rc) {
		err_set(err, rc, "out of memory");
		return rc;
	}
	if (sink->open && sink->open(sink->ctx, 0) < 0)
		h.rc = PROFEV_E_IO;
	puts_(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>profev report: ");
	for (unsigned i = 0; i < nruns; i++) {
		if (i)
			puts_(&h, " against ");
		text(&h, runs[nruns - 1 - i].name);
	}
	puts_(&h, "</title>\n");
	puts_(&h, style);
	puts_(&h, "</head>\n<body>\n<h1>profev report</h1>\n");
	if (nruns > 1)
		puts_(&h, "<p class=\"note\">The base on the left, the new run on the right.</p>\n");
	puts_(&h, "<div class=\"runs\">\n");
	for (unsigned i = 0; i < nruns; i++)
		run_column(&h, &runs[i], i);
	puts_(&h, "</div>\n");
	if (diff_svg) {
		puts_(&h, "<h2>What changed: the new run's zones against the base's</h2>\n"
			  "<p class=\"note\">Boxes as wide as the new run's time; red where a frame's share of "
			  "the whole grew, blue where it shrank.</p>\n");
		put(&h, diff_svg, diff_len);
	}
	puts_(&h, "<script type=\"application/json\" id=\"profev-data\">{\"runs\":[");
	for (unsigned i = 0; i < nruns; i++) {
		if (i)
			puts_(&h, ",");
		frames_json(&h, &runs[i]);
	}
	puts_(&h, "]}</script>\n<script>\n");
	puts_(&h, conv_flame_js);
	puts_(&h, report_js);
	puts_(&h, "</script>\n</body>\n</html>\n");
	if (!h.rc)
		h.rc = outbuf_flush(&h.o);
	if (!h.rc && h.o.err)
		h.rc = PROFEV_E_IO;
	if (!h.rc && sink->close && sink->close(sink->ctx, 0) < 0)
		h.rc = PROFEV_E_IO;
	rc = h.rc;
	if (rc == PROFEV_E_NOMEM)
		err_set(err, rc, "out of memory");
	else if (rc)
		err_set(err, PROFEV_E_IO, "unable to write the output");
	outbuf_free(&h.o);
	free(h.buf);
	return rc ? (rc == PROFEV_E_NOMEM ? rc : PROFEV_E_IO) : 0;
}
