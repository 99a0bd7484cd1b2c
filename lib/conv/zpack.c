/*
 * Perfetto's compressed_packets (conv/zpack.h): the Trace stream the
 * converter writes, cut after whole packets and deflated, each piece one
 * TracePacket whose field 50 holds a zlib stream of those packets. This is
 * what Perfetto's tracing service writes with compression_type DEFLATE, and
 * trace_processor reads each inner packet in its place.
 *
 * The pieces are whole buffers (the outbuf's drains), so libdeflate
 * compresses them: it keeps no stream state, and at CONV_ZPACK_LEVEL it
 * writes fewer bytes than zlib's fastest level, in less time
 * (tests/bench/bench_conv.c compares the two in one run).
 */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "conv/zpack.h"
#include "profev_trace.h"

/* TracePacket.compressed_packets; the outer packet is Trace.packet (1). */
#define TP_COMPRESSED_PACKETS 50
#define HEAD_MAX 16 /* two tags and two length varints */

struct conv_zpack {
	struct libdeflate_compressor *z;
	outbuf_sink_fn sink;
	void *ctx;
	uint8_t *carry;       /* the start of a packet not whole yet */
	size_t ncarry, carry_cap;
	uint8_t *out;         /* HEAD_MAX bytes of room, then the deflated bytes */
	size_t out_cap;
	uint64_t bytes;       /* written to the sink */
};

int conv_zpack_new(struct conv_zpack **zp, outbuf_sink_fn sink, void *ctx)
{
	struct conv_zpack *zk = calloc(1, sizeof(*zk));
	*zp = NULL;
	if (!zk)
		return PROFEV_E_NOMEM;
	if (!(zk->z = libdeflate_alloc_compressor(CONV_ZPACK_LEVEL))) {
		free(zk);
		return PROFEV_E_NOMEM;
	}
	zk->sink = sink;
	zk->ctx = ctx;
	*zp = zk;
	return 0;
}

void conv_zpack_free(struct conv_zpack *zk)
{
	if (!zk)
		return;
	libdeflate_free_compressor(zk->z);
	free(zk->carry);
	free(zk->out);
	free(zk);
}

uint64_t conv_zpack_bytes(const struct conv_zpack *zk)
{
	return zk ? zk->bytes : 0;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80)
		v >>= 7, n++;
	return n;
}

/* The length of the whole packets at the start of p[0..n): each is tag 0x0a,
 * a varint length and that many bytes. A stream that is not made of packets
 * counts as whole, so that it is passed on rather than held back for ever. */
static size_t whole(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (p[i] != 0x0a)
			return n;
		uint64_t len = 0;
		size_t j = i + 1;
		for (unsigned s = 0;; s += 7) {
			if (j >= n)
				return i;
			if (s > 63)
				return n;
			uint8_t b = p[j++];
			len |= (uint64_t)(b & 0x7f) << s;
			if (!(b & 0x80))
				break;
		}
		if (len > n - j)
			return i;
		i = j + (size_t)len;
	}
	return i;
}

/* Deflate p[0..n), whole packets, into one packet and hand it to the sink. */
static int pack(struct conv_zpack *zk, const uint8_t *p, size_t n)
{
	if (!n)
		return 0;
	size_t need = HEAD_MAX + libdeflate_zlib_compress_bound(zk->z, n);
	if (need > zk->out_cap) {
		uint8_t *b = realloc(zk->out, need);
		if (!b)
			return PROFEV_E_NOMEM;
		zk->out = b;
		zk->out_cap = need;
	}
	/* The bound holds for any input: 0 (no room) cannot happen. */
	size_t clen = libdeflate_zlib_compress(zk->z, p, n, zk->out + HEAD_MAX, need - HEAD_MAX);
	if (!clen)
		return PROFEV_E_NOMEM;
	/* Trace.packet { compressed_packets: clen bytes }, its head written
	 * just before the deflated bytes so that the sink gets one piece. */
	size_t inner = varint_len(TP_COMPRESSED_PACKETS << 3 | 2) + varint_len(clen) + clen;
	size_t head = 1 + varint_len(inner) + (inner - clen);
	uint8_t *h = zk->out + HEAD_MAX - head, *q = h;
	*q++ = 1 << 3 | 2;
	q = put_varint(q, inner);
	q = put_varint(q, TP_COMPRESSED_PACKETS << 3 | 2);
	put_varint(q, clen);
	int rc = zk->sink(zk->ctx, h, head + clen);
	if (rc < 0)
		return rc;
	zk->bytes += head + clen;
	return 0;
}

int conv_zpack_write(void *ctx, const void *data, size_t len)
{
	struct conv_zpack *zk = ctx;
	const uint8_t *p = data;
	if (zk->ncarry) {
		/* What came before ended inside a packet: join the two. */
		if (zk->ncarry + len > zk->carry_cap) {
			size_t cap = zk->ncarry + len;
			uint8_t *b = realloc(zk->carry, cap);
			if (!b)
				return PROFEV_E_NOMEM;
			zk->carry = b;
			zk->carry_cap = cap;
		}
		memcpy(zk->carry + zk->ncarry, p, len);
		zk->ncarry += len;
		p = zk->carry;
		len = zk->ncarry;
	}
	size_t n = whole(p, len);
	int rc = pack(zk, p, n);
	if (rc)
		return rc;
	size_t rest = len - n;
	if (p == zk->carry) {
		memmove(zk->carry, zk->carry + n, rest);
	} else if (rest) {
		if (rest > zk->carry_cap) {
			uint8_t *b = realloc(zk->carry, rest);
			if (!b)
				return PROFEV_E_NOMEM;
			zk->carry = b;
			zk->carry_cap = rest;
		}
		memcpy(zk->carry, p + n, rest);
	}
	zk->ncarry = rest;
	return 0;
}

int conv_zpack_finish(struct conv_zpack *zk)
{
	/* A cut packet at the very end: passed on as it is, in a piece of its own. */
	size_t n = zk->ncarry;
	zk->ncarry = 0;
	return pack(zk, zk->carry, n);
}
