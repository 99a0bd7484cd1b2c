/*
 * Perfetto target: GPU zones. Each GPU context is a track of its own under
 * the process, named as the program named the context, and its zones are
 * TrackEvent slices on it (formats/trace.md, "GPU", says why not
 * Perfetto's GPU render stages), on sequence 1 with whole timestamps: the
 * contexts' zones come in no order with the threads' events.
 */
#include "conv/perfetto_packets.h"

static void describe(struct conv *c, const struct conv_gpu_track *t)
{
	struct outbuf *o = &c->out;
	const struct profev_gpu_context *g = profev_reader_gpu_context(c->r, t->ctx);
	const char *name = g ? profev_reader_string(c->r, g->name) : "";
	size_t pk = perfetto_packet_begin(c, c->now, 0);
	size_t td = pb_begin(o, TP_TRACK_DESCRIPTOR);
	pb_uint(o, TD_UUID, UUID_GPU(t->ctx));
	pb_uint(o, TD_PARENT_UUID, UUID_PROCESS);
	size_t n = pb_begin(o, TD_NAME);
	if (!name[0])
		outbuf_lit(o, "GPU");
	c->st.replaced_bytes += pb_utf8(o, name, strlen(name));
	pb_end(o, n);
	pb_end(o, td);
	pb_end(o, pk);
}

int perfetto_gpu_begin(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z)
{
	struct perfetto *p = c->fmt;
	perfetto_use_shared(p);
	int rc;
	if (t->part != p->part) {
		const struct profev_gpu_context *g = profev_reader_gpu_context(c->r, t->ctx);
		size_t len = g ? strlen(profev_reader_string(c->r, g->name)) : 0;
		if ((rc = outbuf_reserve(&c->out, PACKET_MAX + 3 * len)))
			return rc;
		describe(c, t);
		t->part = p->part;
	}
	const struct profev_srcloc *l = profev_reader_srcloc(c->r, z->name);
	struct te_marks m;
	if ((rc = perfetto_te_open(c, &m, z->begin, TYPE_SLICE_BEGIN, UUID_GPU(t->ctx), z->name,
				   l ? l->category : 0, 0)))
		return rc;
	perfetto_te_close(c, &m);
	return 0;
}

int perfetto_gpu_end(struct conv *c, struct conv_gpu_track *t, struct conv_gpu_zone *z)
{
	struct outbuf *o = &c->out;
	perfetto_use_shared(c->fmt);
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	size_t pk = perfetto_packet_begin(c, z->end, 0);
	size_t te = pb_begin(o, TP_TRACK_EVENT);
	pb_uint(o, TE_TYPE, TYPE_SLICE_END);
	pb_uint(o, TE_TRACK_UUID, UUID_GPU(t->ctx));
	pb_end(o, te);
	pb_end(o, pk);
	return 0;
}
