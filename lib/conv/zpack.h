/*
 * conv/zpack.h - Perfetto output in compressed_packets (not installed).
 *
 * An outbuf sink that takes a Trace stream (packets: tag 0x0a, a varint
 * length, the packet) and writes it to another sink deflated: each write's
 * whole packets become one TracePacket holding them as a zlib stream in
 * compressed_packets (field 50), as Perfetto's service writes them and
 * trace_processor reads them. A packet cut at a write's end is kept for the
 * next one; conv_zpack_finish() passes on what is left at a part's end.
 */
#ifndef PROFEV_CONV_ZPACK_H
#define PROFEV_CONV_ZPACK_H
#include <stddef.h>
#include <stdint.h>
#include "common/outbuf.h"

struct conv_zpack;

/* libdeflate's compression level. On the game trace's packets level 2
 * writes 2.7 bytes per event, zlib's fastest level 3.0 in more time;
 * libdeflate's level 1 is faster still but writes 2.9
 * (tests/bench/bench_conv.c, its deflate engines table). */
#define CONV_ZPACK_LEVEL 2

/* *zp writes into sink(ctx). @return 0 or PROFEV_E_NOMEM. */
OUTBUF_HIDDEN int conv_zpack_new(struct conv_zpack **zp, outbuf_sink_fn sink, void *ctx);
/* NULL is fine. */
OUTBUF_HIDDEN void conv_zpack_free(struct conv_zpack *zk);
/* The outbuf sink (ctx: the conv_zpack). @return 0, PROFEV_E_NOMEM or the sink's error. */
OUTBUF_HIDDEN int conv_zpack_write(void *ctx, const void *data, size_t len);
/* Write out a packet still held back. @return as conv_zpack_write(). */
OUTBUF_HIDDEN int conv_zpack_finish(struct conv_zpack *zk);
/* Bytes written to the sink so far. */
OUTBUF_HIDDEN uint64_t conv_zpack_bytes(const struct conv_zpack *zk);
#endif
