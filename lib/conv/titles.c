/* The names and titles the targets show: a track's name, a frame's title,
 * a message's first line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "conv/conv_internal.h"
#include "common/utf8.h"

const char *conv_track_name(const struct conv_thread *t, char buf[32])
{
	if (t->name[0])
		return t->name;
	snprintf(buf, 32, "thread %" PRIu32, t->tid);
	return buf;
}

size_t conv_frame_title(char *buf, uint64_t frame)
{
	char digits[20];
	size_t n = 0;
	do {
		digits[sizeof(digits) - ++n] = (char)('0' + frame % 10);
		frame /= 10;
	} while (frame);
	memcpy(buf, "Frame ", 6);
	memcpy(buf + 6, digits + sizeof(digits) - n, n);
	return 6 + n;
}

size_t conv_message_title(const char *text, size_t len, size_t max)
{
	const char *nl = memchr(text, '\n', len);
	if (nl)
		len = (size_t)(nl - text);
	return utf8_cut(text, len, max);
}
