/*
 * SVG target: an interactive flame graph in one file, drawn as
 * flamegraph.pl draws one (the root at the bottom, children in name order,
 * warm colours by name), from flame_tree.c's tree: zones by self time,
 * samples, allocated or live bytes, GPU zones; or, against a base's folded
 * stacks, a differential one in the style of difffolded.pl. The boxes are
 * nested <g> elements, so the picture is its own tree; flame.js (built
 * into flame_js.h) adds hover, zoom on click and search. Boxes narrower
 * than a pixel merge (flame_graph.c), so the file's size grows with what
 * can be seen, not with the trace.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "conv/flame_graph.h"

/* flame.js as a C string, made at build time (the Makefile's gen rule). */
const char conv_flame_js[] =
#include "flame_js.h"
	;

#define WIDTH 1200     /* the picture's width, px */
#define XPAD 10        /* left and right margins */
#define FRAME_H 16     /* a box's height with its gap */
#define FONT 12        /* font size, px */
#define TOP 36         /* the title's band */
#define BOTTOM 34      /* the details line's band */
#define MIN_PX 1.0     /* narrower boxes merge */

struct svg {
	struct flame_tree tree; /* first: the tree's callbacks find it at c->fmt */
	char *buf;              /* a name being cleaned */
	size_t cap;
};

static int sv_init(struct conv *c)
{
	struct svg *s = calloc(1, sizeof(*s));
	if (!(c->fmt = s))
		return PROFEV_E_NOMEM;
	return flame_tree_init(c, &s->tree);
}

static void sv_fini(struct conv *c)
{
	struct svg *s = c->fmt;
	if (!s)
		return;
	flame_tree_free(&s->tree);
	free(s->buf);
	free(s);
}

static int out_fmt(struct conv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int out_fmt(struct conv *c, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return PROFEV_E_IO;
	if ((size_t)n >= sizeof tmp)
		n = sizeof tmp - 1; /* only numbers and fixed words come here */
	int rc = outbuf_reserve(&c->out, (size_t)n);
	if (rc)
		return rc;
	outbuf_put(&c->out, tmp, (size_t)n);
	return 0;
}

static int out_str(struct conv *c, const char *s, size_t n)
{
	int rc = outbuf_reserve(&c->out, n);
	if (!rc)
		outbuf_put(&c->out, s, n);
	return rc;
}

/* Text that flame_name_clean() made valid UTF-8, as XML character data or
 * an attribute's value: markup escaped, and what XML 1.0 forbids (control
 * characters, U+FFFE, U+FFFF) U+FFFD. */
static int out_xml(struct conv *c, const char *s, size_t n)
{
	int rc = outbuf_reserve(&c->out, 6 * n);
	if (rc)
		return rc;
	struct outbuf *o = &c->out;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '&')
			outbuf_lit(o, "&amp;");
		else if (ch == '<')
			outbuf_lit(o, "&lt;");
		else if (ch == '>')
			outbuf_lit(o, "&gt;");
		else if (ch == '"')
			outbuf_lit(o, "&quot;");
		else if (ch == '\t')
			outbuf_byte(o, ' ');
		else if (ch < 0x20)
			outbuf_lit(o, "\xef\xbf\xbd");
		else if (ch == 0xef && i + 2 < n && (unsigned char)s[i + 1] == 0xbf &&
			 ((unsigned char)s[i + 2] & 0xfe) == 0xbe) {
			outbuf_lit(o, "\xef\xbf\xbd");
			i += 2;
		} else
			outbuf_byte(o, ch);
	}
	return 0;
}

/* Any text (a title from the caller) cleaned, then as out_xml(). */
static int out_text(struct conv *c, const char *s)
{
	struct svg *sv = c->fmt;
	size_t n = strlen(s), need = 3 * n + 9;
	if (need > sv->cap) {
		char *p = realloc(sv->buf, need);
		if (!p)
			return PROFEV_E_NOMEM;
		sv->buf = p;
		sv->cap = need;
	}
	return out_xml(c, sv->buf, flame_name_clean(sv->buf, s, n, &c->st.replaced_bytes));
}

