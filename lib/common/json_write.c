/* JSON text writer (json_write.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/json_write.h"
#include "common/utf8.h"

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
			i += utf8_copy_one(o, u + i, n - i, &bad);
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

/* "000." to "999.": three digits and the decimal point, in one 4-byte copy. */
#define D3(a, b, c) { '0' + (a), '0' + (b), '0' + (c), '.' }
#define D3_10(a, b) D3(a, b, 0), D3(a, b, 1), D3(a, b, 2), D3(a, b, 3), D3(a, b, 4), \
	D3(a, b, 5), D3(a, b, 6), D3(a, b, 7), D3(a, b, 8), D3(a, b, 9)
#define D3_100(a) D3_10(a, 0), D3_10(a, 1), D3_10(a, 2), D3_10(a, 3), D3_10(a, 4), \
	D3_10(a, 5), D3_10(a, 6), D3_10(a, 7), D3_10(a, 8), D3_10(a, 9)
static const char triple[1000][4] = {
	D3_100(0), D3_100(1), D3_100(2), D3_100(3), D3_100(4),
	D3_100(5), D3_100(6), D3_100(7), D3_100(8), D3_100(9),
};
#undef D3
#undef D3_10
#undef D3_100

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

/* ".fff", frac (1 to 999) ns as decimals of a microsecond, at p, the point
 * already there; trailing zeros go: 1234.5, not 1234.500. @return the end. */
static inline uint8_t *put_frac(uint8_t *p, unsigned frac)
{
	const char *t = triple[frac];
	memcpy(p + 1, t, 4);
	return p + 1 + (t[2] != '0' ? 3 : t[1] != '0' ? 2 : 1);
}

void json_us(struct outbuf *o, uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned frac = (unsigned)(ns - us * 1000);
	uint8_t *p;
	if (us < 1000) { /* durations, mostly: "7." is "007." less two digits */
		unsigned skip = (us < 10) + (us < 100);
		memcpy(o->p, triple[us] + skip, 4);
		p = o->p + 3 - skip;
	} else {
		p = o->p + ndigits(us);
		put_u64(p, us);
		*p = '.';
	}
	o->p = frac ? put_frac(p, frac) : p;
}

void json_us_cached(struct outbuf *o, struct json_us_cache *k, uint64_t ns)
{
	uint64_t us = ns / 1000, hi = us / 1000;
	unsigned frac = (unsigned)(ns - us * 1000), lo = (unsigned)(us - hi * 1000);
	if (__builtin_expect(hi != k->hi, 0)) {
		if (!hi) { /* under a millisecond: no digits to keep */
			json_us(o, ns);
			return;
		}
		/* hi < 2^64 / 10^6: at most 14 digits */
		k->hi = hi;
		k->len = ndigits(hi);
		put_u64((uint8_t *)k->digits + k->len, hi);
	}
	uint8_t *p = o->p;
	memcpy(p, k->digits, 16);
	p += k->len;
	memcpy(p, triple[lo], 4); /* the point is in place for the decimals */
	o->p = frac ? put_frac(p + 3, frac) : p + 3;
}

void json_double(struct outbuf *o, double d)
{
	if (!isfinite(d)) {
		outbuf_lit(o, "null");
		return;
	}
	/* The range first: (int64_t)d is undefined for |d| >= 2^63. */
	if (fabs(d) < 1e15 && d == (double)(int64_t)d) {
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
