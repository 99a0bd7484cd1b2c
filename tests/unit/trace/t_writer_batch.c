/* The writer's batch paths: profev_writer_events() and the recorder's plain
 * events (writer_add_plain) write the same bytes as one
 * profev_writer_event() call per event, across chunk boundaries, thread
 * switches and every kind of event the predictors do not expect; so does a
 * writer that stores its chunks on a thread of its own, which also reports
 * a write error. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "synth.h"
#include "tracemem.h"
#include "trace/trace_internal.h"
#include "profev_trace.h"

#define NEVENTS 60000

enum way { ONE_BY_ONE, BATCHES, PLAIN, THREADED };

static struct profev_event events[NEVENTS];
static uint32_t stack_id;

/* Game-shaped events with the unusual ones mixed in: messages, losses,
 * memory events with callstacks, doubles, secure flags, frame changes. */
static void make_events(struct synth *s)
{
	synth_fill(s, events, NEVENTS);
	for (uint32_t i = 0; i < NEVENTS; i += 97) {
		struct profev_event *e = &events[i];
		switch (i / 97 % 6) {
		case 0:
			e->type = PROFEV_EV_MESSAGE;
			e->flags = 0;
			e->name = 0; /* a message has no name */
			break;
		case 1:
			e->type = PROFEV_EV_LOST;
			e->flags = 0;
			e->payload = i;
			break;
		case 2:
			e->type = PROFEV_EV_MEM_ALLOC;
			e->addr = 0x10000 + i;
			e->payload = 64;
			e->stack = stack_id;
			e->flags = PROFEV_EVF_SECURE;
			break;
		case 3:
			e->frame += 1000;
			break;
		case 4:
			e->stack = stack_id;
			break;
		default:
			e->name += 1;
			break;
		}
	}
}

static int is_plain(const struct profev_event *e)
{
	return (e->type == PROFEV_EV_ZONE_BEGIN || e->type == PROFEV_EV_ZONE_END ||
		e->type == PROFEV_EV_INSTANT) && !e->flags && !e->stack;
}

static int write_plain(struct profev_writer *w)
{
	static struct plain_event run[NEVENTS];
	for (uint32_t i = 0; i < NEVENTS;) {
		if (!is_plain(&events[i])) {
			int rc = profev_writer_event(w, &events[i++]);
			if (rc)
				return rc;
			continue;
		}
		uint32_t n = 0, tid = events[i].tid;
		uint64_t frame = events[i].frame;
		for (; i < NEVENTS && is_plain(&events[i]) && events[i].tid == tid &&
		       events[i].frame == frame; i++, n++)
			run[n] = (struct plain_event){ events[i].ts, events[i].name,
						       (uint32_t)events[i].payload, events[i].type, 0 };
		int rc = writer_add_plain(w, tid, frame, run, n);
		if (rc)
			return rc;
	}
	return 0;
}

static int write_batches(struct profev_writer *w)
{
	uint64_t rng = 7;
	for (uint32_t i = 0; i < NEVENTS;) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t n = (uint32_t)(rng >> 33) % 700;
		if (n > NEVENTS - i)
			n = NEVENTS - i;
		int rc = profev_writer_events(w, events + i, n);
		if (rc)
			return rc;
		i += n;
	}
	return 0;
}

/* The whole trace written one way; *len its size. */
static enum way writing;

static int fill(struct profev_writer *w)
{
	struct synth s;
	CHECK_EQ(synth_init(&s, w, 5, 42), 0);
	struct profev_frame frames[2] = { { 0, PROFEV_FRAMEF_NOMODULE, 0x1234 }, { 0, 0, 0x5678 } };
	stack_id = profev_writer_stack(w, frames, 2);
	CHECK(stack_id != 0);
	make_events(&s);
	int rc = 0;
	if (writing == ONE_BY_ONE || writing == THREADED)
		for (uint32_t i = 0; i < NEVENTS && !rc; i++)
			rc = profev_writer_event(w, &events[i]);
	else if (writing == BATCHES)
		rc = write_batches(w);
	else
		rc = write_plain(w);
	CHECK_EQ(rc, 0);
	CHECK_EQ(profev_writer_close(w), 0);
	return 0;
}

static uint8_t *write_trace(enum way way, size_t *len)
{
	struct tracemem m;
	struct profev_error err;
	struct profev_writer_opts opts = { 1, 4096, way == THREADED }; /* chunks end inside runs */
	writing = way;
	CHECK_EQ(tracemem_write(&m, fill, &opts, &err), 0);
	*len = m.len;
	return m.data;
}

/* The trace reads back as the events written (a MESSAGE's text is ""). */
static void check_reads_back(const uint8_t *data, size_t len)
{
	FILE *f = fmemopen((void *)data, len, "rb");
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(f, &err);
	CHECK(r != NULL);
	struct profev_event e;
	uint32_t n = 0, bad = 0;
	while (r && profev_reader_next_event(r, &e, NULL) > 0) {
		if (n < NEVENTS && memcmp(&e, &events[n], sizeof e) != 0 && bad++ < 3)
			fprintf(stderr, "event %u differs\n", n);
		n++;
	}
	CHECK_EQ(n, NEVENTS);
	CHECK_EQ(bad, 0);
	profev_reader_free(r);
	fclose(f);
}

/* A threaded writer on a full disk: the header's write error comes back
 * from profev_writer_new() itself, with the offset, so that a recorder
 * never starts the program for a trace that cannot be written. */
static void threaded_write_error(void)
{
	int fd = open("/dev/full", O_WRONLY);
	if (fd < 0)
		return; /* no /dev/full here */
	struct profev_error err;
	struct profev_writer_opts opts = { 1, 1024, 1 };
	struct profev_writer *w = profev_writer_new(fd, &opts, &err);
	CHECK(w == NULL);
	CHECK_EQ(err.code, PROFEV_E_IO);
	CHECK(strstr(err.message, "write failed at offset 0") != NULL);
	profev_writer_free(w);
	close(fd);
}

int main(void)
{
	size_t one_len, batch_len, plain_len, threaded_len;
	uint8_t *one = write_trace(ONE_BY_ONE, &one_len);
	uint8_t *batch = write_trace(BATCHES, &batch_len);
	uint8_t *plain = write_trace(PLAIN, &plain_len);
	uint8_t *threaded = write_trace(THREADED, &threaded_len);
	CHECK_EQ(batch_len, one_len);
	CHECK_EQ(plain_len, one_len);
	CHECK_EQ(threaded_len, one_len);
	CHECK(batch_len == one_len && memcmp(batch, one, one_len) == 0);
	CHECK(plain_len == one_len && memcmp(plain, one, one_len) == 0);
	CHECK(threaded_len == one_len && memcmp(threaded, one, one_len) == 0);
	check_reads_back(one, one_len);
	threaded_write_error();
	free(one);
	free(batch);
	free(plain);
	free(threaded);
	return CHECK_DONE();
}
