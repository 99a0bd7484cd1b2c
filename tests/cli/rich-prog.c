/*
 * A program using every rich-event macro of <profev.h>, for the CLI tests
 * (116-rec-rich.sh, 314-conv-rich.sh). It writes what it did to the file
 * named by its first argument, one line per event in the form rich-check
 * prints from the trace, so a test compares the two:
 *   ZONE thread name parent function file line
 *   ARG thread zone key kind payload-bits-hex [string]
 *   POINT thread instant-name-or-message-text key kind payload-bits-hex [string]
 *   FLOW_OUT|FLOW_IN thread zone id
 *   ASYNC_BEGIN|ASYNC_END thread name category id
 *   SRC type name function file line
 *   DROPPED n
 * Then four threads take turns holding a lock while the three others wait
 * for it (ROUNDS rounds, each holder holding it HOLD_US with everyone
 * waiting), and it writes "LOCKS acquisitions contended waiters hold_us".
 */
#define _GNU_SOURCE
#include <profev.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

PROFEV_CATEGORY(app, "application");
PROFEV_CATEGORY(io, "loading");

#define ROUNDS 8
#define THREADS 4
#define HOLD_US 2000
#define FLOW 0xabcdef0123456789ull

static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start, round_end;
static int waiting;

static uint64_t bits(double d)
{
	uint64_t b;
	memcpy(&b, &d, 8);
	return b;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

#define ZONE_LINE(thr, name, parent, fn) \
	fprintf(out, "ZONE %s %s %s %s %s %d\n", thr, name, parent, fn, base(__FILE__), __LINE__)
#define ARG(zone, key, kind, payload) \
	fprintf(out, "ARG main %s %s %s %016llx\n", zone, key, kind, (unsigned long long)(payload))

static void *job(void *arg)
{
	(void)arg;
	profev_thread_name("worker");
	PROFEV_ZONE(app, "job"); ZONE_LINE("worker", "job", "-", "job");
	PROFEV_FLOW_IN(FLOW);
	PROFEV_FLOW_IN(7);
	fprintf(out, "FLOW_IN worker job %llu\n", FLOW);
	fprintf(out, "FLOW_IN worker job 7\n");
	PROFEV_ARG_UINT("job", 7);
	fprintf(out, "ARG worker job job uint %016llx\n", 7ull);
	PROFEV_ASYNC_END(io, "load", 1);
	fprintf(out, "ASYNC_END worker load io 1\n");
	return NULL;
}

static void *contend(void *arg)
{
	int me = (int)(intptr_t)arg;
	char name[16];
	snprintf(name, sizeof name, "locker %d", me);
	profev_thread_name(name);
	for (int r = 0; r < ROUNDS; r++) {
		if (r % THREADS == me) {
			PROFEV_LOCK_WAIT(&lock, "the lock");
			pthread_mutex_lock(&lock);
			PROFEV_LOCK_ACQUIRED(&lock);
			pthread_barrier_wait(&start);
			while (__atomic_load_n(&waiting, __ATOMIC_ACQUIRE) < THREADS - 1)
				sched_yield();
			usleep(HOLD_US);
			PROFEV_LOCK_RELEASED(&lock);
			pthread_mutex_unlock(&lock);
		} else {
			pthread_barrier_wait(&start);
			PROFEV_LOCK_WAIT(&lock, "the lock");
			__atomic_add_fetch(&waiting, 1, __ATOMIC_RELEASE);
			pthread_mutex_lock(&lock);
			PROFEV_LOCK_ACQUIRED(&lock);
			PROFEV_LOCK_RELEASED(&lock);
			pthread_mutex_unlock(&lock);
		}
		pthread_barrier_wait(&round_end);
		if (r % THREADS == me)
			__atomic_store_n(&waiting, 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !(out = fopen(argv[1], "w")))
		return 2;
	profev_thread_name("main");
	/* No zone is open: dropped, and counted. */
	PROFEV_ARG_INT("orphan", 1);
	PROFEV_ARG_STR("orphan", "lost");
	PROFEV_FLOW_OUT(99);
	fprintf(out, "DROPPED 3\n");
	{
		PROFEV_ZONE(app, "outer"); ZONE_LINE("main", "outer", "-", "main");
		double nan_payload;
		uint64_t nan_bits = 0x7ff8000000000123ull;
		memcpy(&nan_payload, &nan_bits, 8);
		PROFEV_ARG_INT("i", -5);
		ARG("outer", "i", "int", (uint64_t)-5);
		PROFEV_ARG_INT("imin", INT64_MIN);
		ARG("outer", "imin", "int", (uint64_t)INT64_MIN);
		PROFEV_ARG_UINT("u", UINT64_MAX);
		ARG("outer", "u", "uint", UINT64_MAX);
		PROFEV_ARG_DOUBLE("d", 0.1);
		ARG("outer", "d", "double", bits(0.1));
		PROFEV_ARG_DOUBLE("negzero", -0.0);
		ARG("outer", "negzero", "double", bits(-0.0));
		PROFEV_ARG_DOUBLE("nan", nan_payload);
		ARG("outer", "nan", "double", nan_bits);
		PROFEV_ARG_DOUBLE("tiny", 4.9406564584124654e-324);
		ARG("outer", "tiny", "double", bits(4.9406564584124654e-324));
		PROFEV_ARG_BOOL("yes", 7);
		ARG("outer", "yes", "bool", 1);
		PROFEV_ARG_BOOL("no", 0);
		ARG("outer", "no", "bool", 0);
		PROFEV_ARG_PTR("p", &lock);
		ARG("outer", "p", "ptr", (uint64_t)(uintptr_t)&lock);
		PROFEV_ARG_STR("s", "hello");
		fprintf(out, "ARG main outer s str hello\n");
		PROFEV_ARG_STR("null", NULL);
		fprintf(out, "ARG main outer null str \n");
		PROFEV_ARG_STRN("sn", "abcdef", 3);
		fprintf(out, "ARG main outer sn str abc\n");
		char big[2000];
		memset(big, 'y', sizeof big);
		PROFEV_ARG_STRN("big", big, sizeof big);
		fprintf(out, "ARG main outer big str %.*s T\n", PROFEV_ARG_STR_MAX, big);
		PROFEV_ZONE_TEXT("some text", 9);
		fprintf(out, "ARG main outer text str some text\n");
		PROFEV_ZONE_VALUE(42);
		ARG("outer", "value", "uint", 42);
		PROFEV_ZONE_COLOR(0xff8000);
		ARG("outer", "color", "uint", 0xff8000);
		{
			PROFEV_ZONE(app, "inner"); ZONE_LINE("main", "inner", "outer", "main");
			PROFEV_ARG_INT("depth", 2);
			ARG("inner", "depth", "int", 2);
		}
		PROFEV_ARG_INT("after", 3);
		ARG("outer", "after", "int", 3);
		/* A flow mark after a child zone: converters keep it in the zone. */
		PROFEV_FLOW_OUT(7);
		fprintf(out, "FLOW_OUT main outer 7\n");
		/* Two spans of one name overlap; the first ends on another thread. */
		PROFEV_ASYNC_BEGIN(io, "load", 1);
		fprintf(out, "ASYNC_BEGIN main load io 1\n");
		PROFEV_ASYNC_BEGIN(io, "load", 2);
		fprintf(out, "ASYNC_BEGIN main load io 2\n");
		{
			PROFEV_ZONE(app, "spawn"); ZONE_LINE("main", "spawn", "outer", "main");
			PROFEV_FLOW_OUT(FLOW);
			fprintf(out, "FLOW_OUT main spawn %llu\n", FLOW);
			pthread_t t;
			pthread_create(&t, NULL, job, NULL);
			pthread_join(t, NULL);
		}
		PROFEV_ASYNC_END(io, "load", 2);
		fprintf(out, "ASYNC_END main load io 2\n");
		PROFEV_INSTANT(app, "tick"); fprintf(out, "SRC instant tick main %s %d\n", base(__FILE__), __LINE__);
		PROFEV_COUNTER(app, "level", 3); fprintf(out, "SRC counter level main %s %d\n", base(__FILE__), __LINE__);
		PROFEV_MESSAGE(app, "hello %d", 1); fprintf(out, "SRC message  main %s %d\n", base(__FILE__), __LINE__);
		/* Arguments of the next instant or message, not of the zone. */
		PROFEV_NEXT_ARG_INT("n", -7);
		PROFEV_NEXT_ARG_DOUBLE("x", 2.5);
		PROFEV_NEXT_ARG_STR("why", "because");
		PROFEV_INSTANT(app, "marked"); fprintf(out, "SRC instant marked main %s %d\n", base(__FILE__), __LINE__);
		fprintf(out, "POINT main marked n int %016llx\n", (unsigned long long)-7);
		fprintf(out, "POINT main marked x double %016llx\n", (unsigned long long)bits(2.5));
		fprintf(out, "POINT main marked why str because\n");
		PROFEV_NEXT_ARG_UINT("color", 0xff0000);
		PROFEV_MESSAGE(app, "red"); fprintf(out, "SRC message  main %s %d\n", base(__FILE__), __LINE__);
		fprintf(out, "POINT main red color uint %016llx\n", 0xff0000ull);
		/* One that no instant or message follows is forgotten. */
		PROFEV_NEXT_ARG_INT("stray", 1);
		{
			PROFEV_ZONE(app, "after_stray"); ZONE_LINE("main", "after_stray", "outer", "main");
		}
		PROFEV_FRAME_START("render");
		PROFEV_FRAME_END("render");
	}
	/* They need no open zone. */
	PROFEV_NEXT_ARG_BOOL("top", 1);
	PROFEV_INSTANT(app, "top"); fprintf(out, "SRC instant top main %s %d\n", base(__FILE__), __LINE__);
	fprintf(out, "POINT main top top bool %016llx\n", 1ull);
	pthread_barrier_init(&start, NULL, THREADS);
	pthread_barrier_init(&round_end, NULL, THREADS);
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, contend, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	fprintf(out, "LOCKS %d %d %d %d\n", ROUNDS * THREADS, ROUNDS * (THREADS - 1), THREADS, HOLD_US);
	fclose(out);
	return 0;
}
