/*
 * The trace reader (lib/trace/reader.c) with everything it resolves: every
 * event one at a time, in runs and chunk by chunk (with a frame image's
 * pixels), and for each event its names, message text, thread, callstack,
 * the callstack's modules and symbols and its call site; then the
 * metadata and totals. The reader must fail with a code and a message,
 * never crash, hang or leak.
 */
#include "fuzz.h"

static size_t resolve(const struct profev_reader *r, const struct profev_event *ev)
{
	size_t n = fuzz_touch(profev_reader_string(r, ev->name));
	n += fuzz_touch(profev_reader_thread_name(r, ev->tid));
	n += profev_reader_thread_pid(r, ev->tid);
	size_t len = 0;
	const char *text = profev_reader_event_text(r, ev, &len);
	if (len)
		n += (unsigned char)text[0] + (unsigned char)text[len - 1];
	const struct profev_srcloc *loc = profev_reader_srcloc(r, ev->name);
	if (loc)
		n += fuzz_touch(profev_reader_string(r, loc->function)) +
		     fuzz_touch(profev_reader_string(r, loc->file)) + loc->line;
	unsigned nf = 0;
	const struct profev_frame *f = profev_reader_stack(r, ev->stack, &nf);
	for (unsigned i = 0; f && i < nf; i++) {
		const struct profev_module *m = profev_reader_module(r, f[i].module);
		if (m) {
			n += fuzz_touch(m->path);
			if (m->build_id_len)
				n += m->build_id[0] + m->build_id[m->build_id_len - 1];
		}
		unsigned ns = 0;
		const struct profev_symframe *s = profev_reader_symbol(r, f[i].module, f[i].offset, &ns);
		for (unsigned k = 0; s && k < ns; k++)
			n += fuzz_touch(s[k].function) + fuzz_touch(s[k].file) + s[k].line;
	}
	return n;
}

static size_t finish(const struct profev_reader *r)
{
	const struct profev_meta *m = profev_reader_meta(r);
	size_t n = fuzz_touch(m->program) + fuzz_touch(m->host) + fuzz_touch(m->clock) +
		   fuzz_touch(m->recorder);
	for (uint32_t i = 0; i < m->argc; i++)
		n += fuzz_touch(m->argv[i]);
	const struct profev_totals *t = profev_reader_totals(r);
	if (t)
		n += (size_t)t->events;
	for (uint32_t i = 0; i < profev_reader_module_count(r); i++)
		n += fuzz_touch(profev_reader_module(r, i)->path);
	return n + fuzz_touch(profev_reader_error(r)->message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *d = fuzz_trace(data, size);
	volatile size_t sink = 0;

	/* One event at a time. */
	FILE *f = fuzz_file(d, size);
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(f, &err);
	if (r) {
		struct profev_event ev;
		struct profev_event_info in;
		while (profev_reader_next_event(r, &ev, &in) > 0) {
			sink += fuzz_touch(in.name) + fuzz_touch(in.category) + fuzz_touch(in.thread);
			if (in.text_len)
				sink += (unsigned char)in.text[in.text_len - 1];
			sink += resolve(r, &ev);
		}
		sink += finish(r);
		profev_reader_free(r);
	} else {
		sink += fuzz_touch(err.message);
	}
	fclose(f);

	/* In runs, as pfconv reads. */
	f = fuzz_file(d, size);
	r = profev_reader_new(f, NULL);
	if (r) {
		const struct profev_event *evs;
		size_t n;
		while (profev_reader_next_events(r, &evs, &n) > 0)
			for (size_t i = 0; i < n; i++)
				sink += resolve(r, &evs[i]);
		sink += finish(r);
		profev_reader_free(r);
	}
	fclose(f);

	/* Chunk by chunk, as pfsym and the writer's copy_chunk read. */
	f = fuzz_file(d, size);
	r = profev_reader_new(f, NULL);
	if (r) {
		struct profev_chunk c;
		while (profev_reader_next_chunk(r, &c) > 0) {
			sink += c.kind + c.stored_total;
			if (c.image && c.image->size) {
				const uint8_t *px = c.image->data;
				sink += c.image->width + c.image->height + px[0] + px[c.image->size - 1];
			}
			for (uint32_t i = 0; i < c.nevents; i++)
				sink += resolve(r, &c.events[i]);
		}
		sink += finish(r);
		profev_reader_free(r);
	}
	fclose(f);
	free(d);
	(void)sink;
	return 0;
}
