/*
 * gpu.c - GPU contexts, calibrations and zones (<profev_gpu.h>): messages
 * queued with the definitions (defs.c), which the flush thread sends. The
 * queue is bounded for them: past GPU_QUEUE_MAX bytes a zone is counted as
 * lost instead (pfrec far behind), so nothing here waits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "client.h"
#include "profev_gpu.h"

#define GPU_QUEUE_MAX (8u << 20)

static int ncontexts;                  /* contexts made, under cx_lock */
static struct { int kind; double period; } made[PFW_GPU_MAX_CONTEXTS]; /* under cx_lock */
void *profev__tracy_gl;                /* Tracy's GL context (TracyOpenGL.hpp) */
static pthread_mutex_t cx_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t lost[PFW_GPU_MAX_CONTEXTS]; /* not yet reported, atomics */

static int gpu_valid(int ctx)
{
	return ctx >= 0 && ctx < __atomic_load_n(&ncontexts, __ATOMIC_ACQUIRE) && ATOMIC_LOAD(&cl.active);
}

int profev_gpu_context_kind(const char *name, int kind, double period_ns, uint64_t gpu, uint64_t cpu_ns,
			    uint32_t error_ns)
{
	if (!ATOMIC_LOAD(&cl.active) || !(period_ns > 0 && period_ns < 1e9))
		return -1;
	if (!name)
		name = "";
	pthread_mutex_lock(&cx_lock);
	int id = ncontexts;
	if (id >= (int)PFW_GPU_MAX_CONTEXTS) {
		pthread_mutex_unlock(&cx_lock);
		return -1;
	}
	struct pfw_gpu_context m = { (uint32_t)id, (uint32_t)kind, period_ns,
				     (uint32_t)strnlen(name, PFW_GPU_MAX_NAME), 0 };
	struct pfw_gpu_calibration c = { (uint32_t)id, error_ns, gpu, cpu_ns };
	made[id].kind = kind;
	made[id].period = period_ns;
	defs_append_tid(PFW_GPU_CONTEXT, client_gettid(), &m, sizeof m, name, m.name_len, NULL, 0);
	defs_append(PFW_GPU_CALIBRATION, &c, sizeof c, NULL, 0, NULL, 0);
	__atomic_store_n(&ncontexts, id + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cx_lock);
	return id;
}

int profev_gpu_context(const char *name, double period_ns, uint64_t gpu, uint64_t cpu_ns)
{
	return profev_gpu_context_kind(name, PROFEV_GPU_KIND_MANUAL, period_ns, gpu, cpu_ns, 0);
}

void profev_gpu_calibrate(int ctx, uint64_t gpu, uint64_t cpu_ns, uint32_t error_ns)
{
	if (!gpu_valid(ctx))
		return;
	struct pfw_gpu_calibration c = { (uint32_t)ctx, error_ns, gpu, cpu_ns };
	defs_append(PFW_GPU_CALIBRATION, &c, sizeof c, NULL, 0, NULL, 0);
}

/* Reports the context's lost zones when the queue has room again. */
static void report_lost(int ctx)
{
	uint64_t n = __atomic_exchange_n(&lost[ctx], 0, __ATOMIC_RELAXED);
	if (!n)
		return;
	struct pfw_gpu_lost m = { (uint32_t)ctx, 0, n };
	defs_append(PFW_GPU_LOST, &m, sizeof m, NULL, 0, NULL, 0);
}

void profev_gpu_lost(int ctx, uint64_t n)
{
	if (gpu_valid(ctx) && n) {
		__atomic_add_fetch(&lost[ctx], n, __ATOMIC_RELAXED);
		if (defs_pending() < GPU_QUEUE_MAX)
			report_lost(ctx);
	}
}

void profev_gpu_zones(int ctx, const struct profev_gpu_zone_rec *z, unsigned n)
{
	if (!gpu_valid(ctx) || !n)
		return;
	if (n > PFW_GPU_ZONES_MAX || defs_pending() >= GPU_QUEUE_MAX) {
		__atomic_add_fetch(&lost[ctx], n, __ATOMIC_RELAXED);
		return;
	}
	report_lost(ctx);
	_Static_assert(sizeof(struct profev_gpu_zone_rec) == sizeof(struct pfw_gpu_zone), "wire zone");
	struct pfw_gpu_zones m = { (uint32_t)ctx, n };
	defs_append(PFW_GPU_ZONES, &m, sizeof m, z, n * (uint32_t)sizeof *z, NULL, 0);
}

void profev_gpu_context_name(int ctx, const char *name, size_t len)
{
	if (!gpu_valid(ctx) || !name)
		return;
	if (len > PFW_GPU_MAX_NAME)
		len = PFW_GPU_MAX_NAME;
	pthread_mutex_lock(&cx_lock);
	struct pfw_gpu_context m = { (uint32_t)ctx, (uint32_t)made[ctx].kind, made[ctx].period, (uint32_t)len, 0 };
	defs_append_tid(PFW_GPU_CONTEXT, client_gettid(), &m, sizeof m, name, m.name_len, NULL, 0);
	pthread_mutex_unlock(&cx_lock);
}

/* Names made at run time: the latest 1024 distinct ones keep their ids. */
#define DYN_NAMES 1024u
#define DYN_MAX 4080u
static struct dyn_name {
	uint64_t hash;
	uint32_t id, len;
	char *s;
} dyn[DYN_NAMES];
static pthread_mutex_t dyn_lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t profev_gpu_name(const char *s, size_t len)
{
	if (!ATOMIC_LOAD(&cl.active) || !s)
		return 0;
	if (len > DYN_MAX)
		len = DYN_MAX;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	in_client++;
	pthread_mutex_lock(&dyn_lock);
	struct dyn_name *d = &dyn[h % DYN_NAMES];
	uint32_t id;
	if (d->s && d->hash == h && d->len == len && !memcmp(d->s, s, len)) {
		id = d->id;
	} else {
		id = defs_string(s, (uint32_t)len);
		char *copy = malloc(len ? len : 1);
		if (copy) {
			memcpy(copy, s, len);
			free(d->s);
			*d = (struct dyn_name){ h, id, (uint32_t)len, copy };
		}
	}
	pthread_mutex_unlock(&dyn_lock);
	in_client--;
	return id;
}

uint32_t profev__gpu_name(struct profev_site *s)
{
	uint64_t w = profev__site_register(s);
	return (uint32_t)(w >> 32);
}

uint32_t profev__gpu_tid(void)
{
	static __thread uint32_t tid;
	if (!tid)
		tid = client_gettid();
	return tid;
}