enum unit { NS, SAMPLES, BYTES };

static enum unit unit_of(const struct conv *c)
{
	unsigned f = c->opts->flags;
	return f & PROFEV_CONV_SAMPLES ? SAMPLES : f & PROFEV_CONV_ALLOC ? BYTES : NS;
}

/* A weight for people: "12.35 ms", "3 samples", "1.50 MiB". */
static void amount(char *b, size_t n, enum unit u, double v)
{
	if (u == SAMPLES) {
		snprintf(b, n, "%.0f sample%s", v, v == 1 ? "" : "s");
	} else if (u == BYTES) {
		if (v < 1024)
			snprintf(b, n, "%.0f bytes", v);
		else if (v < 1024.0 * 1024)
			snprintf(b, n, "%.2f KiB", v / 1024);
		else if (v < 1024.0 * 1024 * 1024)
			snprintf(b, n, "%.2f MiB", v / (1024.0 * 1024));
		else
			snprintf(b, n, "%.2f GiB", v / (1024.0 * 1024 * 1024));
	} else if (v < 1e3)
		snprintf(b, n, "%.0f ns", v);
	else if (v < 1e6)
		snprintf(b, n, "%.2f us", v / 1e3);
	else if (v < 1e9)
		snprintf(b, n, "%.2f ms", v / 1e6);
	else
		snprintf(b, n, "%.3f s", v / 1e9);
}

static const char *default_title(const struct conv *c)
{
	unsigned f = c->opts->flags;
	if (f & PROFEV_CONV_SAMPLES)
		return "CPU samples";
	if (f & PROFEV_CONV_LIVE)
		return "Live bytes by callstack";
	if (f & PROFEV_CONV_ALLOC)
		return "Allocated bytes by callstack";
	if (f & PROFEV_CONV_GPU)
		return "GPU time by zone";
	return "Zones by time";
}

static const char *kind_name(const struct conv *c)
{
	unsigned f = c->opts->flags;
	return f & PROFEV_CONV_SAMPLES ? "samples" : f & PROFEV_CONV_LIVE ? "live" :
	       f & PROFEV_CONV_ALLOC ? "alloc" : f & PROFEV_CONV_GPU ? "gpu" : "time";
}

/* flamegraph.pl's palettes, the colour chosen by the name's hash so that a
 * function keeps its colour in every graph. */
static void box_colour(char *b, size_t n, const char *name, size_t len, int mem)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	double v1 = (h & 0xff) / 255.0, v2 = (h >> 8 & 0xff) / 255.0, v3 = (h >> 16 & 0xff) / 255.0;
	if (mem)
		snprintf(b, n, "rgb(0,%d,%d)", 190 + (int)(50 * v2), (int)(210 * v1));
	else
		snprintf(b, n, "rgb(%d,%d,%d)", 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
}

/* Red where the share grew against the base's, blue where it shrank, the
 * deeper the larger the change against the largest one (difffolded.pl's
 * colours through flamegraph.pl). */
static void diff_colour(char *b, size_t n, double delta, double maxdelta)
{
	int k = maxdelta > 0 ? (int)(210 * (1 - (delta < 0 ? -delta : delta) / maxdelta)) : 210;
	if (delta > 0)
		snprintf(b, n, "rgb(255,%d,%d)", k, k);
	else if (delta < 0)
		snprintf(b, n, "rgb(%d,%d,255)", k, k);
	else
		snprintf(b, n, "rgb(250,250,250)");
}

