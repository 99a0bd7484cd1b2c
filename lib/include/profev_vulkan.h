/*
 * profev_vulkan.h - GPU zones of a Vulkan queue, recorded with timestamp
 * queries (vkCmdWriteTimestamp into a query pool of the context's own).
 *
 * Include <vulkan/vulkan.h> (or the program's loader, such as volk) first.
 * The client never links libvulkan: every Vulkan call goes through the
 * function pointers the program passes in a struct profev_vk_functions,
 * which profev_vk_functions_load() fills through the program's own
 * vkGetInstanceProcAddr. <profev.h> never includes this file.
 *
 *   struct profev_vk_functions fn;
 *   profev_vk_functions_load(&fn, instance, device, vkGetInstanceProcAddr, calibrated);
 *   struct profev_vk *vk = profev_vk_new("compute", &fn, physical, device, queue, setup_cmd);
 *   for (;;) {
 *       vkBeginCommandBuffer(cmd, ...);
 *       profev_vk_collect(vk, cmd);                  // once a frame, never waits
 *       { PROFEV_VK_ZONE(vk, cmd, render, "blur"); vkCmdDispatch(cmd, ...); } // C: _BEGIN/_END
 *       vkEndCommandBuffer(cmd); vkQueueSubmit(queue, ...);
 *   }
 *   profev_vk_free(vk);                              // the queue is idle
 *
 * A zone writes a timestamp (at the bottom of the pipe, so that zones
 * follow each other as issued) where it begins and where it ends, in the
 * command buffer it was begun on, into a ring of PROFEV_VK_QUERIES (65536)
 * queries. The collect call reads the results the GPU has made available,
 * in the order the zones began, stops at the first that is not, sends
 * them, and records in its command buffer the reset of the queries it
 * read; a full ring drops the zone and counts it as lost (pfdump --stats
 * shows how many), never waiting for the GPU.
 *
 * Calibration. With VK_EXT_calibrated_timestamps (the device made with it
 * enabled, `calibrated` set when loading the functions) the GPU clock is
 * read together with CLOCK_MONOTONIC (profev's clock; CLOCK_MONOTONIC_RAW
 * where only that is offered, bridged by clock_gettime), when the context
 * is made and again about once a second in the collect; each calibration
 * goes into the trace with its stated error (the driver's maxDeviation).
 * Without it, the set-up writes one timestamp, submits it and waits: the
 * GPU wrote it between the submit and the end of the wait, which is the
 * calibration's stated error; it is not repeated (that would wait again).
 *
 * Rules that matter:
 *   - One struct profev_vk per queue; one thread at a time records its
 *     zones and calls its collect. Zones nest as issued, at most 64 deep;
 *     a zone ends on the command buffer it began on.
 *   - The collect's command buffer resets the queries it read: submit it
 *     to the context's queue before the command buffers of zones begun
 *     after the collect. A query read again before that reset ran still
 *     holds its old value, which the collect recognises and waits out.
 *   - The set-up command buffer is begun, ended, submitted once and waited
 *     for in profev_vk_new(); reset it (or its pool) before using it again.
 *   - The queue must write timestamps (timestampValidBits of 64 assumed).
 *   - Without pfrec (or when 256 GPU contexts exist) profev_vk_new()
 *     returns a handle that records nothing and makes no Vulkan call.
 *   - Under -DPROFEV_DISABLE everything compiles away.
 */
#ifndef PROFEV_VULKAN_H
#define PROFEV_VULKAN_H

#include "profev_gpu.h"

#ifndef VK_NULL_HANDLE
#error "include <vulkan/vulkan.h> (or the program's Vulkan loader) before <profev_vulkan.h>"
#endif

#ifndef PROFEV_VK_QUERIES
#define PROFEV_VK_QUERIES 65536u
#endif
/* How often the collect calibrates again, where the extension allows. */
#ifndef PROFEV_VK_CALIBRATION_NS
#define PROFEV_VK_CALIBRATION_NS 1000000000u
#endif

