/*
 * sym/messages.c - what a symbolizer reports: the error that refuses a
 * file (s->err, returned as a negative code), and the warnings about
 * damage it read around (profev_symbolizer_warnings()).
 *
 * Damage can repeat: one warning per bad unit of a section of garbage.
 * Each text is kept once, found again by its hash (a set of 64-bit
 * hashes, not a comparison with every earlier text), and a module keeps
 * at most WARN_MAX of them; the rest are counted, and one last warning
 * says how many were left out.
 */
#include <stdarg.h>
#include <stdio.h>
#include <xxhash.h>
#include "sym/sym_internal.h"

int sym_fail(struct profev_symbolizer *s, int code, const char *fmt, ...)
{
	va_list ap;
	s->err.code = code;
	s->err.has_offset = 0;
	s->err.offset = 0;
	va_start(ap, fmt);
	vsnprintf(s->err.message, sizeof(s->err.message), fmt, ap);
	va_end(ap);
	return code;
}

void sym_warn(struct profev_symbolizer *s, const char *fmt, ...)
{
	char msg[sizeof(s->err.message)];
	s->damaged = 1;
	while (s->owner)
		s = s->owner;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	uint64_t h = XXH3_64bits(msg, strlen(msg));
	int added = 1;
	if (s->warned.count < WARN_SEEN_MAX && !u64_map_insert(&s->warned, h ? h : 1, &added))
		return;   /* out of memory: dropped */
	if (!added)
		return;
	if (!s->warnings && !(s->warnings = malloc((WARN_MAX + 1) * sizeof(*s->warnings))))
		return;
	if (s->nwarnings < WARN_MAX) {
		if ((s->warnings[s->nwarnings] = strdup(msg)))
			s->nwarnings++;
		return;
	}
	/* the last slot says how many more */
	s->nmore++;
	snprintf(s->more, sizeof(s->more), "'%s': and %llu more warning%s about damage, not shown",
		 s->path ? s->path : "?", (unsigned long long)s->nmore, s->nmore == 1 ? "" : "s");
	s->warnings[WARN_MAX] = s->more;
	s->nwarnings = WARN_MAX + 1;
}

void sym_warnings_release(struct profev_symbolizer *s)
{
	for (unsigned i = 0; i < s->nwarnings && i < WARN_MAX; i++)
		free(s->warnings[i]);
	free(s->warnings);
	s->warnings = NULL;
	s->nwarnings = 0;
	s->nmore = 0;
	u64_map_free(&s->warned);
}
