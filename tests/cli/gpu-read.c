/* Prints what a trace holds of its GPU zones (tests 143, 141): each zone
 * as the reader hands it out ("zone NAME BEGIN END CPU_NS CTX FLAGS
 * THREAD", times on the CPU timeline), each context ("ctx ID NAME ERROR_NS
 * LOST") and each value of the counter "gpu zones collected" ("collected
 * TS VALUE"). */
#include <stdio.h>
#include <string.h>
#include <profev_trace.h>
static struct profev_reader *r;
static void zones(void *arg, const struct profev_gpu_zone *z, size_t n)
{
	(void)arg;
	for (size_t i = 0; i < n; i++)
		printf("zone %s %llu %llu %llu %u %u %s\n", profev_reader_string(r, z[i].name),
		       (unsigned long long)z[i].begin_ns, (unsigned long long)z[i].end_ns,
		       (unsigned long long)z[i].cpu_ns, z[i].ctx, z[i].flags, profev_reader_thread_name(r, z[i].tid));
}
int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	struct profev_error err;
	if (!f || !(r = profev_reader_new(f, &err)))
		return 2;
	profev_reader_on_gpu_zones(r, zones, NULL);
	struct profev_event ev;
	struct profev_event_info in;
	int rc;
	while ((rc = profev_reader_next_event(r, &ev, &in)) > 0)
		if (ev.type == PROFEV_EV_COUNTER && !strcmp(in.name, "gpu zones collected"))
			printf("collected %llu %.0f\n", (unsigned long long)ev.ts, profev_event_double(&ev));
	for (uint32_t i = 0; i < PROFEV_GPU_MAX_CONTEXTS; i++) {
		const struct profev_gpu_context *c = profev_reader_gpu_context(r, i);
		if (c)
			printf("ctx %u %s %llu %llu\n", i, profev_reader_string(r, c->name),
			       (unsigned long long)c->error_ns, (unsigned long long)c->lost);
	}
	profev_reader_free(r);
	fclose(f);
	return rc < 0;
}
