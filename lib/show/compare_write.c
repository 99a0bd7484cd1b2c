/* pfdump --compare's output: the tables as text, or one JSON object per
 * row; see pfdump(1) for both. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/json_write.h"
#include "common/outbuf.h"
#include "show/compare.h"

static int sink_file(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : PROFEV_E_IO;
}

__attribute__((format(printf, 2, 3))) static void put(struct outbuf *o, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	if ((size_t)k >= sizeof line)
		k = sizeof line - 1;
	if (!outbuf_reserve(o, (size_t)k))
		outbuf_put(o, line, (size_t)k);
}

/* A name as the program gave it, control bytes escaped, padded to width. */
static void put_name(struct outbuf *o, const char *s, size_t width)
{
	size_t n = strlen(s);
	if (outbuf_reserve(o, 4 * n + width))
		return;
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			char esc[8];
			snprintf(esc, sizeof esc, "\\x%02x", c);
			outbuf_put(o, esc, 4);
			shown += 4;
		} else {
			outbuf_byte(o, c);
			shown += (c & 0xc0) != 0x80; /* a character, not a UTF-8 continuation */
		}
	}
	for (; shown < width; shown++)
		outbuf_byte(o, ' ');
}

static void put_json(struct outbuf *o, const char *s)
{
	size_t n = strlen(s);
	if (!outbuf_reserve(o, JSON_STRING_MAX(n)))
		json_string(o, s, n);
}

static void put_double(struct outbuf *o, double d)
{
	if (!outbuf_reserve(o, JSON_NUMBER_MAX))
		json_double(o, d);
}

