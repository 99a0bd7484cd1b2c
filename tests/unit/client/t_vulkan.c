/* <profev_vulkan.h> against a fake Vulkan device whose "GPU" runs the
 * command buffers on the CPU when they are submitted (or later, when the
 * test says so), its clock CLOCK_MONOTONIC / 2 + an offset: the program
 * records itself (scenarios run as the traced child) and the trace is read
 * back. Checked: the calibrations (CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW
 * bridged, write and wait, each collect's when the interval is 0), zones'
 * names, order, nesting and place on the CPU timeline, a full ring and a
 * too deep nesting counted as lost, a query read again before its reset
 * ran not taken for a new one, and no Vulkan call at all without pfrec.
 * Needs only <vulkan/vulkan.h>; skips without it. */
#if defined(__has_include)
#if __has_include(<vulkan/vulkan.h>)
#define HAVE_VULKAN_H 1
#endif
#endif

#ifndef HAVE_VULKAN_H
#include <stdio.h>
int main(void)
{
	puts("SKIP: no <vulkan/vulkan.h> (libvulkan-dev)");
	return 77;
}
#else

#define _GNU_SOURCE
#define PROFEV_VK_CALIBRATION_NS 0 /* calibrate at every collect */
#include <vulkan/vulkan.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "profev.h"
#include "profev_vulkan.h"
#undef PROFEV_GPU_MAX_CONTEXTS /* profev_trace.h's is the same, unsigned */
#include "profev_record.h"
#include "profev_trace.h"

PROFEV_CATEGORY(gpu, "GPU work");

/* ---- the fake device ------------------------------------------------------ */

#define GPU_OFFSET 123456789ull
#define NQ_MAX 1024
#define CMDS_MAX 4096

struct VkCommandBuffer_T {
	int n;
	struct { int reset; uint32_t first, count; } c[CMDS_MAX];
};
struct VkQueryPool_T {
	uint32_t n;
	uint64_t value[NQ_MAX + 1];
	int avail[NQ_MAX + 1];
};

static struct VkQueryPool_T pool;
static struct VkCommandBuffer_T *pending[64];
static int npending, deferred, calls, domains; /* domains: 0 none, 1 MONOTONIC, 2 RAW */