/** The Vulkan entry points the context calls, from the program's loader. */
struct profev_vk_functions {
	PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
	PFN_vkCreateQueryPool CreateQueryPool;
	PFN_vkDestroyQueryPool DestroyQueryPool;
	PFN_vkCmdResetQueryPool CmdResetQueryPool;
	PFN_vkCmdWriteTimestamp CmdWriteTimestamp;
	PFN_vkGetQueryPoolResults GetQueryPoolResults;
	PFN_vkBeginCommandBuffer BeginCommandBuffer;
	PFN_vkEndCommandBuffer EndCommandBuffer;
	PFN_vkQueueSubmit QueueSubmit;
	PFN_vkQueueWaitIdle QueueWaitIdle;
	/* VK_EXT_calibrated_timestamps, or NULL: write and wait at set-up. */
	PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT GetPhysicalDeviceCalibrateableTimeDomainsEXT;
	PFN_vkGetCalibratedTimestampsEXT GetCalibratedTimestampsEXT;
};

#ifdef PROFEV_DISABLE

struct profev_vk;
#define profev_vk_functions_load(fn, instance, device, gipa, calibrated) \
	((void)sizeof(fn), (void)sizeof(instance), (void)sizeof(device), (void)sizeof(gipa), \
	 (void)sizeof(calibrated), 0)
#define profev_vk_new(name, fn, physical, device, queue, cmd) \
	((void)sizeof(name), (void)sizeof(fn), (void)sizeof(physical), (void)sizeof(device), \
	 (void)sizeof(queue), (void)sizeof(cmd), (struct profev_vk *)0)
#define profev_vk_new_ring(name, fn, physical, device, queue, cmd, queries) \
	((void)sizeof(queries), profev_vk_new(name, fn, physical, device, queue, cmd))
#define profev_vk_free(vk) ((void)sizeof(vk))
#define profev_vk_collect(vk, cmd) ((void)sizeof(vk), (void)sizeof(cmd))
#define PROFEV_VK_ZONE(vk, cmd, cat, name) \
	(PROFEV__USE(cat), (void)sizeof(vk), (void)sizeof(cmd), (void)sizeof("" name ""))
#define PROFEV_VK_ZONE_BEGIN(vk, cmd, cat, name) PROFEV_VK_ZONE(vk, cmd, cat, name)
#define PROFEV_VK_ZONE_END(vk) ((void)sizeof(vk))
#define profev_vk_zone_begin_dyn(vk, cmd, name, len) \
	((void)sizeof(vk), (void)sizeof(cmd), (void)sizeof(name), (void)sizeof(len))
#define profev_vk_name(vk, name, len) ((void)sizeof(vk), (void)sizeof(name), (void)sizeof(len))
#define profev_vk_collected(vk) ((void)sizeof(vk), (uint64_t)0)
#define profev_vk_calibrated(vk) ((void)sizeof(vk), 0)

#else

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROFEV_VK_MAX_DEPTH 64u
#define PROFEV__VK_NONE 0xffffffffu
#define PROFEV__VK_CHUNK 256u /* queries read per vkGetQueryPoolResults */

/* A zone issued: its queries' slots in the ring (qe NONE while open). */
struct profev__vk_zone {
	uint64_t tick;
	uint32_t qb, qe;
	uint32_t name, tid;
};

struct profev__vk_open {
	uint32_t zone;              /* its index, or NONE: not recorded */
	VkCommandBuffer cmd;
};

struct profev_vk {
	int ctx;                    /* profev's context id, -1: records nothing */
	int domain;                 /* the host's time domain, -1: none (write and wait) */
	struct profev_vk_functions fn;
	VkDevice device;
	VkQueryPool pool;           /* nq queries of the ring, and one for set-up */
	uint32_t nq;                /* a power of two */
	struct profev__vk_zone *z;  /* nq / 2 zones, in the order they began */
	uint64_t *stale;            /* per query, the value the collect read last */
	uint32_t qhead;             /* the next query's slot */
	uint32_t zhead, ztail;      /* zones issued and not yet collected */
	struct profev__vk_open open[PROFEV_VK_MAX_DEPTH]; /* innermost last */
	uint32_t depth;
	uint64_t lost;              /* dropped since the last collect */
	uint64_t max_deviation;     /* the best calibration's, ns */
	uint64_t next_calibration;  /* CLOCK_MONOTONIC ns */
	uint64_t res[2 * PROFEV__VK_CHUNK]; /* (value, available) pairs */
	struct profev_gpu_zone_rec out[256];
};

