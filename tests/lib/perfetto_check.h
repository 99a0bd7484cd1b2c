/* A checker of Perfetto protobuf outputs for the unit tests of lib/conv:
 * a small protobuf reader that enforces the sequence rules trace_processor
 * relies on (descriptors before events, interned ids defined before use on
 * their sequence, SEQ_INCREMENTAL_STATE_CLEARED and defaults only on a
 * sequence's first packet, SEQ_NEEDS_INCREMENTAL_STATE on every packet
 * after defaults and on every packet that refers to interned data, as
 * Perfetto's trace_packet.proto asks, balanced slices per track) and counts what it met, so that a test can
 * check the output's meaning as well as its form. */
#ifndef PROFEV_PERFETTO_CHECK_H
#define PROFEV_PERFETTO_CHECK_H
#include <stddef.h>
#include <stdint.h>

#define MAXIDS 4096
#define MAXTRACKS 64
#define MAXSEQS 16

struct perfetto_seen {
	unsigned packets, begins, ends, instants, counters, descriptors, unclosed, cut;
	unsigned errors;
	uint64_t tracks[MAXTRACKS];
	int depth[MAXTRACKS];
	unsigned ntracks;
	/* Packet sequences by id: begun, default track; names and categories
	 * are interned per sequence, the packet's is cur. */
	unsigned char seq_begun[MAXSEQS], seq_defaults[MAXSEQS];
	uint64_t flags; /* the packet's sequence_flags */
	unsigned nseqs, clock_back; /* sequences begun; packets on the trace clock */
	uint64_t seq_track[MAXSEQS];
	unsigned cur;
	unsigned char name_def[MAXSEQS][MAXIDS], cat_def[MAXSEQS][MAXIDS];
	char thread_names[256];
	/* Callstack interning: InternedData fields 5, 6, 7, 16..19 by iid. */
	unsigned char prof_def[20][MAXIDS];
	uint64_t frame_pc[MAXIDS], frame_map[MAXIDS], frame_fn[MAXIDS];
	uint64_t stack_frames[64][16]; /* callstack iid -> frame iids, outermost first */
	unsigned stack_n[64];
	unsigned allocs, memory, stack_refs;
	uint64_t alloc_bytes;
	char memlog[512];  /* "default=N," or "pool=N," (named pools) per memory counter */
};

/* Reads the Perfetto trace buf[0..len) into *s (zeroed first). Each rule
 * broken is printed on stderr as "perfetto: ..." and counted in
 * s->errors. */
void perfetto_check(const char *buf, size_t len, struct perfetto_seen *s);
#endif
