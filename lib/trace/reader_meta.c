/* The reader's metadata (key, type, value entries; formats/trace.md) and
 * the end chunk's totals. */
#include <stdlib.h>
#include "trace/trace_internal.h"

enum { META_STRING = 1, META_UINT = 2, META_SINT = 3, META_DOUBLE = 4, META_LIST = 5 };

static int keep_string(char **slot, const uint8_t *s, uint64_t len, const char **out)
{
	char *copy = malloc(len + 1);
	if (!copy)
		return PROFEV_E_NOMEM;
	memcpy(copy, s, len);
	copy[len] = 0;
	free(*slot);
	*slot = copy;
	*out = copy;
	return 0;
}

static void free_argv(struct profev_reader *r)
{
	if (r->meta_argv)
		for (uint32_t i = 0; i < r->meta.argc; i++)
			free(r->meta_argv[i]);
	free(r->meta_argv);
	r->meta_argv = NULL;
	r->meta.argv = NULL;
	r->meta.argc = 0;
}

int reader_parse_meta(struct profev_reader *r, struct cursor *c, uint32_t count)
{
	static const char *const string_keys[] = { "program", "host", "clock", "recorder" };
	struct profev_meta *m = &r->meta;
	const char **string_fields[] = { &m->program, &m->host, &m->clock, &m->recorder };
	for (uint32_t i = 0; i < count; i++) {
		uint64_t klen = cur_varint(c);
		const uint8_t *key = cur_take(c, klen);
		uint8_t type = cur_u8(c);
		if (c->bad)
			return -1;
#define IS(k) (klen == strlen(k) && memcmp(key, k, klen) == 0)
		if (type == META_STRING) {
			uint64_t len = cur_varint(c);
			const uint8_t *s = cur_take(c, len);
			if (!s)
				return -1;
			for (int k = 0; k < 4; k++)
				if (IS(string_keys[k]) && keep_string(&r->meta_strings[k], s, len, string_fields[k]))
					return PROFEV_E_NOMEM;
		} else if (type == META_UINT || type == META_SINT) {
			uint64_t v = cur_varint(c);
			int64_t sv = unzigzag(v);
			if (IS("pid")) m->pid = (uint32_t)v;
			else if (IS("mono_start_ns")) m->mono_start_ns = v;
			else if (IS("tick_base")) m->tick_base = v;
			else if (IS("exit_kind")) m->exit_kind = (int)v;
			else if (IS("end_ns")) m->end_ns = v;
			else if (IS("lost_events")) m->lost_events = v;
			else if (IS("dropped_args")) m->dropped_args = v;
			else if (IS("lost_images")) m->lost_images = v;
			else if (IS("refused_images")) m->refused_images = v;
			else if (IS("ring_window_start_ns")) m->ring_window_start_ns = v;
			else if (IS("ring_window_end_ns")) m->ring_window_end_ns = v;
			else if (IS("ring_let_go_events")) m->ring_let_go_events = v;
			else if (IS("ring_snapshot")) m->ring_snapshot = v;
			else if (IS("wall_start_ns")) m->wall_start_ns = type == META_SINT ? sv : (int64_t)v;
			else if (IS("exit_code")) m->exit_code = (int)(type == META_SINT ? sv : (int64_t)v);
		} else if (type == META_DOUBLE) {
			const uint8_t *d = cur_take(c, 8);
			if (!d)
				return -1;
			uint64_t bits = get_le64(d);
			if (IS("ticks_per_ns"))
				memcpy(&m->ticks_per_ns, &bits, 8);
		} else if (type == META_LIST) {
			uint64_t n = cur_varint(c);
			if (c->bad || n > (uint64_t)(c->end - c->p))
				return -1;
			int is_argv = IS("argv");
			if (is_argv) {
				free_argv(r);
				r->meta_argv = calloc(n ? n : 1, sizeof(char *));
				if (!r->meta_argv)
					return PROFEV_E_NOMEM;
				/* argc counts the strings kept so far: argv is
				 * whole up to it even if the list ends early. */
				m->argv = (const char *const *)r->meta_argv;
			}
			for (uint64_t k = 0; k < n; k++) {
				uint64_t len = cur_varint(c);
				const uint8_t *s = cur_take(c, len);
				if (!s)
					return -1;
				if (is_argv) {
					const char *unused;
					if (keep_string(&r->meta_argv[k], s, len, &unused))
						return PROFEV_E_NOMEM;
					m->argc = (uint32_t)k + 1;
				}
			}
			if (is_argv)
				m->argv = (const char *const *)r->meta_argv;
		} else {
			return -1; /* unknown value types cannot be skipped */
		}
#undef IS
	}
	return 0;
}

int reader_parse_end(struct profev_reader *r, struct cursor *c)
{
	struct profev_totals *t = &r->totals;
	uint64_t *fields[] = { &t->events, &t->chunks, &t->strings, &t->stacks, &t->threads,
			       &t->modules, &t->symbols, &t->images, &t->lost_events, &t->bytes };
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		*fields[i] = cur_varint(c);
	if (c->bad)
		return -1;
	r->have_totals = 1;
	return 0;
}

const struct profev_meta *profev_reader_meta(const struct profev_reader *r)
{
	return &r->meta;
}

const struct profev_totals *profev_reader_totals(const struct profev_reader *r)
{
	return r->have_totals ? &r->totals : NULL;
}

void reader_meta_free(struct profev_reader *r)
{
	for (size_t i = 0; i < sizeof(r->meta_strings) / sizeof(r->meta_strings[0]); i++)
		free(r->meta_strings[i]);
	free_argv(r);
}