static inline uint64_t profev__vk_clock(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/**
 * Fill fn through the program's vkGetInstanceProcAddr (instance-level
 * entry points from instance, the others from device through
 * vkGetDeviceProcAddr). calibrated: the device was made with
 * VK_EXT_calibrated_timestamps enabled (else those two stay NULL).
 * @return 0, or -1 when an entry point other than those two is missing.
 */
static inline int profev_vk_functions_load(struct profev_vk_functions *fn, VkInstance instance, VkDevice device,
					   PFN_vkGetInstanceProcAddr gipa, int calibrated)
{
	memset(fn, 0, sizeof *fn);
	if (!gipa)
		return -1;
	PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)gipa(instance, "vkGetDeviceProcAddr");
	if (!gdpa)
		return -1;
#define PROFEV__VK_I(f) fn->f = (PFN_vk##f)gipa(instance, "vk" #f)
#define PROFEV__VK_D(f) fn->f = (PFN_vk##f)gdpa(device, "vk" #f)
	PROFEV__VK_I(GetPhysicalDeviceProperties);
	PROFEV__VK_D(CreateQueryPool);
	PROFEV__VK_D(DestroyQueryPool);
	PROFEV__VK_D(CmdResetQueryPool);
	PROFEV__VK_D(CmdWriteTimestamp);
	PROFEV__VK_D(GetQueryPoolResults);
	PROFEV__VK_D(BeginCommandBuffer);
	PROFEV__VK_D(EndCommandBuffer);
	PROFEV__VK_D(QueueSubmit);
	PROFEV__VK_D(QueueWaitIdle);
	if (calibrated) {
		PROFEV__VK_I(GetPhysicalDeviceCalibrateableTimeDomainsEXT);
		PROFEV__VK_D(GetCalibratedTimestampsEXT);
	}
#undef PROFEV__VK_I
#undef PROFEV__VK_D
	return fn->GetPhysicalDeviceProperties && fn->CreateQueryPool && fn->DestroyQueryPool &&
			       fn->CmdResetQueryPool && fn->CmdWriteTimestamp && fn->GetQueryPoolResults &&
			       fn->BeginCommandBuffer && fn->EndCommandBuffer && fn->QueueSubmit && fn->QueueWaitIdle
		       ? 0
		       : -1;
}

/* One reading of the GPU clock with CLOCK_MONOTONIC through the extension:
 * 0, or -1 when the driver fails. */
static inline int profev__vk_calibrated(struct profev_vk *vk, uint64_t *gpu, uint64_t *cpu, uint64_t *dev)
{
	VkCalibratedTimestampInfoEXT in[2] = {
		{ VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, NULL, VK_TIME_DOMAIN_DEVICE_EXT },
		{ VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, NULL, (VkTimeDomainEXT)vk->domain },
	};
	uint64_t ts[2], d = 0, bridge = 0, m0 = 0, r = 0, m1 = 0;
	if (vk->domain == VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT) {
		/* CLOCK_MONOTONIC_RAW's offset from CLOCK_MONOTONIC, read between two
		 * of the latter: half their distance adds to the error. */
		m0 = profev__vk_clock(CLOCK_MONOTONIC);
		r = profev__vk_clock(CLOCK_MONOTONIC_RAW);
		m1 = profev__vk_clock(CLOCK_MONOTONIC);
		bridge = (m1 - m0) / 2 + 1;
	}
	if (vk->fn.GetCalibratedTimestampsEXT(vk->device, 2, in, ts, &d) != VK_SUCCESS)
		return -1;
	*gpu = ts[0];
	*cpu = vk->domain == VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT ? ts[1] + (m0 + (m1 - m0) / 2) - r : ts[1];
	*dev = (d ? d : 1) + bridge;
	return 0;
}

/* The best of a few readings (the driver's deviation varies with
 * preemption): 0, or -1. */
