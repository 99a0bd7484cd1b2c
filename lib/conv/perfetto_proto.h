/*
 * conv/perfetto_proto.h - Perfetto's field numbers as the Perfetto target
 * writes them (formats/perfetto holds the .proto subset), and the layout
 * of its output: sequences, track uuids, room for a packet (not installed).
 */
#ifndef PROFEV_CONV_PERFETTO_PROTO_H
#define PROFEV_CONV_PERFETTO_PROTO_H

/* Field numbers, as in Perfetto's protos/perfetto/trace/. */
/* Field numbers, as in Perfetto's protos/perfetto/trace/. */
enum {
	TRACE_PACKET = 1,

	TP_TIMESTAMP = 8,
	TP_SEQUENCE_ID = 10,         /* trusted_packet_sequence_id */
	TP_TRACK_EVENT = 11,
	TP_INTERNED_DATA = 12,
	TP_SEQUENCE_FLAGS = 13,
	TP_CLOCK_SNAPSHOT = 6,
	TP_TRACK_DESCRIPTOR = 60,
	TP_TIMESTAMP_CLOCK_ID = 58,
	TP_TRACE_PACKET_DEFAULTS = 59,
	TP_FIRST_PACKET_ON_SEQUENCE = 87,
	/* TracePacketDefaults, and its TrackEventDefaults */
	TPD_TIMESTAMP_CLOCK_ID = 58,
	TPD_TRACK_EVENT_DEFAULTS = 11,
	TED_TRACK_UUID = 11,

	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,

	CS_CLOCKS = 1,
	CLOCK_ID = 1,
	CLOCK_TIMESTAMP = 2,
	CLOCK_IS_INCREMENTAL = 3,
	BUILTIN_CLOCK_REALTIME = 1,
	BUILTIN_CLOCK_BOOTTIME = 6,

	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT_UUID = 5,
	TD_COUNTER = 8,

	PD_PID = 1,
	PD_CMDLINE = 2,
	PD_PROCESS_NAME = 6,

	THD_PID = 1,
	THD_TID = 2,
	THD_THREAD_NAME = 5,

	TE_CATEGORY_IIDS = 3,
	TE_DEBUG_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_CATEGORIES = 22,
	TE_NAME = 23,
	TE_SCREENSHOT = 50,
	SCREENSHOT_JPG_IMAGE = 1,
	TE_COUNTER_VALUE = 30,
	TE_DOUBLE_COUNTER_VALUE = 44,
	TE_CALLSTACK_IID = 56,
	TE_CALLSTACK_WEIGHT = 57,     /* double: what the UI's flame graph sums */

	CD_UNIT = 3,
	UNIT_SIZE_BYTES = 3,

	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	TYPE_COUNTER = 4,

	DA_BOOL_VALUE = 2,
	DA_UINT_VALUE = 3,
	DA_STRING_VALUE = 6,
	DA_NAME = 10,

	ID_EVENT_CATEGORIES = 1,
	ID_EVENT_NAMES = 2,
	ID_FUNCTION_NAMES = 5,
	ID_FRAMES = 6,
	ID_CALLSTACKS = 7,
	ID_BUILD_IDS = 16,
	ID_MAPPING_PATHS = 17,
	ID_SOURCE_PATHS = 18,
	ID_MAPPINGS = 19,
	IE_IID = 1,
	IE_NAME = 2,

	/* profiling/profile_common.proto */
	IS_IID = 1,
	IS_STR = 2,
	MAP_IID = 1,
	MAP_BUILD_ID = 2,
	MAP_START_OFFSET = 3,
	MAP_START = 4,
	MAP_END = 5,
	MAP_LOAD_BIAS = 6,
	MAP_PATH_STRING_IDS = 7,
	MAP_EXACT_OFFSET = 8,
	FR_IID = 1,
	FR_FUNCTION_NAME_ID = 2,
	FR_MAPPING_ID = 3,
	FR_REL_PC = 4,
	FR_SOURCE_PATH_IID = 5,
	FR_LINE_NUMBER = 6,
	CST_IID = 1,
	CST_FRAME_IDS = 2,
};

/* Fields of the rich events (arguments, flows, source locations, async
 * spans, lock waits), as in Perfetto's protos. */
enum {
	TE_SOURCE_LOCATION_IID = 34,
	TE_FLOW_IDS = 47,             /* repeated fixed64 */
	TE_TERMINATING_FLOW_IDS = 48, /* repeated fixed64 */
	DA_NAME_IID = 1,
	DA_INT_VALUE = 4,
	DA_DOUBLE_VALUE = 5,
	DA_POINTER_VALUE = 7,
	ID_DEBUG_ANNOTATION_NAMES = 3,
	ID_SOURCE_LOCATIONS = 4,
	SL_IID = 1,
	SL_FILE_NAME = 2,
	SL_FUNCTION_NAME = 3,
	SL_LINE_NUMBER = 4,
};


/* Track uuids: one process track, counters by string id (small, as
 * counter events name their track), then threads by TID, frame sets by
 * string id and the rest in ranges neither reaches. Thread and frame-set
 * tracks are their sequence's default track, so their uuids are rarely
 * written. */
#define SEQ_SHARED 1
#define SEQ_FIRST 2
#define CLOCK_SEQ 64 /* each track sequence's incremental clock (64-127: sequence-scoped) */
#define UUID_PROCESS 1ull
#define UUID_COUNTER(id) (16ull + (id))
#define UUID_THREAD(tid) (2ull << 32 | (tid))
#define UUID_FRAMES(id) (3ull << 32 | (id))
#define UUID_MEMORY(pool) (4ull << 32 | (pool))
#define UUID_ALLOCS (5ull << 32)
#define UUID_SCREENSHOTS (6ull << 32)
#define UUID_GPU(ctx) (7ull << 32 | (ctx))
/* An async span's track: one per (name, id), so that spans that overlap
 * never share one (the UI shows tracks of one name together). */
#define UUID_ASYNC(h) (0xa000000000000000ull | ((h) & 0x0fffffffffffffffull))


/* Room for a packet's fixed fields and nesting, strings apart. */
#define PACKET_MAX 192
#define TITLE_MAX 96


#endif
