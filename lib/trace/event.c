/* What the API says of one event or chunk beside the trace: the names of
 * event types and chunk kinds (pfdump's words, and the reader's messages),
 * and the double an event's payload carries under PROFEV_EVF_DOUBLE. */
#include "trace/trace_internal.h"

void profev_event_set_double(struct profev_event *ev, double value)
{
	memcpy(&ev->payload, &value, sizeof(value));
	ev->flags |= PROFEV_EVF_DOUBLE;
}

double profev_event_double(const struct profev_event *ev)
{
	double v;
	memcpy(&v, &ev->payload, sizeof(v));
	return v;
}

const char *profev_event_type_name(unsigned type)
{
	static const char *const names[] = {
		[PROFEV_EV_FRAME_MARK] = "frame",
		[PROFEV_EV_ZONE_BEGIN] = "zone_begin",
		[PROFEV_EV_ZONE_END] = "zone_end",
		[PROFEV_EV_COUNTER] = "counter",
		[PROFEV_EV_INSTANT] = "instant",
		[PROFEV_EV_MESSAGE] = "message",
		[PROFEV_EV_THREAD_NAME] = "thread_name",
		[PROFEV_EV_MEM_ALLOC] = "alloc",
		[PROFEV_EV_MEM_FREE] = "free",
		[PROFEV_EV_FRAME_IMAGE] = "frame_image",
		[PROFEV_EV_LOST] = "lost",
		[PROFEV_EV_ARG] = "arg",
		[PROFEV_EV_FLOW_OUT] = "flow_out",
		[PROFEV_EV_FLOW_IN] = "flow_in",
		[PROFEV_EV_ASYNC_BEGIN] = "async_begin",
		[PROFEV_EV_ASYNC_END] = "async_end",
		[PROFEV_EV_LOCK_WAIT] = "lock_wait",
		[PROFEV_EV_LOCK_ACQUIRED] = "lock_acquired",
		[PROFEV_EV_LOCK_RELEASED] = "lock_released",
		[PROFEV_EV_FRAME_START] = "frame_start",
		[PROFEV_EV_FRAME_END] = "frame_end",
		[PROFEV_EV_POINT_ARG] = "point_arg",
		[PROFEV_EV_SAMPLE] = "sample",
		[PROFEV_EV_SWITCH_OUT] = "switch_out",
		[PROFEV_EV_SWITCH_IN] = "switch_in",
		[PROFEV_EV_SAMPLE_LOST] = "sample_lost",
		[PROFEV_EV_CRASH] = "crash",
		[PROFEV_EV_TRIGGER] = "trigger",
		[PROFEV_EV_ZONE_BEFORE] = "zone_before",
		[PROFEV_EV_ZONE_AFTER] = "zone_after",
		[PROFEV_EV_GPU_ZONE] = "gpu_zone",
		[PROFEV_EV_ATTACH] = "attach",
		[PROFEV_EV_DETACH] = "detach",
	};
	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

int profev_event_window_view(struct profev_event *ev)
{
	if (ev->type == PROFEV_EV_ZONE_BEFORE)
		ev->type = PROFEV_EV_ZONE_BEGIN;
	else if (ev->type == PROFEV_EV_ZONE_AFTER)
		ev->type = PROFEV_EV_ZONE_END;
	else
		return 0;
	ev->flags |= PROFEV_EVF_WINDOW_EDGE;
	return 1;
}

const char *profev_chunk_kind_name(unsigned kind)
{
	switch (kind) {
	case PROFEV_CHUNK_META: return "metadata";
	case PROFEV_CHUNK_STRINGS: return "strings";
	case PROFEV_CHUNK_THREADS: return "threads";
	case PROFEV_CHUNK_EVENTS: return "events";
	case PROFEV_CHUNK_MODULES: return "modules";
	case PROFEV_CHUNK_STACKS: return "stacks";
	case PROFEV_CHUNK_SYMBOLS: return "symbols";
	case PROFEV_CHUNK_IMAGE: return "image";
	case PROFEV_CHUNK_SRCLOCS: return "source locations";
	case PROFEV_CHUNK_SEGMENTS: return "segments";
	case PROFEV_CHUNK_GPU: return "gpu";
	case PROFEV_CHUNK_GPU_ZONES: return "gpu zones";
	case PROFEV_CHUNK_END: return "end";
	}
	return "unknown";
}
