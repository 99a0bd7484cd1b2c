/*
 * bench_gpu - what a GPU zone costs the CPU, against the bare timestamp
 * calls it needs, on Mesa's software drivers (llvmpipe through EGL's
 * surfaceless platform, lavapipe through libvulkan.so.1):
 *
 *   - a GL zone (PROFEV_GL_ZONE, begin and end) against two bare
 *     glQueryCounter calls, and a Vulkan zone (PROFEV_VK_ZONE) against two
 *     bare vkCmdWriteTimestamp calls, timed in the same process: best of
 *     the bursts, per zone;
 *   - the collect's cost per zone it reads (GL, Vulkan), the GPU idle;
 *   - the calibrations' stated error: GL_TIMESTAMP between two clock
 *     reads, VK_EXT_calibrated_timestamps' deviation, and write-and-wait's
 *     half wait (median of the readings);
 *   - bytes per GPU zone on disk: the trace with the zones' category on,
 *     less the same run with it off, over the zones.
 *
 * Each figure is the median (and range) over 5 recorded processes
 * (PROFEV_BENCH_TINY=1: one, with small bursts). A device that cannot be
 * opened cannot be measured: the benchmark says why and fails.
 *
 *   bench_gpu           print the table
 */
#define _GNU_SOURCE
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "profev.h"
#include "profev_gl.h"
#if defined(__has_include)
#if __has_include(<vulkan/vulkan.h>)
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>
#include "profev_vulkan.h"
#define HAVE_VULKAN 1
#endif
#endif
#undef PROFEV_GPU_MAX_CONTEXTS /* profev_trace.h's is the same, unsigned */
#include "profev_record.h"
#include "profev_trace.h"

PROFEV_CATEGORY(gpu, "the measured zones");

enum { GL_ZONE, GL_BARE, GL_COLLECT, GL_ERROR, VK_ZONE, VK_BARE, VK_COLLECT, VK_ERROR, VK_WAIT_ERROR, GL_ZONES,
       VK_ZONES, NFIG };
static const char *fig_name[NFIG] = { "gl_zone", "gl_bare", "gl_collect", "gl_error", "vk_zone", "vk_bare",
				      "vk_collect", "vk_error", "vk_wait_error", "gl_zones", "vk_zones" };
static int burst = 1000, bursts = 200;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the measured child: "NAME VALUE" lines ------------------------------- */

static int gl_start(void)
{
	PFNEGLGETPLATFORMDISPLAYEXTPROC get =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	EGLDisplay d = get ? get(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL) : EGL_NO_DISPLAY;
	EGLint major, minor, n = 0;
	static const EGLint cfg_attr[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
					   EGL_NONE };
	static const EGLint ctx_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
					   EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
					   EGL_NONE };
	EGLConfig cfg;
	if (d == EGL_NO_DISPLAY || !eglInitialize(d, &major, &minor) || !eglBindAPI(EGL_OPENGL_API) ||
	    !eglChooseConfig(d, cfg_attr, &cfg, 1, &n) || n < 1)
		return -1;
	EGLContext c = eglCreateContext(d, cfg, EGL_NO_CONTEXT, ctx_attr);
	return c != EGL_NO_CONTEXT && eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c) ? 0 : -1;
}

static void measure_gl(void)
{
	if (gl_start()) {
		fprintf(stderr, "bench_gpu: no EGL device with a GL 3.3 context (llvmpipe: libgl1-mesa-dri)\n");
		return;
	}
	struct profev_gl *gl = profev_gl_new("GL");
	if (!gl || gl->ctx < 0)
		return;
	GLuint *bare = calloc(2 * (size_t)burst, sizeof *bare);
	glGenQueries(2 * burst, bare);
	double zone = 1e9, base = 1e9, collect = 1e9;
	uint64_t zones = 0;
	for (int b = 0; b < bursts; b++) {
		uint64_t t0 = now_ns();
		for (int i = 0; i < burst; i++) {
			PROFEV_GL_ZONE(gl, gpu, "z");
		}
		uint64_t t1 = now_ns();
		for (int i = 0; i < 2 * burst; i++)
			glQueryCounter(bare[i], GL_TIMESTAMP);
		uint64_t t2 = now_ns();
		glFinish();
		uint64_t before = profev_gl_collected(gl);
		uint64_t t3 = now_ns();
		profev_gl_collect(gl);
		uint64_t t4 = now_ns();
		uint64_t read = profev_gl_collected(gl) - before;
		zones += read;
		if ((double)(t1 - t0) / burst < zone)
			zone = (double)(t1 - t0) / burst;
		if ((double)(t2 - t1) / burst < base)
			base = (double)(t2 - t1) / burst;
		if (read && (double)(t4 - t3) / (double)read < collect)
			collect = (double)(t4 - t3) / (double)read;
	}
	double err[101];
	for (int i = 0; i < 101; i++) {
		uint64_t g, c;
		uint32_t e;
		profev__gl_calibration(&g, &c, &e);
		err[i] = e;
	}
	printf("gl_zone %.2f\ngl_bare %.2f\ngl_collect %.2f\ngl_error %.0f\ngl_zones %llu\n", zone, base, collect,
	       median(err, 101), (unsigned long long)zones);
	glDeleteQueries(2 * burst, bare);
	free(bare);
	profev_gl_free(gl);
}

