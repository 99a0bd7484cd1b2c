/* Protobuf wire encoder: the rare paths kept out of line (pb.h). */
#include "pb.h"
#include "utf8.h"

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

size_t pb_string_utf8(struct outbuf *o, uint32_t field, const char *s, size_t n)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t i = 0;
	while (i < n && u[i] < 0x80)
		i++;
	if (i == n) {
		pb_bytes(o, field, s, n);
		return 0;
	}
	size_t mark = pb_begin(o, field);
	size_t bad = 0;
	outbuf_put(o, s, i);
	while (i < n) {
		unsigned k = utf8_seq_len(u + i, n - i);
		if (k) {
			outbuf_put(o, u + i, k);
			i += k;
		} else {
			outbuf_lit(o, UTF8_REPLACEMENT);
			bad++;
			i++;
		}
	}
	pb_end(o, mark);
	return bad;
}
