/* JSON text writer (json_write.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* Decimal digits of v: log10 from the bit length (1233 / 4096 ~ log10 2),
 * corrected by one comparison. */
static inline unsigned ndigits(uint64_t v)
{
	unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);
	unsigned d = (bits * 1233u) >> 12;
	d += v >= pow10_u64[d];
	return d ? d : 1;
}

/* Digits are written straight into the output, right to left, two at a
 * time: no staging buffer, whose bytes, stored one by one and then read
 * back as a block, would stall on store forwarding. */
static inline void put_u64(uint8_t *end, uint64_t v)
{
	uint8_t *p = end;
	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	/* most numbers fit 32 bits, where division by a constant is cheaper */
	uint32_t w = (uint32_t)v;
	while (w >= 100) {
		unsigned r = w % 100;
		w /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (w >= 10)
		memcpy(p - 2, digits2 + 2 * w, 2);
	else
		p[-1] = (uint8_t)('0' + w);
}

void json_u64(struct outbuf *o, uint64_t v)
{
	unsigned n = ndigits(v);
	put_u64(o->p + n, v);
	o->p += n;
}

void json_us(struct outbuf *o, uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned frac = (unsigned)(ns - us * 1000);
	unsigned n = ndigits(us);
	uint8_t *p = o->p + n;
	put_u64(p, us);
	if (!frac) {
		o->p = p;
		return;
	}
	/* trailing zeros go: 1234.5, not 1234.500 (all four bytes are written
	 * and the end moves back) */
	p[0] = '.';
	p[1] = (uint8_t)('0' + frac / 100);
	memcpy(p + 2, digits2 + 2 * (frac % 100), 2);
	o->p = p + (frac % 10 ? 4 : frac % 100 ? 3 : 2);
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
	/* Counters are mostly short decimals: when d is k / 10^n exactly as
	 * the division rounds it, the decimal k / 10^n reads back as d, so it
	 * can be written without printf. */
	static const double scale[] = { 10, 100, 1000, 10000, 100000, 1000000 };
	double a = fabs(d);
	if (a < 1e9) {
		for (int n = 0; n < 6; n++) {
			double k = nearbyint(a * scale[n]);
			if (k / scale[n] != a)
				continue;
			uint64_t ik = (uint64_t)k, div = (uint64_t)scale[n];
			if (d < 0)
				outbuf_byte(o, '-');
			json_u64(o, ik / div);
			char frac[8];
			uint64_t f = ik % div;
			int len = n + 1;
			for (int i = len - 1; i >= 0; i--, f /= 10)
				frac[i] = (char)('0' + f % 10);
			while (len > 0 && frac[len - 1] == '0')
				len--;
			if (len) {
				outbuf_byte(o, '.');
				outbuf_put(o, frac, (size_t)len);
			}
			return;
		}
	}
	/* The shortest of %.15g..%.17g that reads back the same (17 digits
	 * always do): 59.94, not 59.939999999999998. The exponent form is
	 * valid JSON. */
	char tmp[JSON_NUMBER_MAX];
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	outbuf_put(o, tmp, (size_t)n);
}