static inline int profev__vk_calibrate(struct profev_vk *vk, int tries, uint64_t *gpu, uint64_t *cpu,
				       uint64_t *dev)
{
	int got = -1;
	for (int i = 0; i < tries; i++) {
		uint64_t g, c, d;
		if (profev__vk_calibrated(vk, &g, &c, &d))
			break;
		if (got || d < *dev) {
			*gpu = g, *cpu = c, *dev = d;
			got = 0;
		}
		if (d <= vk->max_deviation)
			break;
	}
	return got;
}

/* The host's time domain the extension offers, -1 when none. */
static inline int profev__vk_domain(struct profev_vk *vk, VkPhysicalDevice physical)
{
	if (!vk->fn.GetPhysicalDeviceCalibrateableTimeDomainsEXT || !vk->fn.GetCalibratedTimestampsEXT)
		return -1;
	VkTimeDomainEXT d[8];
	uint32_t n = 8;
	VkResult rc = vk->fn.GetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &n, d);
	if (rc != VK_SUCCESS && rc != VK_INCOMPLETE)
		return -1;
	int device = 0, mono = 0, raw = 0;
	for (uint32_t i = 0; i < n && i < 8; i++) {
		device |= d[i] == VK_TIME_DOMAIN_DEVICE_EXT;
		mono |= d[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
		raw |= d[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT;
	}
	if (!device)
		return -1;
	return mono ? VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT : raw ? VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT : -1;
}

/* Reset the whole pool on cmd; without a host domain, also write the
 * set-up query and time the submission. 0, or -1. */
static inline int profev__vk_setup(struct profev_vk *vk, VkQueue queue, VkCommandBuffer cmd, uint64_t *gpu,
				   uint64_t *cpu, uint64_t *error)
{
	VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
					VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL };
	VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cmd, 0, NULL };
	if (vk->fn.BeginCommandBuffer(cmd, &bi) != VK_SUCCESS)
		return -1;
	vk->fn.CmdResetQueryPool(cmd, vk->pool, 0, vk->nq + 1);
	if (vk->domain < 0)
		vk->fn.CmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk->pool, vk->nq);
	if (vk->fn.EndCommandBuffer(cmd) != VK_SUCCESS)
		return -1;
	uint64_t a = profev__vk_clock(CLOCK_MONOTONIC);
	if (vk->fn.QueueSubmit(queue, 1, &si, VK_NULL_HANDLE) != VK_SUCCESS ||
	    vk->fn.QueueWaitIdle(queue) != VK_SUCCESS)
		return -1;
	uint64_t b = profev__vk_clock(CLOCK_MONOTONIC);
	if (vk->domain >= 0)
		return 0;
	/* The GPU wrote it between the submit and the end of the wait. */
	uint64_t v[2] = { 0, 0 };
	if (vk->fn.GetQueryPoolResults(vk->device, vk->pool, vk->nq, 1, sizeof v, v, sizeof v,
				       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) != VK_SUCCESS ||
	    !v[1])
		return -1;
	*gpu = v[0];
	*cpu = a + (b - a) / 2;
	*error = (b - a) / 2 + 1;
	return 0;
}

/**
 * A GPU context named name for queue (of device, on physical), with a
 * ring of queries (a power of two, at least 4). cmd is a command buffer
 * for the set-up, in its initial state: it is begun, ended, submitted to
 * queue and waited for here. Never NULL unless out of memory; a handle
 * that records nothing when pfrec is absent or Vulkan fails.
 */