/* ns as 850ns, 12.34us, 123.4us, 1.234ms, 1.234s: 4 figures at most. */
static const char *dur(char *b, size_t size, double ns)
{
	static const struct { double scale; const char *unit; } u[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	for (size_t i = 0; i < 3; i++) {
		if (ns >= u[i].scale) {
			double v = ns / u[i].scale;
			snprintf(b, size, v >= 100 ? "%.1f%s" : v >= 10 ? "%.2f%s" : "%.3f%s", v, u[i].unit);
			return b;
		}
	}
	snprintf(b, size, "%.0fns", ns);
	return b;
}

static const char *bytes_text(char *b, size_t size, uint64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double x = (double)v;
	unsigned i = 0;
	while (x >= 1024 && i < 4)
		x /= 1024, i++;
	snprintf(b, size, i ? "%.1f %s" : "%.0f %s", x, unit[i]);
	return b;
}

static const char *pct(char *b, size_t size, double ratio)
{
	snprintf(b, size, "%+.1f%%", (ratio - 1) * 100);
	return b;
}

static const char *const kind_title[] = {
	[CMP_FRAMES] = "Frame times, by frame set",
	[CMP_ZONE] = "Zones, by name",
	[CMP_SITE] = "Zones, by call site",
	[CMP_ALLOC] = "Allocations, by callstack",
};
static const char *const kind_json[] = {
	[CMP_FRAMES] = "frames", [CMP_ZONE] = "zone", [CMP_SITE] = "site", [CMP_ALLOC] = "alloc",
};

static void text_stats(struct outbuf *o, const char *side, const struct sample_summary *s)
{
	char m[32], md[32], p90[32], p99[32];
	put(o, "  %-4s %9" PRIu64 " %10s %10s %10s %10s", side, s->n, dur(m, sizeof m, s->mean),
	    dur(md, sizeof md, (double)s->median), dur(p90, sizeof p90, (double)s->p90),
	    dur(p99, sizeof p99, (double)s->p99));
}

static void text_verdict(struct outbuf *o, const struct cmp_row *w, const struct profev_compare_opts *opt)
{
	char a[32], b[32], c[32];
	if (w->verdict == CMP_RARE) {
		put(o, "  %-26s too rare to test (fewer than %" PRIu64 " on a side)\n", "", opt->min_count);
		return;
	}
	put(o, "  %-8s [%s, %s]", pct(a, sizeof a, w->ratio), pct(b, sizeof b, w->lo), pct(c, sizeof c, w->hi));
	if (w->verdict == CMP_SAME)
		put(o, "  no significant change\n");
	else if (w->by_tail)
		put(o, "  %s: p99 %s\n", w->verdict == CMP_SLOWER ? "slower" : "faster", pct(a, sizeof a, w->p99_ratio));
	else
		put(o, "  %s\n", w->verdict == CMP_SLOWER ? "slower" : "faster");
}

static void text_table(struct outbuf *o, const struct cmp_table *t, enum cmp_kind kind,
		       const struct profev_compare_opts *opt)
{
	put(o, "\n%s\n", kind_title[kind]);
	if (!t->n) {
		put(o, "  (none in either trace)\n");
		return;
	}
	if (kind == CMP_ALLOC) {
		for (uint32_t i = 0; i < t->n; i++) {
			const struct cmp_row *w = &t->rows[i];
			char a[32], b[32], c[32];
			const struct cmp_alloc *x = w->alloc_a, *y = w->alloc_b;
			put(o, "  count %" PRIu64 " -> %" PRIu64 ", bytes %s -> %s", x ? x->count : 0, y ? y->count : 0,
			    bytes_text(a, sizeof a, x ? x->bytes : 0), bytes_text(b, sizeof b, y ? y->bytes : 0));
			if (w->verdict == CMP_ONLY_BASE || w->verdict == CMP_ONLY_NEW)
				put(o, "  only in %s\n", w->verdict == CMP_ONLY_BASE ? "base" : "new");
			else
				put(o, "  %s  %s\n", pct(c, sizeof c, w->ratio),
				    w->verdict == CMP_MORE ? "more" : w->verdict == CMP_LESS ? "less" : "about the same");
			put(o, "      ");
			put_name(o, w->name, 0);
			put(o, "\n");
		}
		return;
	}
	size_t width = 10;
	for (uint32_t i = 0; i < t->n; i++) {
		size_t n = strlen(t->rows[i].name);
		if (n > width)
			width = n;
		n = t->rows[i].where ? strlen(t->rows[i].where) : 0;
		if (n > width)
			width = n;
	}
	if (width > 40)
		width = 40;
	put_name(o, "", width + 2);
	put(o, "  %-4s %9s %10s %10s %10s %10s  %-24s  %s\n", "", "count", "mean", "median", "p90", "p99",
	    "change [interval]", "verdict");
	for (uint32_t i = 0; i < t->n; i++) {
		const struct cmp_row *w = &t->rows[i];
		put(o, "  ");
		put_name(o, kind == CMP_FRAMES && !w->name[0] ? "(default)" : w->name, width);
		if (w->verdict == CMP_ONLY_BASE || w->verdict == CMP_ONLY_NEW) {
			int base = w->verdict == CMP_ONLY_BASE;
			text_stats(o, base ? "base" : "new", base ? &w->sa : &w->sb);
			put(o, "  %-24s  only in %s\n", "", base ? "base" : "new");
		} else {
			text_stats(o, "base", &w->sa);
			put(o, "\n  ");
			put_name(o, w->where ? w->where : "", width);
			text_stats(o, "new", &w->sb);
			text_verdict(o, w, opt);
		}
		if (w->where && (w->verdict == CMP_ONLY_BASE || w->verdict == CMP_ONLY_NEW)) {
			put(o, "    at ");
			put_name(o, w->where, 0);
			put(o, "\n");
		}
	}
}

static void json_stats(struct outbuf *o, const char *key, const struct cmp_row *w, int side)
{
	put(o, ",\"%s\":", key);
	int absent = side ? !w->b && !w->alloc_b : !w->a && !w->alloc_a;
	if (absent) {
		put(o, "null");
		return;
	}
	if (w->kind == CMP_ALLOC) {
		const struct cmp_alloc *x = side ? w->alloc_b : w->alloc_a;
		put(o, "{\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", x->count, x->bytes);
		return;
	}
	const struct sample_summary *s = side ? &w->sb : &w->sa;
	put(o, "{\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"mean_ns\":", s->n, s->total);
	put_double(o, s->mean);
	put(o, ",\"median_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 "}", s->median, s->p90, s->p99);
}

static void json_row(struct outbuf *o, const struct cmp_row *w)
{
	put(o, "{\"type\":\"%s\",\"%s\":", kind_json[w->kind], w->kind == CMP_ALLOC ? "stack" : "name");
	put_json(o, w->name);
	if (w->kind == CMP_SITE) {
		put(o, ",\"where\":");
		put_json(o, w->where);
	}
	json_stats(o, "base", w, 0);
	json_stats(o, "new", w, 1);
	int tested = w->verdict != CMP_RARE && w->verdict != CMP_ONLY_BASE && w->verdict != CMP_ONLY_NEW;
	put(o, ",\"ratio\":");
	put_double(o, tested ? w->ratio : NAN);
	if (w->kind != CMP_ALLOC) {
		put(o, ",\"ci_low\":");
		put_double(o, tested ? w->lo : NAN);
		put(o, ",\"ci_high\":");
		put_double(o, tested ? w->hi : NAN);
		put(o, ",\"p99_ratio\":");
		put_double(o, tested ? w->p99_ratio : NAN);
		put(o, ",\"p_value\":");
		put_double(o, w->p >= 0 ? w->p : NAN);
		put(o, ",\"tail_p_value\":");
		put_double(o, w->tail_p >= 0 ? w->tail_p : NAN);
	}
	put(o, ",\"verdict\":\"%s\"", cmp_verdict_names[w->verdict]);
	if (w->verdict == CMP_SLOWER || w->verdict == CMP_FASTER)
		put(o, ",\"by\":\"%s\"", w->by_tail ? "p99" : "median");
	put(o, "}\n");
}

static void count(struct profev_compare_result *res, const struct cmp_table *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		switch (t->rows[i].verdict) {
		case CMP_SLOWER: res->slower++; break;
		case CMP_FASTER: res->faster++; break;
		case CMP_SAME: res->same++; break;
		case CMP_RARE: res->untested++; break;
		case CMP_ONLY_BASE: res->only_base++; break;
		case CMP_ONLY_NEW: res->only_new++; break;
		default: break;
		}
	}
}

