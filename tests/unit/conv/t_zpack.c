/* Perfetto's compressed_packets (lib/conv/zpack.c): a stream of packets
 * written in pieces cut anywhere, inside a packet's head or body too, comes
 * out as TracePackets whose field 50 inflates (zlib) to whole packets only,
 * together the stream as it went in; a sink's error is passed on. */
#include <stdlib.h>
#include <zlib.h>
#include "check.h"
#include "conv/zpack.h"
#include "profev_trace.h"

static unsigned char sunk[1 << 20];
static size_t nsunk;
static int fail_sink;

static int sink(void *ctx, const void *data, size_t len)
{
	(void)ctx;
	if (fail_sink)
		return PROFEV_E_IO;
	if (nsunk + len <= sizeof(sunk))
		memcpy(sunk + nsunk, data, len);
	nsunk += len;
	return 0;
}

static uint64_t get_varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	for (int s = 0; *p < end && s < 64; s += 7) {
		unsigned char b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	return UINT64_MAX;
}

/* A packet of len body bytes (len >= 3: a timestamp field and padding). */
static size_t put_packet(unsigned char *p, size_t len, unsigned seed)
{
	unsigned char *q = p;
	*q++ = 0x0a;
	size_t n = len;
	while (n >= 0x80)
		*q++ = (unsigned char)(n | 0x80), n >>= 7;
	*q++ = (unsigned char)n;
	for (size_t i = 0; i < len; i++)
		q[i] = (unsigned char)(seed * 31 + i / 7);
	return (size_t)(q - p) + len;
}

/* Inflate every compressed packet of sunk[0..nsunk) into out; each must
 * hold whole packets. @return the inflated length, or SIZE_MAX. */
static size_t unpack(unsigned char *out, size_t cap, unsigned *npk)
{
	const unsigned char *p = sunk, *end = sunk + nsunk;
	size_t n = 0;
	*npk = 0;
	while (p < end) {
		if (*p++ != 0x0a)
			return SIZE_MAX;
		uint64_t len = get_varint(&p, end);
		if (len > (uint64_t)(end - p))
			return SIZE_MAX;
		const unsigned char *pe = p + len;
		if (*p++ != 0x92 || *p++ != 0x03) /* field 50, bytes: tag 402 as a varint */
			return SIZE_MAX;
		uint64_t clen = get_varint(&p, pe);
		if (clen != (uint64_t)(pe - p))
			return SIZE_MAX;
		uLongf got = (uLongf)(cap - n);
		if (uncompress(out + n, &got, p, (uLong)clen) != Z_OK)
			return SIZE_MAX;
		/* whole packets inside */
		const unsigned char *q = out + n, *qe = out + n + got;
		while (q < qe) {
			if (*q++ != 0x0a)
				return SIZE_MAX;
			uint64_t l = get_varint(&q, qe);
			if (l > (uint64_t)(qe - q))
				return SIZE_MAX;
			q += l;
		}
		n += got;
		p = pe;
		(*npk)++;
	}
	return n;
}

int main(void)
{
	static unsigned char in[300000], back[400000];
	size_t n = 0;
	for (unsigned i = 0; n + 2000 < sizeof(in); i++)
		n += put_packet(in + n, 3 + (i * 37) % (i % 50 == 0 ? 1500 : 20), i);

	/* pieces of every size from 1 to 97 bytes, then one large piece */
	struct conv_zpack *zk;
	CHECK_EQ(conv_zpack_new(&zk, sink, NULL), 0);
	size_t off = 0;
	for (size_t k = 1; off < n / 2; k = k % 97 + 1) {
		size_t m = off + k > n / 2 ? n / 2 - off : k;
		CHECK_EQ(conv_zpack_write(zk, in + off, m), 0);
		off += m;
	}
	CHECK_EQ(conv_zpack_write(zk, in + off, n - off), 0);
	CHECK_EQ(conv_zpack_finish(zk), 0);
	CHECK_EQ_U64(conv_zpack_bytes(zk), nsunk);
	CHECK(nsunk < n / 2);
	unsigned npk;
	size_t got = unpack(back, sizeof(back), &npk);
	CHECK_EQ_U64(got, n);
	CHECK(got == n && memcmp(back, in, n) == 0);
	CHECK(npk > 1000); /* a piece per write that ended a packet */

	/* a stream cut inside its second packet (of 5 and 22 bytes): the first
	 * goes out whole, the cut one at the finish, as it is */
	nsunk = 0;
	CHECK_EQ(conv_zpack_write(zk, in, 10), 0);
	size_t one = nsunk;
	CHECK(one > 0);
	CHECK_EQ(conv_zpack_finish(zk), 0);
	CHECK(nsunk > one);
	size_t two = nsunk;
	CHECK_EQ(conv_zpack_finish(zk), 0); /* nothing left: nothing written */
	CHECK_EQ_U64(nsunk, two);

	/* the sink's error */
	nsunk = 0;
	fail_sink = 1;
	CHECK_EQ(conv_zpack_write(zk, in, n), PROFEV_E_IO);
	fail_sink = 0;
	conv_zpack_free(zk);
	conv_zpack_free(NULL);
	return CHECK_DONE();
}
