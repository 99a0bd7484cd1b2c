/* The seed program of the fuzz corpora (make-seeds.sh): one of every
 * client record, on two threads, in a few hundred bytes of stream. */
#include <pthread.h>
#include <stdlib.h>
#include <profev.h>

PROFEV_CATEGORY(seed, "fuzz seed");

static int lock;

static void *worker(void *arg)
{
	(void)arg;
	profev_thread_name("worker");
	PROFEV_ZONE(seed, "work");
	PROFEV_LOCK_WAIT(&lock, "the lock");
	PROFEV_LOCK_ACQUIRED(&lock);
	PROFEV_FLOW_IN(7);
	PROFEV_LOCK_RELEASED(&lock);
	PROFEV_ASYNC_END(seed, "load", 3);
	return NULL;
}

int main(void)
{
	profev_thread_name("main");
	PROFEV_FRAME_MARK();
	{
		PROFEV_ZONE_S(seed, "frame", 4);
		PROFEV_ARG_INT("n", -3);
		PROFEV_ARG_DOUBLE("x", 0.5);
		PROFEV_ARG_STR("s", "text");
		PROFEV_ZONE_TEXT("more", 4);
		PROFEV_FLOW_OUT(7);
		PROFEV_ASYNC_BEGIN(seed, "load", 3);
		PROFEV_COUNTER(seed, "fps", 60.0);
		PROFEV_INSTANT(seed, "tick");
		PROFEV_MESSAGE(seed, "hello %d", 1);
		char dyn[8] = "dyn";
		PROFEV_ZONE_DYN(seed, dyn, 3);
		PROFEV_ZONE_END(seed);
		void *p = malloc(32);
		PROFEV_ALLOC_S(p, 32, 4);
		PROFEV_FREE_NAMED(p, "pool");
		free(p);
		PROFEV_FRAME_START("loading");
		PROFEV_FRAME_END("loading");
	}
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	PROFEV_FRAME_MARK();
	return 0;
}