int profev_compare_write(const struct profev_compare_side *base, const struct profev_compare_side *new_,
			 FILE *out, const struct profev_compare_opts *opt, struct profev_compare_result *res)
{
	struct profev_compare_result mine;
	if (!res)
		res = &mine;
	memset(res, 0, sizeof(*res));
	struct cmp_table t[4] = { { 0 } };
	for (int k = CMP_FRAMES; k <= CMP_ALLOC; k++) {
		if (cmp_rows(base, new_, (enum cmp_kind)k, opt, &t[k])) {
			for (int j = 0; j <= k; j++)
				cmp_table_free(&t[j]);
			return PROFEV_E_NOMEM;
		}
	}
	for (int k = CMP_FRAMES; k <= CMP_SITE; k++)
		count(res, &t[k]);
	struct outbuf o;
	if (outbuf_init(&o, 1 << 16, sink_file, out)) {
		for (int k = 0; k < 4; k++)
			cmp_table_free(&t[k]);
		return PROFEV_E_NOMEM;
	}
	int jsonl = opt->format == PROFEV_DUMP_JSONL;
	if (jsonl) {
		put(&o, "{\"type\":\"compare\",\"base\":");
		put_json(&o, opt->base_name);
		put(&o, ",\"new\":");
		put_json(&o, opt->new_name);
		put(&o, ",\"alpha\":");
		put_double(&o, opt->alpha);
		put(&o, ",\"threshold\":");
		put_double(&o, opt->threshold);
		put(&o, ",\"min_count\":%" PRIu64 ",\"allocations\":%s}\n", opt->min_count,
		    base->mem_events && new_->mem_events ? "true" : "false");
		for (int k = CMP_FRAMES; k <= CMP_ALLOC; k++)
			for (uint32_t i = 0; i < t[k].n; i++)
				json_row(&o, &t[k].rows[i]);
		put(&o, "{\"type\":\"summary\",\"slower\":%" PRIu64 ",\"faster\":%" PRIu64 ",\"same\":%" PRIu64
			",\"too_rare\":%" PRIu64 ",\"only_base\":%" PRIu64 ",\"only_new\":%" PRIu64 "}\n",
		    res->slower, res->faster, res->same, res->untested, res->only_base, res->only_new);
	} else {
		put(&o, "base: ");
		put_name(&o, opt->base_name, 0);
		put(&o, "\nnew:  ");
		put_name(&o, opt->new_name, 0);
		put(&o, "\nA row is slower or faster when a Mann-Whitney U test of its times (at %g; at\n"
			"%g where the tail is too thin to test) or a test of the share above the pooled\n"
			"p99 (at %g) finds a difference, and its medians (or p99s) differ by %g%% or more.\n"
			"Change: new median / base median, with its %g%% interval. Fewer than %" PRIu64 " times\n"
			"on a side: not tested.\n",
		    opt->alpha * (1 - TAIL_SHARE), opt->alpha, opt->alpha * TAIL_SHARE, opt->threshold * 100,
		    (1 - opt->alpha) * 100, opt->min_count);
		for (int k = CMP_FRAMES; k <= CMP_SITE; k++)
			text_table(&o, &t[k], (enum cmp_kind)k, opt);
		if (base->mem_events && new_->mem_events)
			text_table(&o, &t[CMP_ALLOC], CMP_ALLOC, opt);
		else if (base->mem_events || new_->mem_events)
			put(&o, "\nAllocations: not compared, %s trace holds no memory events\n",
			    base->mem_events ? "the new" : "the base");
		put(&o, "\nSummary: %" PRIu64 " slower, %" PRIu64 " faster, %" PRIu64 " no significant change, %" PRIu64
			" too rare to test, %" PRIu64 " only in base, %" PRIu64 " only in new\n",
		    res->slower, res->faster, res->same, res->untested, res->only_base, res->only_new);
	}
	int rc = o.err ? o.err : outbuf_flush(&o);
	outbuf_free(&o);
	for (int k = 0; k < 4; k++)
		cmp_table_free(&t[k]);
	return rc;
}
