/* The reader's GPU side: gpu and gpu zones chunks into gpu_codec.c's
 * tables, and the API that hands contexts, times and zones out. */
#include "trace/trace_internal.h"

static int ensure_gpu(struct profev_reader *r)
{
	if (!r->gpu) {
		if (!(r->gpu = gpu_dec_new()))
			return PROFEV_E_NOMEM;
		gpu_dec_handler(r->gpu, r->gpu_fn, r->gpu_arg);
	}
	return 0;
}

int reader_parse_gpu(struct profev_reader *r, struct cursor *cur, unsigned kind, uint32_t count,
		     struct profev_chunk *c)
{
	if (ensure_gpu(r))
		return PROFEV_E_NOMEM;
	if (kind == PROFEV_CHUNK_GPU)
		return gpu_dec_defs(r->gpu, cur, count, r->nstrs);
	return gpu_dec_zones(r->gpu, cur, count, r->nstrs, &c->gpu_zones, &c->ngpu_zones);
}

const struct profev_gpu_context *profev_reader_gpu_context(const struct profev_reader *r, uint32_t id)
{
	return gpu_dec_context(r->gpu, id);
}

int profev_reader_gpu_time(const struct profev_reader *r, uint32_t ctx, uint64_t gpu, uint64_t *ns)
{
	return gpu_dec_time(r->gpu, ctx, gpu, ns);
}

void profev_reader_on_gpu_zones(struct profev_reader *r, profev_gpu_zones_fn fn, void *arg)
{
	r->gpu_fn = fn;
	r->gpu_arg = arg;
	if (r->gpu)
		gpu_dec_handler(r->gpu, fn, arg);
}
