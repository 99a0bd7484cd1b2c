/* A C program instrumented the way Tracy's manual shows, using every macro
 * of TracyC.h. tests/cli/120-rec-tracy.sh builds it against profev's
 * <tracy/TracyC.h>, runs it under pfrec and checks the events; the counts
 * it expects follow from the comments here.
 *
 * main: one thread "worker" runs frame() twice, then main runs it 3 times. */
#include <tracy/TracyC.h>
#include "TracyC.h" /* the other spelling resolves to the same header */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pool = "cpool";

/* Zones (12 per frame; 1 more is inactive): frame (TracyCZone), named, frame (C),
 * named_c, frame (S), named_s, frame (CS), named_cs, leaf, dynamic, dynamic_fn
 * (from ___tracy_alloc_srcloc) and manual (___tracy_emit_zone_begin). */
static void leaf(int i)
{
	TracyCZone(ctx, 1);
	TracyCZoneText(ctx, "text", 4);
	TracyCZoneName(ctx, "leaf renamed", 12);
	TracyCZoneColor(ctx, 0xff0000);
	TracyCZoneValue(ctx, (uint64_t)i);
#ifdef TRACY_ENABLE /* a context exists only then */
	if (ctx.active && !TracyCIsConnected) /* active only when recorded */
		abort();
#endif
	TracyCZoneEnd(ctx);
}

static void frame(int i)
{
	TracyCZone(zf, 1);
	TracyCZoneN(zn, "named", 1);
	TracyCZoneEnd(zn);
	TracyCZoneC(zc, 0x00ff00, 1);
	TracyCZoneEnd(zc);
	TracyCZoneNC(znc, "named_c", 0x0000ff, 1);
	TracyCZoneEnd(znc);
	TracyCZoneS(zs, 4, 1);
	TracyCZoneEnd(zs);
	TracyCZoneNS(zns, "named_s", 4, 1);
	TracyCZoneEnd(zns);
	TracyCZoneCS(zcs, 0x123456, 4, 1);
	TracyCZoneEnd(zcs);
	TracyCZoneNCS(zncs, "named_cs", 0x654321, 4, 1);
	TracyCZoneEnd(zncs);
	TracyCZoneN(zoff, "inactive", 0);
#ifdef TRACY_ENABLE
	if (zoff.active)
		abort();
#endif
	TracyCZoneEnd(zoff);
	leaf(i);

#ifdef TRACY_ENABLE /* Tracy's functions for zones made by hand exist only then */
	const char *fn = __func__;
	uint64_t loc = ___tracy_alloc_srcloc_name(__LINE__, __FILE__, strlen(__FILE__), fn, strlen(fn),
						  "dynamic", 7, 0x405060);
	TracyCZoneCtx zd = ___tracy_emit_zone_begin_alloc(loc, 1);
	TracyCZoneEnd(zd);
	loc = ___tracy_alloc_srcloc(__LINE__, __FILE__, strlen(__FILE__), "dynamic_fn", 10, 0);
	zd = ___tracy_emit_zone_begin_alloc_callstack(loc, 3, 1);
	___tracy_emit_zone_end(zd);
	static const struct ___tracy_source_location_data manual = { "manual", __func__, __FILE__, __LINE__, 0 };
	TracyCZoneCtx zm = ___tracy_emit_zone_begin(&manual, 1);
	___tracy_emit_zone_end(zm);
#endif

	/* Plots: 3 per frame, i, i + 0.5 and 2 * i. */
	TracyCPlot("cplot", (double)i);
	TracyCPlotF("cplot_float", (float)i + 0.5f);
	TracyCPlotI("cplot_int", 2 * (int64_t)i);
	TracyCPlotConfig("cplot", TracyPlotFormatNumber, 1, 1, 0xff00ff);

	/* Messages: 8 per frame, and 1 app info. */
	char text[32];
	int n = snprintf(text, sizeof text, "cmessage %d", i);
	TracyCMessage(text, (size_t)n);
	TracyCMessageL("cliteral");
	TracyCMessageC(text, (size_t)n, 0xff0000);
	TracyCMessageLC("cliteral c", 0x00ff00);
	TracyCMessageS(text, (size_t)n, 4);
	TracyCMessageLS("cliteral s", 4);
	TracyCMessageCS(text, (size_t)n, 0x0000ff, 4);
	TracyCMessageLCS("cliteral cs", 0x0000ff, 4);
	TracyCAppInfo("c app info", 10);

	/* Memory: 8 allocations and 8 frees per frame; 4 in the pool "cpool",
	 * 4 with a callstack, 4 secure. */
	void *a = malloc(16), *b = malloc(32), *c = malloc(48), *d = malloc(64);
	void *e = malloc(80), *f = malloc(96), *g = malloc(112), *h = malloc(128);
	TracyCAlloc(a, 16);
	TracyCAllocN(b, 32, pool);
	TracyCSecureAlloc(c, 48);
	TracyCSecureAllocN(d, 64, pool);
	TracyCAllocS(e, 80, 5);
	TracyCAllocNS(f, 96, 5, pool);
	TracyCSecureAllocS(g, 112, 5);
	TracyCSecureAllocNS(h, 128, 5, pool);
	TracyCFree(a);
	TracyCFreeN(b, pool);
	TracyCSecureFree(c);
	TracyCSecureFreeN(d, pool);
	TracyCFreeS(e, 5);
	TracyCFreeNS(f, 5, pool);
	TracyCSecureFreeS(g, 5);
	TracyCSecureFreeNS(h, 5, pool);
	free(a); free(b); free(c); free(d); free(e); free(f); free(g); free(h);
	TracyCMemoryDiscard(pool);
	TracyCSecureMemoryDiscard(pool);
	TracyCMemoryDiscardS(pool, 3);
	TracyCSecureMemoryDiscardS(pool, 3);

	/* Frames: one default mark, one "cphysics" mark, one "cload" frame and
	 * one (4 x 4) frame image per frame. */
	TracyCFrameMarkNamed("cphysics");
	TracyCFrameMarkStart("cload");
	TracyCFrameMarkEnd("cload");
	unsigned char image[4 * 4 * 4] = { 0 };
	TracyCFrameImage(image, 4, 4, 0, 0);
	TracyCFrameMark;
	TracyCZoneEnd(zf);
}

static void lock_use(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	TracyCLockCtx lock;
	TracyCLockAnnounce(lock);
	TracyCLockCustomName(lock, "c lock", 6);
	TracyCLockBeforeLock(lock);
	pthread_mutex_lock(&m);
	TracyCLockAfterLock(lock);
	TracyCLockMark(lock);
	pthread_mutex_unlock(&m);
	TracyCLockAfterUnlock(lock);
	int got = pthread_mutex_trylock(&m) == 0;
	TracyCLockAfterTryLock(lock, got);
	if (got) {
		pthread_mutex_unlock(&m);
		TracyCLockAfterUnlock(lock);
	}
	TracyCLockTerminate(lock);
}

static void *worker(void *arg)
{
	(void)arg;
	TracyCSetThreadName("worker");
	for (int i = 0; i < 2; i++)
		frame(10 + i);
	return NULL;
}

int main(void)
{
	TracyCSetThreadName("main");
	if (TracyCBeginSamplingProfiling())
		TracyCEndSamplingProfiling();
#ifdef TRACY_FIBERS
	TracyCFiberEnter("fiber");
	TracyCFiberLeave;
#endif
	printf("connected %d started %d\n", (int)TracyCIsConnected, (int)TracyCIsStarted);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	for (int i = 0; i < 3; i++)
		frame(i);
	lock_use();
	return 0;
}