static int write_head(struct conv *c, int height, uint64_t total, int diff)
{
	int embed = (c->opts->flags & PROFEV_CONV_SVG_EMBED) != 0;
	int rc = 0;
	if (!embed)
		rc = out_fmt(c, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	if (!rc)
		rc = out_fmt(c,
			     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
			     "height=\"%d\" viewBox=\"0 0 %d %d\" class=\"flame\" data-kind=\"%s\" "
			     "data-diff=\"%d\" data-total=\"%" PRIu64 "\" data-xpad=\"%d\" data-w=\"%d\" "
			     "data-fs=\"%d\">\n",
			     WIDTH, height, WIDTH, height, kind_name(c), diff, total, XPAD,
			     WIDTH - 2 * XPAD, FONT);
	if (!rc)
		rc = out_fmt(c, "<style>\n"
				".flame text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
				".flame .title { font-size: 17px; text-anchor: middle; }\n"
				".flame .matched { text-anchor: end; }\n"
				".flame .search, .flame .unzoom, .flame g.f { cursor: pointer; }\n"
				".flame g.f:hover > rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
				".flame .hide { display: none; }\n"
				".flame .parent > rect { opacity: 0.5; }\n"
				"</style>\n",
			     FONT);
	if (!rc)
		rc = out_fmt(c, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,232)\"/>\n"
				"<text class=\"title\" x=\"%d\" y=\"24\">",
			     WIDTH, height, WIDTH / 2);
	if (!rc)
		rc = out_text(c, c->opts->title ? c->opts->title : default_title(c));
	if (!rc && diff)
		rc = out_fmt(c, " (red: more than the base, blue: less)");
	if (!rc)
		rc = out_fmt(c, "</text>\n"
				"<text class=\"unzoom hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
				"<text class=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
				"<text class=\"matched\" x=\"%d\" y=\"%d\"> </text>\n"
				"<text class=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
			     XPAD, WIDTH - XPAD - 90, WIDTH - XPAD, height - 15, XPAD, height - 15);
	return rc;
}

static int write_tail(struct conv *c)
{
	int rc = 0;
	if (!(c->opts->flags & PROFEV_CONV_SVG_EMBED)) {
		rc = out_fmt(c, "<script type=\"text/ecmascript\"><![CDATA[\n");
		if (!rc)
			rc = out_str(c, conv_flame_js, sizeof conv_flame_js - 1);
		if (!rc)
			rc = out_fmt(c, "flameInit(document.documentElement, true);\n]]></script>\n");
	}
	return rc ? rc : out_fmt(c, "</svg>\n");
}

/* One box, its <g> left open for its children. */
static int write_box(struct conv *c, const struct flame_graph *g, const struct fg_box *b,
		     double scale, int height, double base_scale, double maxdelta)
{
	enum unit u = unit_of(c);
	const struct fg_node *nd = b->node != FT_NONE ? &g->nodes[b->node] : NULL;
	char merged[48];
	const char *name = merged;
	size_t len;
	if (nd) {
		name = g->text + nd->name;
		len = nd->nlen;
	} else {
		len = (size_t)snprintf(merged, sizeof merged, "%" PRIu32 " small frames", b->merged);
	}
	double x = XPAD + (double)b->x * scale, w = (double)b->w * scale;
	double y = height - BOTTOM - (double)(b->depth + 1) * FRAME_H;
	uint64_t total = g->nodes[0].total;
	char what[160], colour[32], a[48], ba[48];
	amount(a, sizeof a, u, (double)b->w);
	double pct = 100.0 * (double)b->w / (double)total;
	if (g->diff) {
		double bpct = g->nodes[0].btotal ? 100.0 * (double)b->bw / (double)g->nodes[0].btotal : 0;
		amount(ba, sizeof ba, u, (double)b->bw);
		snprintf(what, sizeof what, "%s, %.2f%%; base %s, %.2f%%; %+.2f points", a, pct, ba, bpct,
			 pct - bpct);
		diff_colour(colour, sizeof colour, (double)b->w - (double)b->bw * base_scale, maxdelta);
	} else {
		snprintf(what, sizeof what, "%s, %.2f%%", a, pct);
		if (nd)
			box_colour(colour, sizeof colour, name, len, u == BYTES);
		else
			snprintf(colour, sizeof colour, "rgb(190,190,190)");
	}
	int rc = out_fmt(c, "<g class=\"f%s\" data-v=\"%" PRIu64 "\"", nd ? "" : " m", b->w);
	if (!rc && g->diff)
		rc = out_fmt(c, " data-b=\"%" PRIu64 "\"", b->bw);
	if (!rc)
		rc = out_fmt(c, "><title>");
	if (!rc)
		rc = out_xml(c, name, len);
	if (!rc)
		rc = out_fmt(c, "\n%s</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
				"fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
			     what, x, y, w, FRAME_H - 1, colour, x + 3, y + 10.5);
	/* The label: as much of the name as fits, ".." marking a cut. */
	size_t room = w > 6 ? (size_t)((w - 6) / (FONT * 0.59)) : 0;
	if (!rc && room >= 3) {
		/* count characters, not bytes: UTF-8 continuation bytes are free */
		size_t chars = 0, cut = len;
		for (size_t i = 0; i < len; i++)
			if (((unsigned char)name[i] & 0xc0) != 0x80 && ++chars == room - 1)
				cut = i;
		if (chars <= room)
			rc = out_xml(c, name, len);
		else if (!(rc = out_xml(c, name, cut)))
			rc = out_fmt(c, "..");
	}
	return rc ? rc : out_fmt(c, "</text>\n");
}

