/* Protobuf wire encoder (lib/conv/pb.c): known answers from the protobuf
 * encoding guide, nested lengths across the one-byte boundary, and UTF-8
 * cleaning of string fields. */
#include <stdlib.h>
#include "check.h"
#include "conv/pb.h"

static unsigned char sunk[1 << 16];
static size_t nsunk;

static int sink(void *ctx, const void *data, size_t len)
{
	(void)ctx;
	memcpy(sunk + nsunk, data, len);
	nsunk += len;
	return 0;
}

static void reset(struct outbuf *o)
{
	o->p = o->base;
	nsunk = 0;
}

#define CHECK_BYTES(o, ...) do { static const unsigned char want_[] = { __VA_ARGS__ }; \
	size_t got_ = (size_t)((o)->p - (o)->base); CHECK_EQ(got_, sizeof(want_)); \
	if (got_ == sizeof(want_)) CHECK(memcmp((o)->base, want_, got_) == 0); } while (0)

/* Decode one varint; for checking what the encoder wrote. */
static uint64_t get_varint(const unsigned char **p)
{
	uint64_t v = 0;
	for (int s = 0;; s += 7) {
		unsigned char b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
}

/* The plain loop, as the encoding guide describes it. */
static size_t ref_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* Every length from 1 to 10 bytes, at and around each boundary, and
 * nothing written past the varint. */
static void test_varint_lengths(void)
{
	int bad = 0;
	for (int b = 0; b < 64; b++) {
		uint64_t base = 1ull << b;
		uint64_t vals[] = { base - 1, base, base + 1, base | (base >> 1), base * 2 - 1,
				    base ^ 0x5555555555555555ull };
		for (int i = 0; i < 6; i++) {
			unsigned char want[16], got[24];
			memset(got, 0xee, sizeof(got));
			size_t n = ref_varint(want, vals[i]);
			size_t m = (size_t)(pb_put_varint(got, vals[i]) - got);
			bad += m != n || memcmp(got, want, n) != 0;
			for (size_t k = m; k < sizeof(got); k++)
				bad += got[k] != 0xee;
		}
	}
	CHECK_EQ(bad, 0);
}

int main(void)
{
	test_varint_lengths();
	struct outbuf o;
	CHECK_EQ(outbuf_init(&o, 1024, sink, NULL), 0);

	/* "A simple message": field 1 = 150 */
	pb_uint(&o, 1, 150);
	CHECK_BYTES(&o, 0x08, 0x96, 0x01);

	reset(&o);
	pb_bytes(&o, 2, "testing", 7);
	CHECK_BYTES(&o, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g');

	/* int32 -2 is sign-extended to ten bytes; sint32 -2 is ZigZag 3 */
	reset(&o);
	pb_int(&o, 1, -2);
	CHECK_BYTES(&o, 0x08, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	reset(&o);
	pb_sint(&o, 1, -2);
	CHECK_BYTES(&o, 0x08, 0x03);
	reset(&o);
	pb_sint(&o, 1, INT64_MIN);
	CHECK_BYTES(&o, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);

	/* uint64 max, a large field number (tag of several bytes) */
	reset(&o);
	pb_uint(&o, 87, UINT64_MAX);
	CHECK_BYTES(&o, 0xb8, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);

	/* double 1.0 is fixed64 0x3ff0000000000000, little-endian */
	reset(&o);
	pb_double(&o, 44, 1.0);
	CHECK_BYTES(&o, 0xe1, 0x02, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f);

	/* "Embedded messages": field 3 holding {1: 150} */
	reset(&o);
	size_t m = pb_begin(&o, 3);
	pb_uint(&o, 1, 150);
	pb_end(&o, m);
	CHECK_BYTES(&o, 0x1a, 0x03, 0x08, 0x96, 0x01);

	/* Empty nested message */
	reset(&o);
	m = pb_begin(&o, 8);
	pb_end(&o, m);
	CHECK_BYTES(&o, 0x42, 0x00);

	/* Bodies of 127, 128 and 300 bytes inside two levels: the length
	 * widens and the body moves without damage. */
	static const size_t sizes[] = { 125, 126, 200, 300, 20000 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		char body[20000];
		size_t n = sizes[k];
		for (size_t i = 0; i < n; i++)
			body[i] = (char)('a' + i % 26);
		CHECK_EQ(outbuf_reserve(&o, n + 64), 0);
		reset(&o);
		size_t outer = pb_begin(&o, 1);
		size_t inner = pb_begin(&o, 2);
		pb_bytes(&o, 3, body, n);
		pb_end(&o, inner);
		pb_uint(&o, 4, 7);
		pb_end(&o, outer);
		const unsigned char *p = o.base;
		CHECK_EQ(*p++, 0x0a);
		uint64_t outer_len = get_varint(&p);
		const unsigned char *outer_end = p + outer_len;
		CHECK_EQ(*p++, 0x12);
		uint64_t inner_len = get_varint(&p);
		const unsigned char *inner_end = p + inner_len;
		CHECK_EQ(*p++, 0x1a);
		CHECK_EQ(get_varint(&p), n);
		CHECK(memcmp(p, body, n) == 0);
		p += n;
		CHECK(p == inner_end);
		CHECK_EQ(*p++, 0x20);
		CHECK_EQ(*p++, 7);
		CHECK(p == outer_end);
		CHECK(p == o.p);
	}

	/* Strings: valid UTF-8 passes, each bad byte becomes U+FFFD */
	reset(&o);
	CHECK_EQ(pb_string_utf8(&o, 2, "h\xc3\xa9", 3), 0);
	CHECK_BYTES(&o, 0x12, 0x03, 'h', 0xc3, 0xa9);
	reset(&o);
	CHECK_EQ(pb_string_utf8(&o, 2, "a\xff" "b\xc3", 4), 2);
	CHECK_BYTES(&o, 0x12, 0x08, 'a', 0xef, 0xbf, 0xbd, 'b', 0xef, 0xbf, 0xbd);
	/* overlong '/', a surrogate, beyond U+10FFFF: all rejected */
	reset(&o);
	CHECK_EQ(pb_string_utf8(&o, 1, "\xc0\xaf", 2), 2);
	reset(&o);
	CHECK_EQ(pb_string_utf8(&o, 1, "\xed\xa0\x80", 3), 3);
	reset(&o);
	CHECK_EQ(pb_string_utf8(&o, 1, "\xf4\x90\x80\x80", 4), 4);
	reset(&o);
	CHECK_EQ(pb_string_utf8(&o, 1, "\xf0\x9f\x98\x80", 4), 0); /* U+1F600 */

	/* Draining: reserve past the capacity hands the bytes to the sink in
	 * order, and one record larger than the buffer grows it. */
	reset(&o);
	for (int i = 0; i < 1000; i++) {
		CHECK_EQ(outbuf_reserve(&o, PB_FIELD_MAX), 0);
		pb_uint(&o, 1, (uint64_t)i);
	}
	CHECK_EQ(outbuf_flush(&o), 0);
	const unsigned char *p = sunk;
	int bad = 0;
	for (int i = 0; i < 1000; i++)
		bad += *p++ != 0x08 || get_varint(&p) != (uint64_t)i;
	CHECK_EQ(bad, 0);
	CHECK(p == sunk + nsunk);
	CHECK_EQ(outbuf_reserve(&o, 5000), 0);
	CHECK((size_t)(o.end - o.p) >= 5000);
	outbuf_free(&o);
	return CHECK_DONE();
}