static inline struct profev_vk *profev_vk_new_ring(const char *name, const struct profev_vk_functions *fn,
						   VkPhysicalDevice physical, VkDevice device, VkQueue queue,
						   VkCommandBuffer cmd, uint32_t queries)
{
	struct profev_vk *vk = (struct profev_vk *)calloc(1, sizeof *vk);
	if (!vk)
		return NULL;
	vk->ctx = -1;
	vk->domain = -1;
	if (!profev_active() || !fn || queries < 4 || (queries & (queries - 1)) || queries > (1u << 30))
		return vk;
	vk->fn = *fn;
	vk->device = device;
	VkPhysicalDeviceProperties p;
	fn->GetPhysicalDeviceProperties(physical, &p);
	double period = p.limits.timestampPeriod;
	if (!(period > 0 && period < 1e9))
		return vk;
	/* A pool the driver refuses is tried again at half the size. */
	VkQueryPoolCreateInfo qi = { VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP,
				     queries + 1, 0 };
	while (fn->CreateQueryPool(device, &qi, NULL, &vk->pool) != VK_SUCCESS) {
		if (queries == 4)
			return vk;
		queries /= 2;
		qi.queryCount = queries + 1;
	}
	vk->z = (struct profev__vk_zone *)calloc(queries / 2, sizeof *vk->z);
	vk->stale = (uint64_t *)calloc(queries, sizeof *vk->stale);
	vk->nq = queries;
	if (!vk->z || !vk->stale)
		return vk;
	vk->domain = profev__vk_domain(vk, physical);
	uint64_t gpu = 0, cpu = 0, error = 0;
	int rc = profev__vk_setup(vk, queue, cmd, &gpu, &cpu, &error);
	if (!rc && vk->domain >= 0) {
		vk->max_deviation = 0;
		rc = profev__vk_calibrate(vk, 8, &gpu, &cpu, &error);
		vk->max_deviation = error * 2; /* what later readings may take */
	}
	if (rc)
		return vk;
	vk->ctx = profev_gpu_context_kind(name, PROFEV_GPU_KIND_VULKAN, period, gpu, cpu,
					  error > 0xffffffffu ? 0xffffffffu : (uint32_t)error);
	vk->next_calibration = cpu + PROFEV_VK_CALIBRATION_NS;
	return vk;
}

/** profev_vk_new_ring() with PROFEV_VK_QUERIES queries. */
static inline struct profev_vk *profev_vk_new(const char *name, const struct profev_vk_functions *fn,
					      VkPhysicalDevice physical, VkDevice device, VkQueue queue,
					      VkCommandBuffer cmd)
{
	return profev_vk_new_ring(name, fn, physical, device, queue, cmd, PROFEV_VK_QUERIES);
}

/* Begin a zone on cmd named by string id name (0: nothing recorded). */
static inline void profev__vk_begin_id(struct profev_vk *vk, VkCommandBuffer cmd, uint32_t name)
{
	if (!vk)
		return;
	if (vk->depth >= PROFEV_VK_MAX_DEPTH) {
		vk->lost++;
		return;
	}
	struct profev__vk_open *o = &vk->open[vk->depth++];
	o->zone = PROFEV__VK_NONE;
	o->cmd = cmd;
	if (!name || vk->ctx < 0)
		return;
	/* Room for this zone's two queries and one for each zone still open. */
	uint32_t tail = vk->ztail != vk->zhead ? vk->z[vk->ztail & (vk->nq / 2 - 1)].qb : vk->qhead;
	if (vk->qhead - tail + vk->depth + 1 > vk->nq) {
		vk->lost++;
		return;
	}
	struct profev__vk_zone *z = &vk->z[vk->zhead & (vk->nq / 2 - 1)];
	z->tick = profev__ticks();
	vk->fn.CmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk->pool, vk->qhead & (vk->nq - 1));
	z->qb = vk->qhead++;
	z->qe = PROFEV__VK_NONE;
	z->name = name;
	z->tid = profev__gpu_tid();
	o->zone = vk->zhead++;
}

/* Begin a zone on cmd named by site s (of category c). */
static inline void profev__vk_begin(struct profev_vk *vk, VkCommandBuffer cmd, struct profev_category *c,
				    struct profev_site *s)
{
	profev__vk_begin_id(vk, cmd, vk && vk->ctx >= 0 ? profev__gpu_site(c, s) : 0);
}

/** Begin a zone on cmd named at run time (len bytes, copied; the latest
 *  1024 distinct names are sent once), without category;
 *  PROFEV_VK_ZONE_END ends it. */
static inline void profev_vk_zone_begin_dyn(struct profev_vk *vk, VkCommandBuffer cmd, const char *name, size_t len)
{
	profev__vk_begin_id(vk, cmd, vk && vk->ctx >= 0 ? profev_gpu_name(name, len) : 0);
}

