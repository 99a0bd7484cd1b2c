/* JSON writer (lib/common/json_write.c): escaping, invalid UTF-8 replaced,
 * microsecond timestamps with nanosecond decimals, doubles. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "common/json_write.h"

static int sink(void *ctx, const void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

static struct outbuf o;

/* The fixture: each check writes into an emptied o and reads what it wrote
 * as a string. */
static struct outbuf *fresh(void)
{
	o.p = o.base;
	return &o;
}

static const char *written(void)
{
	*o.p = 0;
	return (const char *)o.base;
}

static const char *str(const char *s, size_t n, size_t *bad)
{
	*bad = json_string(fresh(), s, n);
	return written();
}

static const char *us(uint64_t ns)
{
	json_us(fresh(), ns);
	return written();
}

static const char *u64(uint64_t v)
{
	json_u64(fresh(), v);
	return written();
}

static const char *dbl(double d)
{
	json_double(fresh(), d);
	return written();
}

int main(void)
{
	size_t bad;
	CHECK_EQ(outbuf_init(&o, 4096, sink, NULL), 0);

	CHECK_STR(str("plain", 5, &bad), "\"plain\"");
	CHECK_EQ(bad, 0);
	CHECK_STR(str("a\"b\\c/d", 7, &bad), "\"a\\\"b\\\\c/d\"");
	CHECK_STR(str("\n\t\r\x01\x1f\x7f", 6, &bad), "\"\\n\\t\\r\\u0001\\u001f\x7f\"");
	CHECK_STR(str("nul\0in", 6, &bad), "\"nul\\u0000in\"");
	CHECK_STR(str("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, &bad),
		  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	CHECK_EQ(bad, 0);
	CHECK_STR(str("x\xffy", 3, &bad), "\"x\xef\xbf\xbdy\"");
	CHECK_EQ(bad, 1);
	/* a sequence cut by the end of the string, a lone continuation byte */
	CHECK_STR(str("\xe2\x82", 2, &bad), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	CHECK_EQ(bad, 2);
	CHECK_STR(str("\x80", 1, &bad), "\"\xef\xbf\xbd\"");
	/* a surrogate, encoded in UTF-8 (CESU), is not valid UTF-8 */
	CHECK_STR(str("\xed\xa0\x80", 3, &bad), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	CHECK_EQ(bad, 3);
	/* the worst case fits JSON_STRING_MAX */
	char ctl[100];
	memset(ctl, 1, sizeof(ctl));
	str(ctl, sizeof(ctl), &bad);
	CHECK_EQ(strlen((const char *)o.base), JSON_STRING_MAX(sizeof(ctl)));

	CHECK_STR(us(0), "0");
	CHECK_STR(us(1000), "1");
	CHECK_STR(us(1234567), "1234.567");
	CHECK_STR(us(1234500), "1234.5");
	CHECK_STR(us(1234050), "1234.05");
	CHECK_STR(us(1234005), "1234.005");
	CHECK_STR(us(7), "0.007");
	CHECK_STR(us(UINT64_MAX), "18446744073709551.615");
	CHECK_STR(us(999999999), "999999.999");
	CHECK_STR(us(1000000000), "1000000");
	CHECK_STR(us(4294967296000ull + 10), "4294967296.01");

	/* integers at every digit count's edges, against printf */
	CHECK_STR(u64(0), "0");
	CHECK_STR(u64(UINT64_MAX), "18446744073709551615");
	int bad_ints = 0;
	char want[32];
	for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10) {
		uint64_t vals[] = { p - 1, p, p + 1, p * 2 - 1, p * 5 + 3 };
		for (int i = 0; i < 5; i++) {
			snprintf(want, sizeof(want), "%" PRIu64, vals[i]);
			bad_ints += strcmp(u64(vals[i]), want) != 0;
			snprintf(want, sizeof(want), "%" PRIu64 ".%03u", vals[i] / 1000,
				 (unsigned)(vals[i] % 1000));
			/* json_us drops trailing zeros; compare the digits before them */
			const char *got = us(vals[i]);
			bad_ints += strncmp(got, want, strlen(got)) != 0;
		}
	}
	for (int b = 0; b < 64; b++) {
		uint64_t v = 1ull << b;
		snprintf(want, sizeof(want), "%" PRIu64, v);
		bad_ints += strcmp(u64(v), want) != 0;
		snprintf(want, sizeof(want), "%" PRIu64, v - 1);
		bad_ints += strcmp(u64(v - 1), want) != 0;
	}
	CHECK_EQ(bad_ints, 0);

	/* the cached form writes what json_us() writes, whatever the steps */
	struct json_us_cache cache = { UINT64_MAX, 0, { 0 } };
	uint64_t ts = 0, rng = 12345;
	int bad_cached = 0;
	char plain[48];
	for (int i = 0; i < 200000; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		unsigned step = (unsigned)(rng >> 33);
		switch (i % 5) {
		case 0: ts += step % 1000; break;         /* within a microsecond */
		case 1: ts += step % 3000000; break;      /* across milliseconds */
		case 2: ts = ts / 1000000 * 1000000; break; /* whole milliseconds */
		case 3: ts += (uint64_t)step << (i % 40); break;
		default: if (i % 1000 == 4) ts = step % 999999; /* back under 1 ms */
		}
		strcpy(plain, us(ts));
		json_us_cached(fresh(), &cache, ts);
		bad_cached += strcmp(written(), plain) != 0;
	}
	CHECK_EQ(bad_cached, 0);
	json_us_cached(fresh(), &cache, UINT64_MAX);
	CHECK_STR(written(), "18446744073709551.615");

	/* Beyond int64_t: no integer conversion is tried (it is undefined
	 * there, which clang's -fsanitize=float-cast-overflow reports). */
	CHECK_STR(dbl(9223372036854775808.0), "9.223372036854776e+18");
	CHECK_STR(dbl(-9223372036854775808.0), "-9.223372036854776e+18");
	CHECK_STR(dbl(1e19), "1e+19");
	CHECK_STR(dbl(-1e300), "-1e+300");
	CHECK_STR(dbl(0), "0");
	CHECK_STR(dbl(-3), "-3");
	CHECK_STR(dbl(60), "60");
	CHECK_STR(dbl(0.5), "0.5");
	CHECK_STR(dbl(NAN), "null");
	CHECK_STR(dbl(INFINITY), "null");
	CHECK_STR(dbl(59.94), "59.94");
	CHECK_STR(dbl(0.1), "0.1");
	CHECK(strtod(dbl(0.1), NULL) == 0.1);
	CHECK(strtod(dbl(1.0 / 3), NULL) == 1.0 / 3);
	CHECK_STR(dbl(-0.25), "-0.25");
	CHECK_STR(dbl(16.667), "16.667");
	CHECK_STR(dbl(0.000001), "0.000001");
	CHECK_STR(dbl(123456789.5), "123456789.5");
	/* every short decimal, and values around them, read back exactly */
	int wrong = 0;
	for (int i = -20000; i <= 20000; i++) {
		double vals[] = { i / 1000.0, i / 7.0, i * 0.1, i * 1e-6, i * 1234.5678 };
		for (int k = 0; k < 5; k++)
			wrong += strtod(dbl(vals[k]), NULL) != vals[k];
	}
	CHECK_EQ(wrong, 0);
	CHECK(strtod(dbl(1e300), NULL) == 1e300);
	CHECK(strtod(dbl(-2.5e-300), NULL) == -2.5e-300);
	outbuf_free(&o);
	return CHECK_DONE();
}
