/* Game-shaped synthetic events; see synth.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synth.h"

#define BASE_TS 1000000000ull
#define BATCH 256 /* events of one thread in a row, as a flush batch */

static uint32_t rnd(struct synth *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (uint32_t)(s->rng >> 11);
}

/* One frame on a thread: Frame > {Update > {Physics > Broadphase, AI, Animation}, Render > Submit}.
 * Each entry: +1 begin name index, -1 end, 0 counter. */
static const struct step { int8_t kind; uint8_t name; uint16_t duration; } pattern[] = {
	{ 1, 0, 40 }, { 1, 1, 35 }, { 1, 2, 120 }, { 1, 3, 900 }, { -1, 3, 60 }, { -1, 2, 25 },
	{ 1, 4, 30 }, { -1, 4, 2200 }, { 1, 5, 45 }, { -1, 5, 1500 }, { -1, 1, 30 },
	{ 1, 6, 50 }, { 1, 7, 80 }, { -1, 7, 3100 }, { -1, 6, 40 }, { 0, 0, 20 }, { -1, 0, 400 },
};
#define PATTERN_LEN (sizeof(pattern) / sizeof(pattern[0]))

struct profev_event synth_event(uint8_t type, uint64_t ts, uint32_t tid, uint32_t name, uint64_t payload)
{
	struct profev_event e;
	memset(&e, 0, sizeof(e));
	e.type = type;
	e.ts = ts;
	e.tid = tid;
	e.name = name;
	e.payload = payload;
	return e;
}

int synth_init(struct synth *s, struct profev_writer *w, uint32_t nthreads, uint64_t seed)
{
	static const char *const zones[] = { "Frame", "Update", "Physics", "Broadphase", "AI",
					     "Animation", "Render", "Submit" };
	static const char *const cats[] = { "game", "render", "physics" };
	memset(s, 0, sizeof(*s));
	if (nthreads == 0 || nthreads > 64)
		return PROFEV_E_ARG;
	s->nthreads = nthreads;
	s->rng = seed * 2654435761u + 88172645463325252ull;
	for (int i = 0; i < 8; i++)
		if (!(s->zone_names[i] = profev_writer_cstring(w, zones[i])))
			return PROFEV_E_NOMEM;
	for (int i = 0; i < 3; i++)
		if (!(s->category[i] = profev_writer_cstring(w, cats[i])))
			return PROFEV_E_NOMEM;
	s->counter_names[0] = profev_writer_cstring(w, "fps");
	s->counter_names[1] = profev_writer_cstring(w, "entities");
	for (uint32_t t = 0; t < nthreads; t++) {
		char name[32];
		snprintf(name, sizeof(name), t == 0 ? "main" : "worker %u", t);
		if (profev_writer_thread(w, 1000 + t, 1000, name))
			return profev_writer_error(w)->code;
		s->threads[t].clock = BASE_TS + t * 17;
	}
	return 0;
}

int synth_args(struct synth *s, struct profev_writer *w)
{
	static const char *const strs[] = { "idle", "walk", "run", "jump" };
	s->arg_keys[0] = profev_writer_cstring(w, "entity");
	s->arg_keys[1] = profev_writer_cstring(w, "phase");
	for (int i = 0; i < 4; i++)
		s->arg_strs[i] = profev_writer_cstring(w, strs[i]);
	s->args = 1;
	return s->arg_keys[0] && s->arg_keys[1] && s->arg_strs[3] ? 0 : PROFEV_E_NOMEM;
}