/** End the innermost zone, on the command buffer it began on. */
static inline void profev_vk_zone_end(struct profev_vk *vk)
{
	if (!vk || !vk->depth)
		return;
	struct profev__vk_open *o = &vk->open[--vk->depth];
	if (o->zone == PROFEV__VK_NONE)
		return;
	vk->fn.CmdWriteTimestamp(o->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk->pool, vk->qhead & (vk->nq - 1));
	vk->z[o->zone & (vk->nq / 2 - 1)].qe = vk->qhead++;
}

/* Read the results of queries first.. (n of them, not past the ring's end)
 * into vk->res; a query is ready when available and not holding the value
 * read from its slot before (its reset has not run yet). */
static inline void profev__vk_read(struct profev_vk *vk, uint32_t first, uint32_t n)
{
	uint32_t s = first & (vk->nq - 1);
	memset(vk->res, 0, 2 * n * sizeof vk->res[0]);
	vk->fn.GetQueryPoolResults(vk->device, vk->pool, s, n, 2 * n * sizeof vk->res[0], vk->res,
				   2 * sizeof vk->res[0], VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
	for (uint32_t i = 0; i < n; i++)
		if (vk->res[2 * i + 1] && vk->res[2 * i] == vk->stale[s + i])
			vk->res[2 * i + 1] = 0;
}

/* Query slot's (value, ready) pair, read with the ones after it unless
 * vk->res holds it already (queries *base.. *base + *len). */
static inline const uint64_t *profev__vk_result(struct profev_vk *vk, uint32_t slot, uint32_t *base, uint32_t *len)
{
	if (slot - *base >= *len) {
		uint32_t n = vk->qhead - slot, room = vk->nq - (slot & (vk->nq - 1));
		if (n > PROFEV__VK_CHUNK)
			n = PROFEV__VK_CHUNK;
		if (n > room)
			n = room;
		profev__vk_read(vk, slot, n);
		*base = slot;
		*len = n;
	}
	return &vk->res[2 * (slot - *base)];
}

/* Reset queries first.. up to (not with) end on cmd, at the ring's end in two. */
static inline void profev__vk_reset(struct profev_vk *vk, VkCommandBuffer cmd, uint32_t first, uint32_t end)
{
	while (first != end) {
		uint32_t s = first & (vk->nq - 1), n = end - first;
		if (n > vk->nq - s)
			n = vk->nq - s;
		vk->fn.CmdResetQueryPool(cmd, vk->pool, s, n);
		first += n;
	}
}

/* The oldest query still owned by a zone: the oldest zone's begin, or the next. */
static inline uint32_t profev__vk_tail(const struct profev_vk *vk)
{
	return vk->ztail != vk->zhead ? vk->z[vk->ztail & (vk->nq / 2 - 1)].qb : vk->qhead;
}

/**
 * Send the zones whose timestamps the GPU has made available, in the order
 * they began, up to the first that is not ready; never waits. Records on
 * cmd (a command buffer being recorded, outside a render pass, for the
 * context's queue) the reset of the queries read. Call once a frame.
 */
static inline void profev_vk_collect(struct profev_vk *vk, VkCommandBuffer cmd)
{
	if (!vk || vk->ctx < 0)
		return;
	unsigned n = 0;
	uint32_t first = profev__vk_tail(vk), base = 0, len = 0;
	while (vk->ztail != vk->zhead) {
		struct profev__vk_zone *z = &vk->z[vk->ztail & (vk->nq / 2 - 1)];
		if (z->qe == PROFEV__VK_NONE)
			break;
		const uint64_t *r = profev__vk_result(vk, z->qb, &base, &len);
		uint64_t b = r[0], b_ready = r[1];
		r = profev__vk_result(vk, z->qe, &base, &len);
		if (!b_ready || !r[1])
			break;
		vk->stale[z->qb & (vk->nq - 1)] = b;
		vk->stale[z->qe & (vk->nq - 1)] = r[0];
		struct profev_gpu_zone_rec *o = &vk->out[n++];
		o->tick = z->tick;
		o->gpu_begin = b;
		o->gpu_end = r[0];
		o->name = z->name;
		o->tid = z->tid;
		vk->ztail++;
		if (n == sizeof vk->out / sizeof vk->out[0]) {
			profev_gpu_zones(vk->ctx, vk->out, n);
			n = 0;
		}
	}
	if (n)
		profev_gpu_zones(vk->ctx, vk->out, n);
	profev__vk_reset(vk, cmd, first, profev__vk_tail(vk));
	if (vk->lost) {
		profev_gpu_lost(vk->ctx, vk->lost);
		vk->lost = 0;
	}
	if (vk->domain >= 0) {
		uint64_t now = profev__vk_clock(CLOCK_MONOTONIC);
		if (now >= vk->next_calibration) {
			uint64_t gpu = 0, cpu = 0, error = 0;
			if (!profev__vk_calibrate(vk, 4, &gpu, &cpu, &error))
				profev_gpu_calibrate(vk->ctx, gpu, cpu, error > 0xffffffffu ? 0xffffffffu : (uint32_t)error);
			vk->next_calibration = now + PROFEV_VK_CALIBRATION_NS;
		}
	}
}

/** Rename vk's GPU context (len bytes of name, at most 1024). */
static inline void profev_vk_name(struct profev_vk *vk, const char *name, size_t len)
{
	if (vk && vk->ctx >= 0)
		profev_gpu_context_name(vk->ctx, name, len);
}

/** Zones the collects have read so far. */
static inline uint64_t profev_vk_collected(const struct profev_vk *vk)
{
	return vk ? vk->ztail : 0;
}

/** 1 when vk is calibrated with VK_EXT_calibrated_timestamps (and again
 *  by the collects), 0 when by writing and waiting or not at all. */
static inline int profev_vk_calibrated(const struct profev_vk *vk)
{
	return vk && vk->ctx >= 0 && vk->domain >= 0;
}

/** Destroy the query pool (no command buffer using it may be pending) and
 *  the handle; zones not yet collected are lost. Accepts NULL. */
static inline void profev_vk_free(struct profev_vk *vk)
{
	if (!vk)
		return;
	if (vk->nq)
		vk->fn.DestroyQueryPool(vk->device, vk->pool, NULL);
	free(vk->z);
	free(vk->stale);
	free(vk);
}

/** Begin a GPU zone of vk on cmd named by a string literal, of category cat. */
#define PROFEV_VK_ZONE_BEGIN(vk, cmd, cat, name) do { \
	PROFEV__SITE(profev__vksite, cat, name, PROFEV__R_BEGIN); \
	profev__vk_begin((vk), (cmd), &profev_cat_##cat, &profev__vksite); } while (0)
#define PROFEV_VK_ZONE_END(vk) profev_vk_zone_end(vk)

#ifdef __cplusplus
struct profev__vk_scope {
	struct profev_vk *vk;
	~profev__vk_scope() { profev_vk_zone_end(vk); }
};
#define PROFEV__VK_ZONE(vk, cmd, cat, name, n) \
	PROFEV__SITE(PROFEV__CAT(profev__vksite_, n), cat, name, PROFEV__R_BEGIN); \
	profev__vk_begin((vk), (cmd), &profev_cat_##cat, &PROFEV__CAT(profev__vksite_, n)); \
	profev__vk_scope PROFEV__CAT(profev__vkscope_, n) = { (vk) }
#else
static inline void profev__vk_cleanup(struct profev_vk **vk)
{
	profev_vk_zone_end(*vk);
}
#define PROFEV__VK_ZONE(vk, cmd, cat, name, n) \
	PROFEV__SITE(PROFEV__CAT(profev__vksite_, n), cat, name, PROFEV__R_BEGIN); \
	profev__vk_begin((vk), (cmd), &profev_cat_##cat, &PROFEV__CAT(profev__vksite_, n)); \
	__attribute__((cleanup(profev__vk_cleanup), unused)) struct profev_vk *PROFEV__CAT(profev__vkscope_, n) = (vk)
#endif

/** A GPU zone of vk on cmd from here to the end of the scope. */
#define PROFEV_VK_ZONE(vk, cmd, cat, name) PROFEV__VK_ZONE(vk, cmd, cat, name, __COUNTER__)

#endif /* PROFEV_DISABLE */
#endif
