/* Handing out the events of the reader's current chunk, one at a time or
 * in runs, with their names and message texts; reads the next chunk when
 * one is done. */
#include "trace/trace_internal.h"

/* The k-th MESSAGE event of a chunk carries its k-th text: find the MESSAGE
 * events once per chunk, when a text is first asked for. */
static int index_texts(struct profev_reader *r)
{
	if (array_grow((void **)&r->text_events, &r->text_events_cap, sizeof(*r->text_events), r->ntexts))
		return -1;
	uint32_t k = 0;
	for (uint32_t i = 0; i < r->nevents && k < r->ntexts; i++)
		if (r->events[i].type == PROFEV_EV_MESSAGE)
			r->text_events[k++] = i;
	for (; k < r->ntexts; k++)
		r->text_events[k] = UINT32_MAX; /* never matches an event */
	r->texts_indexed = 1;
	return 0;
}

const char *profev_reader_event_text(const struct profev_reader *r, const struct profev_event *ev,
				     size_t *len)
{
	*len = 0;
	if (!r->ntexts || ev < r->events || ev >= r->events + r->nevents || ev->type != PROFEV_EV_MESSAGE)
		return "";
	struct profev_reader *rw = (struct profev_reader *)r;
	if (!r->texts_indexed && index_texts(rw))
		return "";
	uint32_t i = (uint32_t)(ev - r->events), lo = 0, hi = r->ntexts;
	while (lo < hi) { /* text_events is increasing */
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->text_events[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->ntexts || r->text_events[lo] != i)
		return "";
	*len = r->texts[lo].len;
	return (const char *)r->body + r->texts[lo].offset;
}

/* Make the event at ev_pos the next one to hand out, reading chunks as
 * needed. @return 1, 0 at the end, <0 on errors. */
static int ensure_event(struct profev_reader *r)
{
	while (r->ev_pos >= r->nevents) {
		struct profev_chunk c;
		int rc = profev_reader_next_chunk(r, &c);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* A THREAD_NAME event renames its thread as it is handed out. */
static void apply_thread_name(struct profev_reader *r, const struct profev_event *ev)
{
	if (ev->name <= r->nstrs)
		reader_set_thread(r, ev->tid, 0, ev->name, 1);
}

int profev_reader_next_event(struct profev_reader *r, struct profev_event *ev,
			     struct profev_event_info *info)
{
	int rc = ensure_event(r);
	if (rc <= 0)
		return rc;
	const struct profev_event *src = &r->events[r->ev_pos++];
	*ev = *src;
	if (ev->type == PROFEV_EV_THREAD_NAME)
		apply_thread_name(r, ev);
	if (info) {
		int has_category = ev->type == PROFEV_EV_ZONE_BEGIN || ev->type == PROFEV_EV_ZONE_END ||
				   ev->type == PROFEV_EV_INSTANT || ev->type == PROFEV_EV_MESSAGE ||
				   ev->type == PROFEV_EV_ZONE_BEFORE || ev->type == PROFEV_EV_ZONE_AFTER;
		info->name = profev_reader_string(r, ev->name);
		info->category = has_category && ev->payload <= UINT32_MAX
					 ? profev_reader_string(r, (uint32_t)ev->payload) : "";
		if (!r->last_thread || r->last_tid != ev->tid) {
			r->last_thread = reader_thread(r, ev->tid);
			r->last_tid = ev->tid;
		}
		info->thread = r->last_thread ? profev_reader_string(r, r->last_thread->name) : "";
		info->text = profev_reader_event_text(r, src, &info->text_len);
	}
	return 1;
}

int profev_reader_next_events(struct profev_reader *r, const struct profev_event **events,
			      size_t *count)
{
	int rc = ensure_event(r);
	if (rc <= 0) {
		*events = NULL;
		*count = 0;
		return rc;
	}
	const struct profev_event *ev = r->events;
	uint32_t start = r->ev_pos, end = start + 1, n = r->nevents;
	/* A run ends before the next THREAD_NAME event, so that every event of
	 * it sees the thread names as they were when it happened. */
	if (ev[start].type == PROFEV_EV_THREAD_NAME) {
		apply_thread_name(r, &ev[start]);
		if (r->thread_names_left)
			r->thread_names_left--;
	}
	if (!r->thread_names_left)
		end = n; /* the decoder counted them: none is left to look for */
	while (end < n && ev[end].type != PROFEV_EV_THREAD_NAME)
		end++;
	r->ev_pos = end;
	*events = ev + start;
	*count = end - start;
	return 1;
}
