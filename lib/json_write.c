/* JSON text writer (json_write.h). */
#include <math.h>
#include <stdio.h>
#include "json_write.h"
#include "utf8.h"

/* Bytes that need escaping: controls, '"' and '\\'. */
static const uint8_t plain[256] = {
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
	R16(0), R16(0),
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x22 is '"' */
	R16(1), R16(1),
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x5c is '\\' */
	R16(1), R16(1),
	/* 0x80..0xff: UTF-8 lead or continuation bytes, checked apart */
	R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0),
#undef R16
};

size_t json_string(struct outbuf *o, const char *s, size_t n)
{
	outbuf_byte(o, '"');
	size_t bad = json_chars(o, s, n);
	outbuf_byte(o, '"');
	return bad;
}

size_t json_chars(struct outbuf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *u = (const uint8_t *)s;
	size_t bad = 0, i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && plain[u[run]])
			run++;
		outbuf_put(o, u + i, run - i);
		i = run;
		if (i == n)
			break;
		uint8_t c = u[i];
		if (c >= 0x80) {
			unsigned k = utf8_seq_len(u + i, n - i);
			if (k) {
				outbuf_put(o, u + i, k);
				i += k;
			} else {
				outbuf_lit(o, UTF8_REPLACEMENT);
				bad++;
				i++;
			}
			continue;
		}
		outbuf_byte(o, '\\');
		switch (c) {
		case '"': outbuf_byte(o, '"'); break;
		case '\\': outbuf_byte(o, '\\'); break;
		case '\n': outbuf_byte(o, 'n'); break;
		case '\t': outbuf_byte(o, 't'); break;
		case '\r': outbuf_byte(o, 'r'); break;
		default:
			outbuf_lit(o, "u00");
			outbuf_byte(o, (uint8_t)hex[c >> 4]);
			outbuf_byte(o, (uint8_t)hex[c & 15]);
		}
		i++;
	}
	return bad;
}

void json_u64(struct outbuf *o, uint64_t v)
{
	char tmp[20];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*o->p++ = (uint8_t)tmp[--n];
}

void json_us(struct outbuf *o, uint64_t ns)
{
	json_u64(o, ns / 1000);
	unsigned frac = (unsigned)(ns % 1000);
	if (!frac)
		return;
	outbuf_byte(o, '.');
	outbuf_byte(o, (uint8_t)('0' + frac / 100));
	frac %= 100;
	if (!frac)
		return;
	outbuf_byte(o, (uint8_t)('0' + frac / 10));
	frac %= 10;
	if (frac)
		outbuf_byte(o, (uint8_t)('0' + frac));
}

void json_double(struct outbuf *o, double d)
{
	if (!isfinite(d)) {
		outbuf_lit(o, "null");
		return;
	}
	if (d == (double)(int64_t)d && fabs(d) < 1e15) {
		int64_t v = (int64_t)d;
		if (v < 0 || (v == 0 && signbit(d))) {
			outbuf_byte(o, '-');
			v = -v;
		}
		json_u64(o, (uint64_t)v);
		return;
	}
	/* %.17g round-trips every double; its exponent form is valid JSON. */
	int n = snprintf((char *)o->p, JSON_NUMBER_MAX, "%.17g", d);
	o->p += n;
}