static int sv_finish(struct conv *c)
{
	struct svg *s = c->fmt;
	struct flame_graph g;
	struct fg_box *boxes = NULL;
	uint32_t nb = 0;
	int rc = fg_init(&g);
	if (!rc)
		rc = fg_add_tree(&g, c, &s->tree);
	if (!rc && c->opts->diff_base) {
		uint64_t bad = 0;
		rc = fg_add_folded(&g, c->opts->diff_base, c->opts->diff_base_len, &bad);
	}
	if (rc)
		goto out;
	fg_sum(&g);
	uint64_t total = g.nodes[0].total;
	double scale = total ? (double)(WIDTH - 2 * XPAD) / (double)total : 0;
	if (total && (rc = fg_layout(&g, MIN_PX / scale, &boxes, &nb)))
		goto out;
	uint32_t depth = 0;
	double base_scale = g.nodes[0].btotal ? (double)total / (double)g.nodes[0].btotal : 0;
	double maxdelta = 0;
	for (uint32_t i = 0; i < nb; i++) {
		if (boxes[i].depth > depth)
			depth = boxes[i].depth;
		double d = (double)boxes[i].w - (double)boxes[i].bw * base_scale;
		if (d < 0)
			d = -d;
		if (d > maxdelta)
			maxdelta = d;
	}
	int height = TOP + (int)(depth + 1) * FRAME_H + BOTTOM;
	if ((rc = write_head(c, height, total, g.diff)))
		goto out;
	if (!nb)
		rc = out_fmt(c, "<text x=\"%d\" y=\"%d\">Nothing to draw: no %s in the trace, or in "
				"what --from, --to and --thread keep</text>\n",
			     XPAD, TOP + 14, unit_of(c) == SAMPLES ? "samples" :
					     unit_of(c) == BYTES ? "allocations" : "zones");
	if (!rc)
		rc = out_fmt(c, "<g class=\"frames\">\n");
	/* Boxes come a node before its children: each closes the <g>s of the
	 * boxes at its depth and below that are still open. */
	uint32_t open = 0;
	for (uint32_t i = 0; i < nb && !rc; i++) {
		for (; open > boxes[i].depth && !rc; open--)
			rc = out_fmt(c, "</g>\n");
		if (!rc)
			rc = write_box(c, &g, &boxes[i], scale, height, base_scale, maxdelta);
		open++;
	}
	for (; open && !rc; open--)
		rc = out_fmt(c, "</g>\n");
	if (!rc)
		rc = out_fmt(c, "</g>\n");
	if (!rc)
		rc = write_tail(c);
out:
	free(boxes);
	fg_free(&g);
	return rc;
}

const struct conv_ops conv_svg_ops = {
	.name = "svg",
	FLAME_TREE_OPS,
	.init = sv_init,
	.fini = sv_fini,
	.finish = sv_finish,
};

const struct conv_ops conv_svg_alloc_ops = {
	.name = "svg",
	FLAME_TREE_OPS,
	.memory = flame_memory,
	.init = sv_init,
	.fini = sv_fini,
	.finish = sv_finish,
};
