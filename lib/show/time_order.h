/* Putting a trace's events in time order for the listing. A trace holds
 * each thread's events in order, but threads' batches interleave, so file
 * order goes back in time. The merge window holds the events read and hands
 * out the earliest once it holds max_events events or max_bytes bytes of
 * what the reader's next call would invalidate (a message's text, the
 * thread's name then), so memory stays bounded whatever the trace. An event
 * that comes later than that is handed out when it is the earliest held,
 * after later events: it is counted as late. Ties keep file order. Not
 * installed. */
#ifndef PROFEV_TIME_ORDER_H
#define PROFEV_TIME_ORDER_H
#include <stdint.h>
#include "profev_trace.h"

struct time_order;

/* max_events 0: every event is handed out as it comes (file order).
 * NULL on no memory. */
struct time_order *time_order_new(uint64_t max_events, uint64_t max_bytes);
void time_order_free(struct time_order *t); /* accepts NULL */

/* Holds ev with in->thread and in->text copied (in's other fields are ids'
 * strings, to resolve again when handed out). 0 or -1 on no memory. */
int time_order_add(struct time_order *t, const struct profev_event *ev, const struct profev_event_info *in);

/* 1 when the window is full: the earliest must be handed out. */
int time_order_full(const struct time_order *t);

/* Hands out the earliest event held (by ts, then file order): 1 with *ev,
 * *thread (its thread's name when read, "" for none) and *text, *text_len
 * (a message's text), valid until the next call; 0 when none is held. */
int time_order_next(struct time_order *t, struct profev_event *ev, const char **thread, const char **text,
		    size_t *text_len);

/* Events handed out after an event later than them. */
uint64_t time_order_late(const struct time_order *t);
#endif
