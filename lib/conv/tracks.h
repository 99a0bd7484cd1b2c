/*
 * conv/tracks.h - the read loop's track lookup for each event (not
 * installed), inlined: the rest is tracks.c.
 */
#ifndef PROFEV_CONV_TRACKS_H
#define PROFEV_CONV_TRACKS_H
#include "conv/conv_internal.h"

/* The thread of an event: events come in runs per thread, so the last one
 * is checked inline first; its name was checked in this run of events. */
static inline struct conv_thread *conv_thread_of(struct conv_loop *l, const struct profev_event *ev)
{
	struct conv_thread *t = l->last;
	if (__builtin_expect(t && t->key == ev->tid && t->name_gen == l->gen, 1))
		return t;
	return conv_thread_lookup(l, ev);
}
#endif
