/*
 * json_write.h - JSON text for the converters over struct outbuf.
 *
 * Any bytes become a valid JSON string: quotes, backslashes and control
 * characters are escaped, and each byte that starts no valid UTF-8 sequence
 * becomes U+FFFD, so a strict parser accepts every output whatever a traced
 * program put in its names. Like pb.h, callers reserve first and the
 * functions write without checks. Not installed.
 */
#ifndef PROFEV_JSON_WRITE_H
#define PROFEV_JSON_WRITE_H
#include "common/outbuf.h"

/* Room json_string() needs for n input bytes: "\u001f" is six bytes. */
#define JSON_STRING_MAX(n) (6 * (size_t)(n) + 2)
/* Room for any number these functions write. */
#define JSON_NUMBER_MAX 32

/**
 * Write s[0..n) as a quoted JSON string.
 * @return the number of bytes replaced by U+FFFD.
 */
OUTBUF_HIDDEN size_t json_string(struct outbuf *o, const char *s, size_t n);

/* The escaped characters alone, to build a string in parts. */
OUTBUF_HIDDEN size_t json_chars(struct outbuf *o, const char *s, size_t n);

/* Write an unsigned integer. */
OUTBUF_HIDDEN void json_u64(struct outbuf *o, uint64_t v);

/* Write ns nanoseconds as microseconds, the Trace Event Format's unit,
 * keeping the nanoseconds as up to three decimals: 1234567 -> 1234.567. */
OUTBUF_HIDDEN void json_us(struct outbuf *o, uint64_t ns);

/*
 * json_us() for a stream of timestamps: consecutive ones share all but
 * their last three integer digits as a rule (they are less than a
 * millisecond apart), so the digits before those are kept here and copied.
 * Set hi to UINT64_MAX before the first use.
 */
struct json_us_cache {
	uint64_t hi;      /* the microseconds / 1000 kept; UINT64_MAX: none */
	uint32_t len;     /* its digits in digits[] (at most 14) */
	char digits[16];
};
OUTBUF_HIDDEN void json_us_cached(struct outbuf *o, struct json_us_cache *k, uint64_t ns);

/* Write a double so that it reads back to the same value; JSON has no NaN
 * or infinities, so those become null. */
OUTBUF_HIDDEN void json_double(struct outbuf *o, double d);
#endif