#ifdef HAVE_VULKAN
#define VKF(X) \
	X(vkCreateInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceQueueFamilyProperties) \
	X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) X(vkGetDeviceProcAddr) X(vkDestroyInstance)
#define VKD(X) \
	X(vkGetDeviceQueue) X(vkCreateCommandPool) X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) \
	X(vkEndCommandBuffer) X(vkResetCommandBuffer) X(vkQueueSubmit) X(vkQueueWaitIdle) X(vkCreateQueryPool) \
	X(vkDestroyQueryPool) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp) X(vkDestroyCommandPool) X(vkDestroyDevice)
#define DECL(f) static PFN_##f f;
VKF(DECL)
VKD(DECL)

static void vk_submit(VkQueue q, VkCommandBuffer cmd)
{
	VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cmd, 0, NULL };
	vkEndCommandBuffer(cmd);
	vkQueueSubmit(q, 1, &si, VK_NULL_HANDLE);
	vkQueueWaitIdle(q);
}

static void vk_begin(VkCommandBuffer cmd)
{
	VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
					VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL };
	vkResetCommandBuffer(cmd, 0);
	vkBeginCommandBuffer(cmd, &bi);
}

static void measure_vk(void)
{
	void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	PFN_vkGetInstanceProcAddr gipa = lib ? (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr") : NULL;
	if (!gipa) {
		fprintf(stderr, "bench_gpu: no libvulkan.so.1 (libvulkan1)\n");
		return;
	}
	vkCreateInstance = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
	VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "bench", 1, "profev", 1, VK_API_VERSION_1_1 };
	VkInstanceCreateInfo ii = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL };
	VkInstance inst;
	if (!vkCreateInstance || vkCreateInstance(&ii, NULL, &inst) != VK_SUCCESS) {
		fprintf(stderr, "bench_gpu: no Vulkan instance\n");
		return;
	}
#define LOADI(f) f = (PFN_##f)gipa(inst, #f);
	VKF(LOADI)
	VkPhysicalDevice phys;
	uint32_t n = 1, nqf = 16, family = 0, next = 256;
	VkQueueFamilyProperties qf[16];
	VkResult rc = vkEnumeratePhysicalDevices(inst, &n, &phys);
	if ((rc != VK_SUCCESS && rc != VK_INCOMPLETE) || n < 1) {
		fprintf(stderr, "bench_gpu: no Vulkan device (lavapipe: mesa-vulkan-drivers)\n");
		return;
	}
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nqf, qf);
	while (family < nqf && !((qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT) && qf[family].timestampValidBits))
		family++;
	VkExtensionProperties ext[256];
	int calibrated = 0;
	vkEnumerateDeviceExtensionProperties(phys, NULL, &next, ext);
	for (uint32_t i = 0; i < next && i < 256; i++)
		calibrated |= !strcmp(ext[i].extensionName, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	const char *names[] = { VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME };
	float prio = 1;
	VkDeviceQueueCreateInfo qi = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, family, 1, &prio };
	VkDeviceCreateInfo di = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &qi, 0, NULL, (uint32_t)calibrated,
				  names, NULL };
	VkDevice dev;
	if (family == nqf || vkCreateDevice(phys, &di, NULL, &dev) != VK_SUCCESS) {
		fprintf(stderr, "bench_gpu: no Vulkan device with a compute queue that writes timestamps\n");
		return;
	}