static uint64_t clk(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t gpu_now(void)
{
	return clk(CLOCK_MONOTONIC) / 2 + GPU_OFFSET;
}

static void run(struct VkCommandBuffer_T *cb)
{
	for (int i = 0; i < cb->n; i++)
		for (uint32_t q = cb->c[i].first; q < cb->c[i].first + cb->c[i].count; q++) {
			pool.avail[q] = !cb->c[i].reset;
			if (!cb->c[i].reset)
				pool.value[q] = gpu_now();
		}
}

static void gpu_run(void)
{
	for (int i = 0; i < npending; i++)
		run(pending[i]);
	npending = 0;
}

static VKAPI_ATTR void VKAPI_CALL props(VkPhysicalDevice p, VkPhysicalDeviceProperties *out)
{
	(void)p;
	calls++;
	memset(out, 0, sizeof *out);
	out->limits.timestampPeriod = 2.0f;
}

static VKAPI_ATTR VkResult VKAPI_CALL create_pool(VkDevice d, const VkQueryPoolCreateInfo *in,
						  const VkAllocationCallbacks *a, VkQueryPool *out)
{
	(void)d, (void)a;
	calls++;
	if (in->queryCount > NQ_MAX + 1 || in->queryType != VK_QUERY_TYPE_TIMESTAMP)
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	memset(&pool, 0, sizeof pool);
	pool.n = in->queryCount;
	*out = &pool;
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL destroy_pool(VkDevice d, VkQueryPool p, const VkAllocationCallbacks *a)
{
	(void)d, (void)a;
	calls++;
	CHECK(p == &pool);
	pool.n = 0;
}

static void cmd(VkCommandBuffer cb, int reset, uint32_t first, uint32_t count)
{
	CHECK(first + count <= pool.n);
	CHECK(cb->n < CMDS_MAX);
	if (cb->n < CMDS_MAX && first + count <= pool.n)
		cb->c[cb->n].reset = reset, cb->c[cb->n].first = first, cb->c[cb->n++].count = count;
}

static VKAPI_ATTR void VKAPI_CALL cmd_reset(VkCommandBuffer cb, VkQueryPool p, uint32_t first, uint32_t count)
{
	calls++;
	CHECK(p == &pool && count > 0);
	cmd(cb, 1, first, count);
}

static VKAPI_ATTR void VKAPI_CALL cmd_write(VkCommandBuffer cb, VkPipelineStageFlagBits stage, VkQueryPool p,
					    uint32_t q)
{
	(void)stage;
	calls++;
	CHECK(p == &pool);
	cmd(cb, 0, q, 1);
}

static VKAPI_ATTR VkResult VKAPI_CALL results(VkDevice d, VkQueryPool p, uint32_t first, uint32_t count, size_t size,
					      void *data, VkDeviceSize stride, VkQueryResultFlags flags)
{
	(void)d;
	calls++;
	CHECK(p == &pool && first + count <= pool.n && stride == 16 && size >= count * stride);
	CHECK(flags == (VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT));
	uint64_t *o = data;
	VkResult rc = VK_SUCCESS;
	for (uint32_t i = 0; i < count; i++) {
		o[2 * i + 1] = (uint64_t)pool.avail[first + i];
		if (pool.avail[first + i])
			o[2 * i] = pool.value[first + i];
		else
			rc = VK_NOT_READY;
	}
	return rc;
}

static VKAPI_ATTR VkResult VKAPI_CALL begin(VkCommandBuffer cb, const VkCommandBufferBeginInfo *in)
{
	(void)in;
	calls++;
	cb->n = 0;
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL end(VkCommandBuffer cb)
{
	(void)cb;
	calls++;
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL submit(VkQueue q, uint32_t n, const VkSubmitInfo *in, VkFence f)
{
	(void)q, (void)f;
	calls++;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < in[i].commandBufferCount; k++) {
			if (deferred && npending < 64)
				pending[npending++] = in[i].pCommandBuffers[k];
			else
				run(in[i].pCommandBuffers[k]);
		}
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL wait_idle(VkQueue q)
{
	(void)q;
	calls++;
	gpu_run();
	return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL time_domains(VkPhysicalDevice p, uint32_t *n, VkTimeDomainEXT *out)
{
	(void)p;
	calls++;
	VkTimeDomainEXT d[3] = { VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT, VK_TIME_DOMAIN_DEVICE_EXT,
				 domains == 1 ? VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT : VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT };
	uint32_t k = *n < 3 ? *n : 3;
	memcpy(out, d, k * sizeof *d);
	*n = k;
	return k < 3 ? VK_INCOMPLETE : VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL calibrated(VkDevice d, uint32_t n, const VkCalibratedTimestampInfoEXT *in,
						uint64_t *ts, uint64_t *dev)
{
	(void)d;
	calls++;
	for (uint32_t i = 0; i < n; i++)
		ts[i] = in[i].timeDomain == VK_TIME_DOMAIN_DEVICE_EXT ? gpu_now()
			: clk(in[i].timeDomain == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT ? CLOCK_MONOTONIC : CLOCK_MONOTONIC_RAW);
	*dev = 300;
	return VK_SUCCESS;
}

static struct profev_vk_functions fake(void)
{
	struct profev_vk_functions f = { props, create_pool, destroy_pool, cmd_reset, cmd_write, results,
					 begin, end, submit, wait_idle, NULL, NULL };
	if (domains) {
		f.GetPhysicalDeviceCalibrateableTimeDomainsEXT = time_domains;
		f.GetCalibratedTimestampsEXT = calibrated;
	}
	return f;
}

static VkPhysicalDevice PHYS = (VkPhysicalDevice)(uintptr_t)0x10;
static VkDevice DEV = (VkDevice)(uintptr_t)0x20;
static VkQueue QUEUE = (VkQueue)(uintptr_t)0x30;

/* ---- the traced side ------------------------------------------------------ */

static struct VkCommandBuffer_T cbs[8];

/* FRAMES frames, each "frame" holding "a" and "b" on its own command
 * buffer, collected at the start of the next; the GPU runs at once, or
 * (deferred) two frames late. Prints issued and lost counts. */
static int frames(struct profev_vk *vk, int n, int defer)
{
	deferred = defer;
	for (int f = 0; f < n; f++) {
		/* 100 us between frames: a query read before its reset ran holds a
		 * time at least that much before the zone now in its slot was
		 * recorded, far beyond the clocks' conversion error (SLACK). */
		uint64_t t = clk(CLOCK_MONOTONIC);
		while (clk(CLOCK_MONOTONIC) < t + 100000)
			;
		VkCommandBuffer cb = &cbs[f % 8];
		begin(cb, NULL);
		profev_vk_collect(vk, cb);
		{
			PROFEV_VK_ZONE(vk, cb, gpu, "frame");
			PROFEV_VK_ZONE_BEGIN(vk, cb, gpu, "a");
			PROFEV_VK_ZONE_END(vk);
			profev_vk_zone_begin_dyn(vk, cb, "b-dynamic", 1);
			PROFEV_VK_ZONE_END(vk);
		}
		end(cb);
		VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cb, 0, NULL };
		submit(QUEUE, 1, &si, VK_NULL_HANDLE);
		if (defer && npending > 2) {
			/* The oldest runs: the GPU two frames behind. */
			run(pending[0]);
			memmove(pending, pending + 1, (size_t)--npending * sizeof *pending);
		}
		PROFEV_COUNTER(gpu, "collected", (double)profev_vk_collected(vk));
	}
	gpu_run();
	VkCommandBuffer cb = &cbs[7];
	begin(cb, NULL);
	profev_vk_collect(vk, cb);
	PROFEV_COUNTER(gpu, "collected", (double)profev_vk_collected(vk));
	return 0;
}

static struct profev_vk *make(const char *name, uint32_t nq)
{
	struct profev_vk_functions f = fake();
	begin(&cbs[0], NULL);
	return profev_vk_new_ring(name, &f, PHYS, DEV, QUEUE, &cbs[0], nq);
}

static int child(const char *what)
{
	if (!strcmp(what, "inactive")) {
		/* Not recorded: a handle that makes no Vulkan call at all. */
		domains = 1;
		struct profev_vk_functions f = fake();
		calls = 0;
		struct profev_vk *vk = profev_vk_new("x", &f, PHYS, DEV, QUEUE, &cbs[0]);
		if (!vk || vk->ctx >= 0 || profev_vk_calibrated(vk))
			return 1;
		frames(vk, 3, 0);
		profev_vk_free(vk);
		return calls == 3 * 3 + 1 ? 0 : 2; /* the test's own begin/end/submit only */
	}
	domains = !strcmp(what, "raw") ? 2 : !strcmp(what, "wait") ? 0 : 1;
	profev_thread_name("render");
	int small = !strcmp(what, "small");
	struct profev_vk *vk = make(what, small ? 8 : 256);
	if (!vk || vk->ctx < 0 || profev_vk_calibrated(vk) != (domains != 0))
		return 3;
	profev_vk_name(vk, what, strlen(what));
	if (!strcmp(what, "deep")) {
		/* 70 nested zones: the 6 innermost are lost. */
		begin(&cbs[1], NULL);
		for (int i = 0; i < 70; i++)
			PROFEV_VK_ZONE_BEGIN(vk, &cbs[1], gpu, "deep");
		for (int i = 0; i < 70; i++)
			PROFEV_VK_ZONE_END(vk);
		VkCommandBuffer c1 = &cbs[1];
		VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &c1, 0, NULL };
		submit(QUEUE, 1, &si, VK_NULL_HANDLE);
		profev_vk_collect(vk, &cbs[2]);
	} else {
		frames(vk, 40, small || !strcmp(what, "wait"));
	}
	profev_vk_free(vk);
	return pool.n == 0 ? 0 : 4;
}

/* ---- the recording side --------------------------------------------------- */

/* What the CPU times of a record and of a GPU tick may differ by, beyond
 * the calibration's error: profev's ticks turned into ns (under qemu, too). */
#define SLACK 10000

struct zone {
	char name[16];
	uint64_t b, e, cpu;
};
static struct zone zs[512];
static size_t nz;
static struct profev_reader *rd;

static void on_zones(void *arg, const struct profev_gpu_zone *z, size_t n)
{
	(void)arg;
	for (size_t i = 0; i < n && nz < 512; i++, nz++) {
		snprintf(zs[nz].name, sizeof zs[nz].name, "%s", profev_reader_string(rd, z[i].name));
		zs[nz].b = z[i].begin_ns, zs[nz].e = z[i].end_ns, zs[nz].cpu = z[i].cpu_ns;
		CHECK_EQ(z[i].flags, 0);
	}
}

/* Records scenario what; returns its context (a copy), zones in zs. */
static struct profev_gpu_context record(const char *what, int *status)
{
	char path[] = "/tmp/t_vulkan.XXXXXX";
	int fd = mkstemp(path);
	char *argv[] = { "/proc/self/exe", (char *)what, NULL };
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = fd;
	o.child_stdout = -1;
	struct profev_error err;
	struct profev_record_result res;
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	CHECK(r != NULL);
	int rc = r ? profev_recorder_run(r, &res) : -1;
	profev_recorder_free(r);
	close(fd);
	CHECK_EQ(rc, 0);
	*status = rc ? -1 : res.status;
	struct profev_gpu_context c = { 0 };
	FILE *f = fopen(path, "rb");
	nz = 0;
	rd = f ? profev_reader_new(f, &err) : NULL;
	CHECK(rd != NULL);
	if (rd) {
		profev_reader_on_gpu_zones(rd, on_zones, NULL);
		struct profev_event ev;
		struct profev_event_info in;
		while (profev_reader_next_event(rd, &ev, &in) > 0)
			;
		const struct profev_gpu_context *g = profev_reader_gpu_context(rd, 0);
		CHECK(g != NULL);
		if (g) {
			c = *g;
			CHECK_STR(profev_reader_string(rd, g->name), what);
			CHECK_EQ(g->kind, PROFEV_GPU_VULKAN);
			CHECK(g->period_ns == 2.0);
		}
		CHECK(profev_reader_gpu_context(rd, 1) == NULL);
		profev_reader_free(rd);
	}
	if (f)
		fclose(f);
	unlink(path);
	return c;
}

/* The zones are frame, a, b per frame, nested, each placed after it was
 * recorded (the GPU ran them later) and within the calibration's error. */
static void check_frames(size_t want, uint64_t error)
{
	CHECK_EQ(nz, want);
	for (size_t i = 0; i < nz; i++) {
		const char *w = i % 3 == 0 ? "frame" : i % 3 == 1 ? "a" : "b";
		CHECK_STR(zs[i].name, w);
		CHECK(zs[i].b <= zs[i].e);
		CHECK(zs[i].b + error + SLACK >= zs[i].cpu);
		if (i % 3) {
			CHECK(zs[i].b >= zs[i - i % 3].b && zs[i].e <= zs[i - i % 3].e);
		}
		if (i % 3 == 2)
			CHECK(zs[i].b >= zs[i - 1].e);
	}
}

static void test_calibrations(void)
{
	int st;
	struct profev_gpu_context c = record("mono", &st);
	CHECK_EQ(st, 0);
	CHECK_EQ(c.error_ns, 300);
	CHECK_EQ(c.calibrations, 1 + 41); /* the set-up's and each collect's */
	CHECK_EQ(c.lost, 0);
	CHECK_EQ(c.bad_calibrations, 0);
	check_frames(120, 300);

	c = record("raw", &st);
	CHECK_EQ(st, 0);
	CHECK(c.error_ns > 300 && c.error_ns < 300 + 1000000); /* the bridge to CLOCK_MONOTONIC adds */
	CHECK_EQ(c.calibrations, 42);
	check_frames(120, c.error_ns);

	c = record("wait", &st);
	CHECK_EQ(st, 0);
	CHECK(c.error_ns >= 1);
	CHECK_EQ(c.calibrations, 1); /* written and waited for once */
	check_frames(120, c.error_ns);
}

static void test_lost(void)
{
	int st;
	/* 8 queries, the GPU two frames behind: most frames find the ring
	 * full; each zone is collected or lost, and none read from a query
	 * whose reset had not run (its times would lie before its recording). */
	struct profev_gpu_context c = record("small", &st);
	CHECK_EQ(st, 0);
	CHECK(c.lost > 0);
	CHECK(nz > 0);
	CHECK_EQ(nz + c.lost, 120);
	for (size_t i = 0; i < nz; i++) {
		CHECK(zs[i].b + SLACK >= zs[i].cpu);
		CHECK(zs[i].b <= zs[i].e);
	}
	c = record("deep", &st);
	CHECK_EQ(st, 0);
	CHECK_EQ(nz, 64);
	CHECK_EQ(c.lost, 6);
	for (size_t i = 1; i < nz; i++)
		CHECK(zs[i].b >= zs[i - 1].b && zs[i].e <= zs[i - 1].e);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return child(argv[1]);
	CHECK_EQ(child("inactive"), 0);
	test_calibrations();
	test_lost();
	return CHECK_DONE();
}
#endif