void synth_fill(struct synth *s, struct profev_event *out, uint32_t n)
{
	uint32_t i = 0;
	while (i < n) {
		uint32_t t = rnd(s) % s->nthreads;
		struct synth_thread *th = &s->threads[t];
		for (uint32_t b = 0; b < BATCH && i < n; b++) {
			const struct step *st = &pattern[th->step];
			struct profev_event *e = &out[i];
			memset(e, 0, sizeof(*e));
			th->clock += st->duration + (rnd(s) & 7); /* a few ns of jitter */
			e->ts = th->clock;
			e->tid = 1000 + t;
			e->frame = s->frame;
			if (st->kind == 0) {
				e->type = PROFEV_EV_COUNTER;
				e->name = s->counter_names[t & 1];
				profev_event_set_double(e, t & 1 ? (double)(1000 + rnd(s) % 50)
								 : 60.0 - (rnd(s) % 100) / 10.0);
			} else {
				e->type = st->kind > 0 ? PROFEV_EV_ZONE_BEGIN : PROFEV_EV_ZONE_END;
				e->name = s->zone_names[st->name];
				e->payload = s->category[st->name >= 6 ? 1 : st->name >= 2 && st->name <= 3 ? 2 : 0];
			}
			i++;
			for (int k = 0; s->args && st->kind > 0 && k < 2 && i < n; k++, b++) {
				struct profev_event *a = &out[i++];
				*a = *e;
				a->type = PROFEV_EV_ARG;
				a->name = s->arg_keys[k];
				a->payload = k ? s->arg_strs[rnd(s) & 3] : rnd(s) & 4095;
				a->flags = (uint8_t)((k ? PROFEV_AK_STR : PROFEV_AK_INT) << 3);
			}
			if (++th->step == PATTERN_LEN) {
				th->step = 0;
				if (t == 0 && i < n) { /* the main thread marks frames */
					struct profev_event *f = &out[i++];
					memset(f, 0, sizeof(*f));
					f->type = PROFEV_EV_FRAME_MARK;
					f->ts = th->clock;
					f->tid = e->tid;
					f->frame = ++s->frame;
				}
			}
		}
	}
}

int synth_write(int fd, uint64_t nevents, uint32_t nthreads, uint64_t seed, struct profev_error *err)
{
	return synth_write_args(fd, nevents, nthreads, seed, 0, err);
}

int synth_write_args(int fd, uint64_t nevents, uint32_t nthreads, uint64_t seed, int args,
		     struct profev_error *err)
{
	struct profev_writer *w = profev_writer_new(fd, NULL, err);
	if (!w)
		return err ? err->code : PROFEV_E_IO;
	struct synth s;
	static const char *const argv[] = { "./game", "--level", "3" };
	struct profev_meta m = { .program = "./game", .argv = argv, .argc = 3, .pid = 1000,
				 .host = "synth", .wall_start_ns = 1700000000000000000ll,
				 .mono_start_ns = BASE_TS, .clock = "monotonic", .recorder = "synth" };
	enum { N = 4096 };
	struct profev_event *batch = malloc(N * sizeof(*batch));
	int rc = batch ? profev_writer_meta(w, &m) : PROFEV_E_NOMEM;
	if (!rc)
		rc = synth_init(&s, w, nthreads, seed);
	if (!rc && args)
		rc = synth_args(&s, w);
	uint32_t msg_cat = rc ? 0 : profev_writer_cstring(w, "log");
	for (uint64_t done = 0; !rc && done < nevents;) {
		uint32_t n = nevents - done < N ? (uint32_t)(nevents - done) : N;
		synth_fill(&s, batch, n);
		for (uint32_t i = 0; i < n && !rc; i++)
			rc = profev_writer_event(w, &batch[i]);
		done += n;
		if (!rc && done % (N * 16) == 0) {
			char text[64];
			int len = snprintf(text, sizeof(text), "loaded chunk %llu", (unsigned long long)done);
			struct profev_event e = { .ts = batch[n - 1].ts, .tid = batch[n - 1].tid,
						  .type = PROFEV_EV_MESSAGE, .payload = msg_cat };
			rc = profev_writer_message(w, &e, text, (size_t)len);
		}
	}
	if (!rc) {
		struct profev_meta end = { .exit_kind = PROFEV_EXIT_EXITED, .exit_code = 0,
					   .end_ns = s.threads[0].clock };
		rc = profev_writer_meta(w, &end);
	}
	if (!rc)
		rc = profev_writer_close(w);
	if (rc && err)
		*err = *profev_writer_error(w);
	free(batch);
	profev_writer_free(w);
	return rc;
}
