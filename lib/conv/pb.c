/* Protobuf wire encoder: the rare paths kept out of line (pb.h). */
#include "conv/pb.h"
#include "common/utf8.h"

void pb_end_long(struct outbuf *o, size_t mark, size_t len)
{
	uint8_t tmp[PB_VARINT_MAX];
	size_t n = (size_t)(pb_put_varint(tmp, len) - tmp);
	uint8_t *body = o->base + mark;
	/* The body moves right by the varint's extra bytes; callers reserved
	 * PB_VARINT_MAX - 1 bytes per nesting level for this. */
	memmove(body + n - 1, body, len);
	memcpy(body - 1, tmp, n);
	o->p += n - 1;
}

size_t pb_utf8(struct outbuf *o, const char *s, size_t n)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t bad = 0, i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && u[run] < 0x80)
			run++;
		outbuf_put(o, u + i, run - i);
		if ((i = run) == n)
			break;
		i += utf8_copy_one(o, u + i, n - i, &bad);
	}
	return bad;
}

size_t pb_string_utf8(struct outbuf *o, uint32_t field, const char *s, size_t n)
{
	size_t mark = pb_begin(o, field);
	size_t bad = pb_utf8(o, s, n);
	pb_end(o, mark);
	return bad;
}
