/*
 * conv/chrome_events.h - the Chrome target's events (not installed): the
 * name arena, an event's head and fields, shared by the chrome*.c files
 * (conv_internal.h holds their state, struct chrome).
 */
#ifndef PROFEV_CONV_CHROME_EVENTS_H
#define PROFEV_CONV_CHROME_EVENTS_H
#include "conv/conv_internal.h"
#include "common/json_write.h"

/* chrome_events.c */
/* An outbuf over the name arena's free room, of at least need bytes. */
CONV_HIDDEN int name_arena_room(struct chrome *ch, size_t need, struct outbuf *tmp);
/* The quoted JSON string of string id, made into the arena. */
CONV_HIDDEN int chrome_json_name_make(struct conv *c, uint32_t id);
/* Reserve room and open an event record of phase ph. */
CONV_HIDDEN int chrome_event_begin(struct conv *c, size_t strings, char ph);
CONV_HIDDEN int chrome_ids_make(struct conv *c, struct conv_thread *t);
CONV_HIDDEN int chrome_metadata(struct conv *c, const char *what, uint32_t pid, uint32_t tid,
				const char *name, const char *prefix);
/* The event's ,"sf":"S.K" for callstack id; nothing for none. Needs 40 bytes. */
CONV_HIDDEN int chrome_put_sf(struct conv *c, uint32_t id);
/* The stackFrames entries of callstack id. */
CONV_HIDDEN int chrome_stack_frames(struct conv *c, uint32_t id);
/* Room for a JSON value of argument a, its key apart. */
CONV_HIDDEN size_t chrome_arg_room(struct conv *c, const struct profev_event *a);
CONV_HIDDEN void chrome_arg_value(struct conv *c, struct outbuf *o, const struct profev_event *a);

/* chrome_zones.c: the ops of zones, and the end of a part's deferred zones. */
CONV_HIDDEN int chrome_zone_begin(struct conv *c, struct conv_thread *t, struct conv_zone *z, int edge);
CONV_HIDDEN int chrome_zone_end(struct conv *c, struct conv_thread *t, struct conv_zone *z, uint64_t ts,
				int edge);
/* Write what h's thread still defers: at the end of a part. */
CONV_HIDDEN int chrome_thread_flush(struct conv *c, struct chrome_thread *h);

#define EVENT_MAX 256           /* an event's fixed text, strings apart */
#define FRAMES_TID 1000000000u  /* Linux TIDs stay below 2^22 */
#define GPU_TID 2000000000u     /* + a GPU context id */
#define TITLE_MAX 96
#define ARENA_SLACK 32          /* readable bytes kept past the arena's end */

/* ,"pid":P,"tid":T of a track, made once into the arena: t->aux holds its
 * offset << 8 | length. It is at most 34 bytes and copied as a fixed
 * IDS_MAX: name_arena_room() made that much room for it and events reserve
 * EVENT_MAX. (A copy of variable size compiles to rep movs, slow for a few
 * bytes.) */
#define IDS_MAX 48

/* Keys are literals, so their copies have a fixed size. */
#define field_str(c, key, s, n) do { outbuf_lit(&(c)->out, key); \
	(c)->st.replaced_bytes += json_string(&(c)->out, (s), (n)); } while (0)
#define field_ts(c, key, ts) do { outbuf_lit(&(c)->out, key); chrome_put_ts((c), (ts)); } while (0)

/* The quoted JSON string of string id. @return 0 or PROFEV_E_NOMEM. */
static inline int json_name_of(struct conv *c, uint32_t id, struct json_name *out)
{
	struct chrome *ch = c->fmt;
	if (__builtin_expect(id >= ch->nnames || !ch->names[id].len, 0)) {
		int rc = chrome_json_name_make(c, id);
		if (rc)
			return rc;
	}
	*out = ch->names[id];
	return 0;
}

static inline void put_json_name(struct conv *c, const struct json_name *j)
{
	struct chrome *ch = c->fmt;
	/* Short names (most) are copied as a fixed 32 bytes: the arena keeps
	 * ARENA_SLACK bytes past its end and events reserve EVENT_MAX. */
	if (__builtin_expect(j->len <= ARENA_SLACK, 1)) {
		memcpy(c->out.p, ch->arena + j->off, ARENA_SLACK);
		c->out.p += j->len;
	} else {
		outbuf_put(&c->out, ch->arena + j->off, j->len);
	}
}

static inline uint32_t chrome_tid(const struct conv_thread *t)
{
	return t->kind == CONV_FRAMES ? FRAMES_TID + t->seq : t->tid;
}

static inline void chrome_put_ts(struct conv *c, uint64_t ts)
{
	struct chrome *ch = c->fmt;
	if (__builtin_expect(ts < c->base, 0)) {
		outbuf_byte(&c->out, '-');
		json_us(&c->out, c->base - ts);
	} else {
		json_us_cached(&c->out, &ch->ts, ts - c->base);
	}
}

static inline int chrome_put_ids(struct conv *c, struct conv_thread *t)
{
	struct chrome *ch = c->fmt;
	int rc;
	if (__builtin_expect(!t->aux, 0) && (rc = chrome_ids_make(c, t)))
		return rc;
	memcpy(c->out.p, ch->arena + (t->aux >> 8), IDS_MAX);
	c->out.p += t->aux & 0xff;
	return 0;
}

static inline void chrome_event_end(struct conv *c)
{
	outbuf_byte(&c->out, '}');
}

#endif