#define LOADD(f) f = (PFN_##f)vkGetDeviceProcAddr(dev, #f);
	VKD(LOADD)
	VkQueue q;
	vkGetDeviceQueue(dev, family, 0, &q);
	VkCommandPoolCreateInfo cpi = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
					VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family };
	VkCommandPool pool;
	VkCommandBuffer cmd;
	vkCreateCommandPool(dev, &cpi, NULL, &pool);
	VkCommandBufferAllocateInfo cai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
					    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1 };
	vkAllocateCommandBuffers(dev, &cai, &cmd);
	struct profev_vk_functions fn;
	if (profev_vk_functions_load(&fn, inst, dev, gipa, calibrated)) {
		fprintf(stderr, "bench_gpu: the loader lacks an entry point\n");
		return;
	}
	/* Write-and-wait's error: five contexts without the extension's
	 * functions, named "wait"; the parent reads their errors in the trace. */
	for (int i = 0; i < 5; i++) {
		struct profev_vk_functions plain = fn;
		plain.GetCalibratedTimestampsEXT = NULL;
		vkResetCommandBuffer(cmd, 0);
		profev_vk_free(profev_vk_new_ring("wait", &plain, phys, dev, q, cmd, 4));
	}
	vkResetCommandBuffer(cmd, 0);
	struct profev_vk *vk = profev_vk_new("Vulkan", &fn, phys, dev, q, cmd);
	if (!vk || vk->ctx < 0) {
		fprintf(stderr, "bench_gpu: no Vulkan GPU context\n");
		return;
	}
	VkQueryPoolCreateInfo qpi = { VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP,
				      2 * (uint32_t)burst, 0 };
	VkQueryPool bare;
	vkCreateQueryPool(dev, &qpi, NULL, &bare);
	double zone = 1e9, base = 1e9, collect = 1e9;
	uint64_t zones = 0;
	for (int b = 0; b < bursts; b++) {
		vk_begin(cmd);
		vkCmdResetQueryPool(cmd, bare, 0, 2 * (uint32_t)burst);
		uint64_t t0 = now_ns();
		for (int i = 0; i < burst; i++) {
			PROFEV_VK_ZONE(vk, cmd, gpu, "z");
		}
		uint64_t t1 = now_ns();
		for (int i = 0; i < 2 * burst; i++)
			fn.CmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, bare, (uint32_t)i);
		uint64_t t2 = now_ns();
		vk_submit(q, cmd);
		vk_begin(cmd);
		uint64_t before = profev_vk_collected(vk);
		uint64_t t3 = now_ns();
		profev_vk_collect(vk, cmd);
		uint64_t t4 = now_ns();
		vk_submit(q, cmd);
		uint64_t read = profev_vk_collected(vk) - before;
		zones += read;
		if ((double)(t1 - t0) / burst < zone)
			zone = (double)(t1 - t0) / burst;
		if ((double)(t2 - t1) / burst < base)
			base = (double)(t2 - t1) / burst;
		if (read && (double)(t4 - t3) / (double)read < collect)
			collect = (double)(t4 - t3) / (double)read;
	}
	double err[101];
	for (int i = 0; i < 101; i++) {
		uint64_t g = 0, c = 0, d = 0;
		err[i] = profev_vk_calibrated(vk) && !profev__vk_calibrated(vk, &g, &c, &d) ? (double)d : -1;
	}
	printf("vk_zone %.2f\nvk_bare %.2f\nvk_collect %.2f\nvk_error %.0f\nvk_zones %llu\n", zone, base, collect,
	       median(err, 101), (unsigned long long)zones);
	vkDestroyQueryPool(dev, bare, NULL);
	profev_vk_free(vk);
	vkDestroyCommandPool(dev, pool, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
}
#endif

static int child(void)
{
	if (!profev_active())
		return 4;
	measure_gl();
#ifdef HAVE_VULKAN
	measure_vk();
#else
	fprintf(stderr, "bench_gpu: built without <vulkan/vulkan.h> (libvulkan-dev)\n");
#endif
	return 0;
}

/* ---- the recording side --------------------------------------------------- */

/* Records one child; its figures into v (NAN where absent), the trace's
 * size and write-and-wait's error from the trace into *size, *werr. */
static int record(const char *self, const char *categories, double v[NFIG], double *size, double *werr)
{
	char out[] = "/tmp/bench_gpu.out.XXXXXX", trace[] = "/tmp/bench_gpu.bin.XXXXXX";
	int ofd = mkstemp(out), tfd = mkstemp(trace);
	char *argv[] = { (char *)self, "child", NULL };
	struct profev_record_opts o = { 0 };
	o.argv = argv;
	o.out_fd = tfd;
	o.categories = categories;
	o.child_stdout = ofd;
	struct profev_error err;
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	struct profev_record_result res;
	int rc = r ? profev_recorder_run(r, &res) : -1;
	profev_recorder_free(r);
	close(ofd);
	struct stat st;
	*size = fstat(tfd, &st) ? -1 : (double)st.st_size;
	close(tfd);
	for (int i = 0; i < NFIG; i++)
		v[i] = -1;
	FILE *f = fopen(out, "r");
	char name[32];
	double x;
	while (f && fscanf(f, "%31s %lf", name, &x) == 2)
		for (int i = 0; i < NFIG; i++)
			if (!strcmp(name, fig_name[i]))
				v[i] = x;
	if (f)
		fclose(f);
	/* The write-and-wait contexts are those named "wait". */
	*werr = -1;
	FILE *t = fopen(trace, "rb");
	struct profev_reader *rd = t ? profev_reader_new(t, &err) : NULL;
	if (rd) {
		struct profev_event ev;
		struct profev_event_info in;
		while (profev_reader_next_event(rd, &ev, &in) > 0)
			;
		double e[PROFEV_GPU_MAX_CONTEXTS];
		int ne = 0;
		for (uint32_t i = 0; i < PROFEV_GPU_MAX_CONTEXTS; i++) {
			const struct profev_gpu_context *c = profev_reader_gpu_context(rd, i);
			if (c && !strcmp(profev_reader_string(rd, c->name), "wait"))
				e[ne++] = (double)c->error_ns;
		}
		if (ne)
			*werr = median(e, ne);
		profev_reader_free(rd);
	}
	if (t)
		fclose(t);
	unlink(out);
	unlink(trace);
	return rc < 0 || res.status != 0 ? -1 : 0;
}

