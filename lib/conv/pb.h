/*
 * pb.h - a streaming protobuf wire-format encoder over struct outbuf.
 *
 * Fields are appended straight into the output buffer; nothing is built in
 * memory first and nothing is allocated per message. The caller reserves an
 * upper bound for a whole top-level message with outbuf_reserve() and then
 * writes without checks. Worst cases per field: PB_TAG_MAX + PB_VARINT_MAX
 * for a varint field, PB_TAG_MAX + PB_VARINT_MAX + n for n bytes, and
 * pb_string_utf8() may triple n. Nested messages: pb_begin() keeps one byte
 * for the length; pb_end() widens it when the body reached 128 bytes or
 * more, which needs up to PB_VARINT_MAX - 1 more bytes of room per level.
 * Not installed.
 */
#ifndef PROFEV_PB_H
#define PROFEV_PB_H
#include "common/outbuf.h"

enum pb_wire { PB_WT_VARINT = 0, PB_WT_I64 = 1, PB_WT_LEN = 2, PB_WT_I32 = 5 };

#define PB_VARINT_MAX 10
#define PB_TAG_MAX 5
/* Room for one varint field (tag and value). */
#define PB_FIELD_MAX (PB_TAG_MAX + PB_VARINT_MAX)

static inline uint8_t *pb_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline void pb_varint(struct outbuf *o, uint64_t v) { o->p = pb_put_varint(o->p, v); }

static inline void pb_tag(struct outbuf *o, uint32_t field, enum pb_wire wt)
{
	pb_varint(o, (uint64_t)field << 3 | wt);
}

/* uint32, uint64, bool, enum and non-negative int32/int64 fields. */
static inline void pb_uint(struct outbuf *o, uint32_t field, uint64_t v)
{
	pb_tag(o, field, PB_WT_VARINT);
	pb_varint(o, v);
}

/* int32 and int64 fields: negative values take ten bytes, as protobuf
 * sign-extends int32 to 64 bits on the wire. */
static inline void pb_int(struct outbuf *o, uint32_t field, int64_t v)
{
	pb_uint(o, field, (uint64_t)v);
}

/* sint32 and sint64 fields (ZigZag). */
static inline void pb_sint(struct outbuf *o, uint32_t field, int64_t v)
{
	pb_uint(o, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void pb_fixed64(struct outbuf *o, uint32_t field, uint64_t v)
{
	pb_tag(o, field, PB_WT_I64);
	for (int i = 0; i < 8; i++)
		*o->p++ = (uint8_t)(v >> (8 * i));
}

static inline void pb_double(struct outbuf *o, uint32_t field, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof(v));
	pb_fixed64(o, field, v);
}

/* bytes fields, and string fields whose text is known to be valid UTF-8. */
static inline void pb_bytes(struct outbuf *o, uint32_t field, const void *data, size_t n)
{
	pb_tag(o, field, PB_WT_LEN);
	pb_varint(o, n);
	outbuf_put(o, data, n);
}

/**
 * A string field from arbitrary bytes: each byte that starts no valid UTF-8
 * sequence is written as U+FFFD. Needs room for PB_FIELD_MAX + 3 * n.
 * @return the number of bytes replaced.
 */
OUTBUF_HIDDEN size_t pb_string_utf8(struct outbuf *o, uint32_t field, const char *s, size_t n);

/* The cleaned bytes alone, to build a string field in parts between
 * pb_begin() and pb_end(). Needs room for 3 * n. @return bytes replaced. */
OUTBUF_HIDDEN size_t pb_utf8(struct outbuf *o, const char *s, size_t n);

/**
 * Open a nested message (or packed field) on field.
 * @return its mark, to pass to pb_end() before the enclosing one ends.
 */
static inline size_t pb_begin(struct outbuf *o, uint32_t field)
{
	pb_tag(o, field, PB_WT_LEN);
	*o->p++ = 0;
	return (size_t)(o->p - o->base);
}

OUTBUF_HIDDEN void pb_end_long(struct outbuf *o, size_t mark, size_t len);

/* Close the message opened at mark, writing its length. */
static inline void pb_end(struct outbuf *o, size_t mark)
{
	size_t len = (size_t)(o->p - o->base) - mark;
	if (__builtin_expect(len < 0x80, 1))
		o->base[mark - 1] = (uint8_t)len;
	else
		pb_end_long(o, mark, len);
}
#endif
