/*
 * The output's parts: each a complete file of its own (--split-size), with
 * the zones open at a cut closed at its end and opened again in the next.
 */
#include "conv/zone_stack.h"
#include "conv/zpack.h"

/* Bytes set aside per open zone when deciding to split, for the records
 * that close it at the cut (in Chrome JSON a B and an E event, each with
 * the zone's names and args). */
#define CLOSE_COST 384
#define PART_TRAILER 64

int conv_part_open(struct conv_loop *l)
{
	struct conv *c = &l->c;
	const struct profev_conv_sink *s = l->sink;
	if (s->open && s->open(s->ctx, c->st.parts) < 0)
		return PROFEV_E_IO;
	c->st.parts++;
	/* A part after a split is a trace of its own: its memory counters
	 * start from what is live, not from nothing. */
	if (c->st.parts > 1 && l->npools) {
		l->snap = 1;
		l->snap_ts = 0;
	}
	c->part_start = outbuf_size(&c->out);
	l->in_part = 1;
	l->part_events = 0;
	for (unsigned i = 0; i < l->nthreads; i++)
		l->threads[i]->announced = 0;
	l->pending = l->snap;
	int rc = c->ops->part_begin(c);
	return rc ? rc : conv_out_rc(c);
}

int conv_part_close(struct conv_loop *l)
{
	struct conv *c = &l->c;
	const struct profev_conv_sink *s = l->sink;
	l->in_part = 0;
	l->pending = 1;
	int rc = c->ops->part_end(c);
	if (!rc)
		rc = outbuf_flush(&c->out);
	if (!rc && l->zpack)
		rc = conv_zpack_finish(l->zpack);
	if (rc)
		return rc == PROFEV_E_NOMEM ? rc : PROFEV_E_IO;
	if (s->close && s->close(s->ctx, c->st.parts - 1) < 0)
		return PROFEV_E_IO;
	return 0;
}

int conv_maybe_split(struct conv_loop *l)
{
	struct conv *c = &l->c;
	uint64_t size = outbuf_size(&c->out) - c->part_start;
	uint64_t need = size + l->open_zones * CLOSE_COST + PART_TRAILER;
	if (need < c->opts->split_size || !l->part_events)
		return 0;
	int rc = conv_waits_flush(l);
	for (unsigned i = 0; i < l->nthreads && !rc; i++) {
		struct conv_thread *t = l->threads[i];
		if (conv_emitting(t))
			rc = conv_close_all(l, t, t->last_ts, CONV_EDGE_CUT);
	}
	if (rc || (rc = conv_part_close(l)) || (rc = conv_part_open(l)))
		return rc;
	for (unsigned i = 0; i < l->nthreads && !rc; i++) {
		struct conv_thread *t = l->threads[i];
		if (conv_emitting(t))
			rc = conv_open_all(l, t, t->last_ts);
	}
	l->part_events = 0;
	return rc;
}