static const char *self_path(void)
{
	static char p[4096];
	ssize_t n = readlink("/proc/self/exe", p, sizeof p - 1);
	if (n <= 0)
		return NULL;
	p[n] = 0;
	return p;
}

/* "median (min-max)" of the n values of figure k (absent: -1). */
static int figure(double v[][NFIG], int n, int k, double *med, double *lo, double *hi)
{
	double x[16];
	int m = 0;
	for (int i = 0; i < n; i++)
		if (v[i][k] >= 0)
			x[m++] = v[i][k];
	if (m < n)
		return -1;
	*med = median(x, m);
	*lo = x[0];
	*hi = x[m - 1];
	return 0;
}

int main(int argc, char **argv)
{
	if (bench_tiny())
		burst = 100, bursts = 5;
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	const char *self = self_path();
	int runs = bench_tiny() ? 1 : 5;
	double v[5][NFIG], off[NFIG], size[5], size_off, werr[5], w;
	for (int i = 0; i < runs; i++) {
		if (!self || record(self, NULL, v[i], &size[i], &werr[i])) {
			bench_cannot("GPU zones", "the recorded child failed");
			return 1;
		}
		v[i][VK_WAIT_ERROR] = werr[i];
	}
	if (record(self, "-gpu", off, &size_off, &w)) {
		bench_cannot("bytes per GPU zone", "the recorded child failed");
		return 1;
	}
	printf("| what (median [range] of %d processes) | profev | baseline, same run | ratio |\n", runs);
	printf("|---|---|---|---|\n");
	static const struct { int k, base; const char *what, *base_what; } rows[] = {
		{ GL_ZONE, GL_BARE, "GL zone, begin and end (llvmpipe), ns", "2 glQueryCounter" },
		{ VK_ZONE, VK_BARE, "Vulkan zone, begin and end (lavapipe), ns", "2 vkCmdWriteTimestamp" },
		{ GL_COLLECT, -1, "GL collect, per zone read, ns", "" },
		{ VK_COLLECT, -1, "Vulkan collect, per zone read, ns", "" },
		{ GL_ERROR, -1, "GL_TIMESTAMP calibration's stated error, ns", "" },
		{ VK_ERROR, -1, "VK_EXT_calibrated_timestamps' stated error, ns", "" },
		{ VK_WAIT_ERROR, -1, "write-and-wait calibration's stated error, ns", "" },
	};
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		double m, lo, hi, bm, blo, bhi;
		if (figure(v, runs, rows[r].k, &m, &lo, &hi) || (rows[r].base >= 0 && figure(v, runs, rows[r].base, &bm, &blo, &bhi))) {
			bench_cannot(rows[r].what, "no device, or no figure from a child (its reason is above)");
			continue;
		}
		if (rows[r].base < 0) {
			printf("| %s | %.1f [%.1f–%.1f] | | |\n", rows[r].what, m, lo, hi);
			continue;
		}
		double ratio[5];
		for (int i = 0; i < runs; i++)
			ratio[i] = v[i][rows[r].k] / v[i][rows[r].base];
		double rm = median(ratio, runs);
		printf("| %s | %.1f [%.1f–%.1f] | %s: %.1f [%.1f–%.1f] | %.2f× [%.2f–%.2f] |\n", rows[r].what, m, lo, hi,
		       rows[r].base_what, bm, blo, bhi, rm, ratio[0], ratio[runs - 1]);
	}
	/* Bytes on disk: every zone recorded, less the run whose zones' category was off. */
	double zones = v[0][GL_ZONES] + v[0][VK_ZONES];
	if (v[0][GL_ZONES] < 0 || v[0][VK_ZONES] < 0 || zones <= 0 || size[0] <= size_off)
		bench_cannot("bytes per GPU zone", "no zones recorded, or the trace did not grow with them");
	else
		printf("| bytes per GPU zone on disk | %.2f | (%.0f zones: %.0f bytes against %.0f with their category off) | |\n",
		       (size[0] - size_off) / zones, zones, size[0], size_off);
	return bench_status();
}
