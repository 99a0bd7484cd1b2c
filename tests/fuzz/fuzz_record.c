/*
 * pfrec's wire and ring decoder (lib/rec/messages.c, decode.c), fed as if from a
 * client: the recorder runs the program `feed` (built beside this target),
 * which writes the input's ring bytes into the shared memory file pfrec
 * gave it and the input's stream into the pipe (see feed.c for the input's
 * layout). Oracle: the trace pfrec writes reads back whole, with the number
 * of events the recorder reports.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "profev_record.h"

static char feed[PATH_MAX], input[64];

static void remove_input(void)
{
	unlink(input);
}

static void quiet(void *ctx, const char *message)
{
	(void)ctx;
	(void)fuzz_touch(message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int out = -1;
	if (out < 0) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			abort();
		self[n] = 0;
		snprintf(feed, sizeof(feed), "%s/feed", dirname(self));
		snprintf(input, sizeof(input), "/tmp/profev-fuzz-wire.%d", (int)getpid());
		atexit(remove_input);
		if ((out = memfd_create("profev-fuzz-record", 0)) < 0)
			abort();
	}
	FILE *f = fopen(input, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	if (ftruncate(out, 0) < 0 || lseek(out, 0, SEEK_SET) < 0)
		abort();

	char *argv[] = { feed, input, NULL };
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = out;
	o.child_stdout = -1;
	o.warn = quiet;
	struct profev_error err;
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	if (!r)
		abort(); /* nothing in the input can make the start fail */
	struct profev_record_result res;
	int rc = profev_recorder_run(r, &res);
	profev_recorder_free(r);
	if (rc != 0)
		return 0;
	if (res.exit_kind != PROFEV_EXIT_EXITED || res.exit_code > 1) {
		fprintf(stderr, "record: feed ended with kind %d, code %d\n", res.exit_kind, res.exit_code);
		abort();
	}

	FILE *t = fdopen(dup(out), "rb");
	if (!t || fseek(t, 0, SEEK_SET) < 0)
		abort();
	int k;
	uint64_t n = fuzz_count_events(t, &k, &err);
	if (k != 0 || n != res.stats.events) {
		fprintf(stderr, "record: trace read back to %d (%s) with %llu events; pfrec reported %llu\n",
			k, err.message, (unsigned long long)n, (unsigned long long)res.stats.events);
		abort();
	}
	fclose(t);
	return 0;
}
