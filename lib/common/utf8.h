/* UTF-8 validation for the converters: every name and message reaches the
 * outputs through here, because JSON must be valid UTF-8 and Perfetto's
 * string fields are read as UTF-8. Not installed. */
#ifndef PROFEV_UTF8_H
#define PROFEV_UTF8_H
#include <stddef.h>
#include <stdint.h>
#include "common/outbuf.h"

/* U+FFFD REPLACEMENT CHARACTER, written for each byte that starts no valid
 * sequence (the "maximal subpart" practice would merge some; one per byte is
 * simpler and still valid). */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/**
 * Length of the valid UTF-8 sequence starting at s (n > 0 bytes left).
 * Rejects overlong forms, surrogates and code points above U+10FFFF.
 * @return 1..4, or 0 if s[0] starts no valid sequence.
 */
static inline unsigned utf8_seq_len(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];
	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	if (c < 0xe0)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c < 0xf0) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0; /* surrogate */
		return 3;
	}
	if (c < 0xf5) {
		if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0; /* overlong */
		if (c == 0xf4 && s[1] >= 0x90)
			return 0; /* above U+10FFFF */
		return 4;
	}
	return 0;
}

/**
 * Copy to o the sequence starting at s (n > 0 bytes left), or U+FFFD for
 * its first byte when it starts no valid one, counting that in *bad.
 * @return the bytes of s consumed, at least 1.
 */
static inline size_t utf8_copy_one(struct outbuf *o, const uint8_t *s, size_t n, size_t *bad)
{
	unsigned k = utf8_seq_len(s, n);
	if (k) {
		outbuf_put(o, s, k);
		return k;
	}
	outbuf_lit(o, UTF8_REPLACEMENT);
	(*bad)++;
	return 1;
}

/* Longest prefix of at most max bytes that does not split a sequence. */
static inline size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	size_t n = max;
	while (n > 0 && ((uint8_t)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}
#endif
