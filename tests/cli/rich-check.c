/*
 * Reads a trace of tests/cli/rich-prog.c and prints its rich events in the
 * forms that program writes (see there), from the events alone: each
 * argument and flow mark under the innermost zone open on its thread,
 * payloads as raw bits, source locations as the trace gives them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "profev_trace.h"

#define MAXT 64
#define MAXD 64

static struct {
	uint32_t tid, depth;
	uint32_t zone[MAXD];
} thr[MAXT];

/* POINT_ARG events waiting for their thread's next instant or message. */
#define MAXP 16
static struct {
	struct profev_event ev[MAXP];
	unsigned n;
} point[MAXT];

static const char *const kinds[] = { "int", "uint", "double", "bool", "ptr", "str" };

static void print_value(struct profev_reader *r, const struct profev_event *ev)
{
	unsigned k = profev_event_arg_kind(ev);
	printf("%s ", k < 6 ? kinds[k] : "?");
	if (k == PROFEV_AK_STR)
		printf("%s%s\n", profev_reader_string(r, (uint32_t)ev->payload),
		       ev->flags & PROFEV_EVF_TRUNCATED ? " T" : "");
	else
		printf("%016" PRIx64 "\n", ev->payload);
	if (k == PROFEV_AK_DOUBLE && !(ev->flags & PROFEV_EVF_DOUBLE))
		printf("double argument without the double flag\n");
}

static int slot(uint32_t tid)
{
	for (int i = 0; i < MAXT; i++) {
		if (thr[i].tid == tid)
			return i;
		if (!thr[i].tid) {
			thr[i].tid = tid;
			return i;
		}
	}
	return 0;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	struct profev_error err;
	struct profev_reader *r = f ? profev_reader_new(f, &err) : NULL;
	if (!r)
		return 2;
	struct profev_event ev;
	struct profev_event_info in;
	int rc;
	while ((rc = profev_reader_next_event(r, &ev, &in)) > 0) {
		int t = slot(ev.tid);
		const char *zone = thr[t].depth ? profev_reader_string(r, thr[t].zone[thr[t].depth - 1]) : "-";
		const struct profev_srcloc *loc = profev_reader_srcloc(r, ev.name);
		switch (ev.type) {
		case PROFEV_EV_ZONE_BEGIN:
			printf("ZONE %s %s %s %s %s %u\n", in.thread, in.name, zone,
			       loc ? profev_reader_string(r, loc->function) : "?",
			       loc ? base(profev_reader_string(r, loc->file)) : "?", loc ? loc->line : 0);
			if (thr[t].depth < MAXD)
				thr[t].zone[thr[t].depth] = ev.name;
			thr[t].depth++;
			break;
		case PROFEV_EV_ZONE_END:
			if (thr[t].depth)
				thr[t].depth--;
			break;
		case PROFEV_EV_ARG:
			printf("ARG %s %s %s ", in.thread, zone, in.name);
			print_value(r, &ev);
			break;
		case PROFEV_EV_POINT_ARG:
			if (point[t].n < MAXP)
				point[t].ev[point[t].n++] = ev;
			continue; /* kept for the next instant or message */
		case PROFEV_EV_FLOW_OUT:
		case PROFEV_EV_FLOW_IN:
			printf("%s %s %s %" PRIu64 "\n", ev.type == PROFEV_EV_FLOW_OUT ? "FLOW_OUT" : "FLOW_IN",
			       in.thread, zone, ev.payload);
			break;
		case PROFEV_EV_ASYNC_BEGIN:
		case PROFEV_EV_ASYNC_END:
			printf("%s %s %s %s %" PRIu64 "\n",
			       ev.type == PROFEV_EV_ASYNC_BEGIN ? "ASYNC_BEGIN" : "ASYNC_END", in.thread, in.name,
			       loc ? profev_reader_string(r, loc->category) : "?", ev.payload);
			break;
		case PROFEV_EV_INSTANT:
		case PROFEV_EV_MESSAGE:
			for (unsigned i = 0; i < point[t].n; i++) {
				const char *target = ev.type == PROFEV_EV_INSTANT ? in.name : in.text;
				int len = ev.type == PROFEV_EV_INSTANT ? (int)strlen(in.name) : (int)in.text_len;
				printf("POINT %s %.*s %s ", in.thread, len, target,
				       profev_reader_string(r, point[t].ev[i].name));
				print_value(r, &point[t].ev[i]);
			}
			/* fall through */
		case PROFEV_EV_COUNTER:
			if (!strcmp(in.thread, "main") && (ev.type != PROFEV_EV_MESSAGE || !strcmp(in.category, "app")))
				printf("SRC %s %s %s %s %u\n", profev_event_type_name(ev.type),
				       ev.type == PROFEV_EV_MESSAGE ? "" : in.name,
				       loc ? profev_reader_string(r, loc->function) : "?",
				       loc ? base(profev_reader_string(r, loc->file)) : "?", loc ? loc->line : 0);
			break;
		}
		point[t].n = 0; /* any other event of the thread forgets them */
	}
	printf("DROPPED %" PRIu64 "\n", profev_reader_meta(r)->dropped_args);
	profev_reader_free(r);
	fclose(f);
	return rc < 0 ? 1 : 0;
}
