/*
 * The registry of pfconv's targets: each format's ops table (a new target
 * is a new file and a row here), its name and file extension, and the
 * options the read loop checks before it runs one.
 */
#include <string.h>
#include "conv/conv_internal.h"
#include "common/common.h"

static const struct conv_ops *const targets[] = {
	[PROFEV_CONV_PERFETTO] = &conv_perfetto_ops,
	[PROFEV_CONV_CHROME] = &conv_chrome_ops,
	[PROFEV_CONV_FOLDED] = &conv_folded_ops,
	[PROFEV_CONV_PNG] = &conv_png_ops,
	[PROFEV_CONV_SVG] = &conv_svg_ops,
};
/* With PROFEV_CONV_ALLOC: the same with a memory callback. */
static const struct conv_ops *const alloc_targets[] = {
	[PROFEV_CONV_FOLDED] = &conv_folded_alloc_ops,
	[PROFEV_CONV_SVG] = &conv_svg_alloc_ops,
};
static const char *const exts[] = {
	[PROFEV_CONV_PERFETTO] = ".pftrace",
	[PROFEV_CONV_CHROME] = ".json",
	[PROFEV_CONV_FOLDED] = ".folded",
	[PROFEV_CONV_PNG] = "",
	[PROFEV_CONV_SVG] = ".svg",
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

int profev_conv_format_from_name(const char *name)
{
	for (unsigned i = 1; i < NTARGETS; i++)
		if (name && strcmp(name, targets[i]->name) == 0)
			return (int)i;
	return 0;
}

const char *profev_conv_format_name(int format)
{
	return format > 0 && (unsigned)format < NTARGETS ? targets[format]->name : "unknown";
}

const char *profev_conv_format_ext(int format)
{
	return format > 0 && (unsigned)format < NTARGETS ? exts[format] : "";
}

void profev_conv_opts_init(struct profev_conv_opts *opts, int format)
{
	memset(opts, 0, sizeof(*opts));
	opts->format = format;
	opts->to_ns = UINT64_MAX;
}

const struct conv_ops *conv_target(const struct profev_conv_opts *o)
{
	if ((o->flags & PROFEV_CONV_ALLOC) &&
	    (unsigned)o->format < sizeof(alloc_targets) / sizeof(alloc_targets[0]) &&
	    alloc_targets[o->format])
		return alloc_targets[o->format];
	return targets[o->format];
}

int conv_check_opts(const struct profev_conv_opts *o, const struct profev_conv_sink *sink,
		    struct profev_error *err)
{
	if (!o || o->format <= 0 || (unsigned)o->format >= NTARGETS) {
		err_set(err, PROFEV_E_ARG, "unknown output format");
		return PROFEV_E_ARG;
	}
	if (!sink || !sink->write) {
		err_set(err, PROFEV_E_ARG, "no output");
		return PROFEV_E_ARG;
	}
	if (o->from_ns > o->to_ns) {
		err_set(err, PROFEV_E_ARG, "time window ends before it starts");
		return PROFEV_E_ARG;
	}
	if (o->format == PROFEV_CONV_PNG && (!o->image_dir || !*o->image_dir)) {
		err_set(err, PROFEV_E_ARG, "png output needs a directory");
		return PROFEV_E_ARG;
	}
	if ((o->flags & PROFEV_CONV_COMPRESS) && o->format != PROFEV_CONV_PERFETTO) {
		err_set(err, PROFEV_E_ARG, "only perfetto output can be compressed");
		return PROFEV_E_ARG;
	}
	int flame = o->format == PROFEV_CONV_FOLDED || o->format == PROFEV_CONV_SVG;
	unsigned kinds = o->flags & (PROFEV_CONV_SAMPLES | PROFEV_CONV_GPU | PROFEV_CONV_ALLOC);
	if (kinds & (kinds - 1)) {
		err_set(err, PROFEV_E_ARG, "samples, GPU zones and allocations are separate profiles");
		return PROFEV_E_ARG;
	}
	if (kinds && !flame) {
		err_set(err, PROFEV_E_ARG, "%s output has no profile of samples, GPU zones or allocations",
			targets[o->format]->name);
		return PROFEV_E_ARG;
	}
	if ((o->flags & PROFEV_CONV_LIVE) && !(o->flags & PROFEV_CONV_ALLOC)) {
		err_set(err, PROFEV_E_ARG, "live bytes are a profile of allocations");
		return PROFEV_E_ARG;
	}
	if (o->diff_base && o->format != PROFEV_CONV_SVG) {
		err_set(err, PROFEV_E_ARG, "only svg output is drawn against a base");
		return PROFEV_E_ARG;
	}
	if (o->split_size && !targets[o->format]->split_ok) {
		err_set(err, PROFEV_E_ARG, "%s output cannot be split", targets[o->format]->name);
		return PROFEV_E_ARG;
	}
	return 0;
}
