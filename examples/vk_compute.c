/*
 * vk_compute.c - a Vulkan compute pass a frame, with GPU zones.
 *
 * Particles move and light up an image, on the first Vulkan device (Mesa's
 * lavapipe where there is no GPU): per frame a GPU zone "frame" holding
 * three, one per dispatch: simulate (the particles move), shade (each
 * pixel lit by every particle) and post (a vignette). The image is read
 * from host-visible memory once the frame's fence signals and sent with
 * PROFEV_FRAME_IMAGE. The GPU zones are collected at the start of each
 * frame's command buffer; the counter "gpu zones collected" says how many
 * the collects read so far. The shader is examples/vk_compute.comp,
 * compiled to SPIR-V words at build time.
 *
 *   vk_compute [FRAMES [QUERIES [FIRST_COLLECT [wait]]]]
 *
 * QUERIES sizes the query ring (65536); FIRST_COLLECT is the first frame
 * that collects (0): a small ring and a late first collect make the ring
 * overflow, which loses zones and never waits. "wait" calibrates by
 * writing a timestamp and waiting for it, even where the device has
 * VK_EXT_calibrated_timestamps. The program loads libvulkan.so.1 itself
 * and passes its vkGetInstanceProcAddr to profev. Exits 3 when no Vulkan
 * device can be had, saying why.
 */
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <profev.h>
#include <profev_vulkan.h>
#include "vk_compute.spv.h"

PROFEV_CATEGORY(game, "game loop");
PROFEV_CATEGORY(render, "drawing");

#define W 320
#define H 180
#define PARTICLES 48

static PFN_vkGetInstanceProcAddr gipa;
/* The entry points this program calls, by their own names. */
#define VK_FUNCTIONS(X) \
	X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceQueueFamilyProperties) \
	X(vkGetPhysicalDeviceMemoryProperties) X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) \
	X(vkGetDeviceProcAddr) X(vkDestroyInstance)
#define VK_DEVICE_FUNCTIONS(X) \
	X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) \
	X(vkBindBufferMemory) X(vkMapMemory) X(vkCreateShaderModule) X(vkCreateDescriptorSetLayout) \
	X(vkCreatePipelineLayout) X(vkCreateComputePipelines) X(vkCreateDescriptorPool) \
	X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets) X(vkCreateCommandPool) \
	X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkResetCommandBuffer) \
	X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch) \
	X(vkCmdPipelineBarrier) X(vkQueueSubmit) X(vkCreateFence) X(vkWaitForFences) X(vkResetFences) \
	X(vkDeviceWaitIdle) X(vkDestroyDevice) X(vkDestroyBuffer) X(vkFreeMemory) X(vkDestroyShaderModule) \
	X(vkDestroyDescriptorSetLayout) X(vkDestroyPipelineLayout) X(vkDestroyPipeline) \
	X(vkDestroyDescriptorPool) X(vkDestroyCommandPool) X(vkDestroyFence)
#define DECLARE(f) static PFN_##f f;
VK_FUNCTIONS(DECLARE)
VK_DEVICE_FUNCTIONS(DECLARE)
static PFN_vkCreateInstance vkCreateInstance;

static int no_device(const char *why, VkResult rc)
{
	fprintf(stderr, "vk_compute: no Vulkan device: %s (VkResult %d)\n", why, (int)rc);
	return 3;
}

struct buffer {
	VkBuffer buf;
	VkDeviceMemory mem;
	void *map;
};

static int make_buffer(VkPhysicalDevice phys, VkDevice dev, VkDeviceSize size, struct buffer *b)
{
	VkBufferCreateInfo bi = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, size,
				  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_SHARING_MODE_EXCLUSIVE, 0, NULL };
	if (vkCreateBuffer(dev, &bi, NULL, &b->buf) != VK_SUCCESS)
		return -1;
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, b->buf, &req);
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	uint32_t t = 0;
	while (t < mp.memoryTypeCount && !((req.memoryTypeBits >> t & 1) && (mp.memoryTypes[t].propertyFlags & want) == want))
		t++;
	if (t == mp.memoryTypeCount)
		return -1;
	VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, t };
	if (vkAllocateMemory(dev, &ai, NULL, &b->mem) != VK_SUCCESS || vkBindBufferMemory(dev, b->buf, b->mem, 0) != VK_SUCCESS ||
	    vkMapMemory(dev, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map) != VK_SUCCESS)
		return -1;
	memset(b->map, 0, size);
	return 0;
}

struct push {
	uint32_t pass, frame, count, width, height;
};

static void dispatch(VkCommandBuffer cmd, VkPipelineLayout layout, struct push *p, uint32_t pass, uint32_t items)
{
	p->pass = pass;
	vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *p, p);
	vkCmdDispatch(cmd, (items + 63) / 64, 1, 1);
	VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
			       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT };
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
			     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 120;
	uint32_t queries = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : PROFEV_VK_QUERIES;
	int first_collect = argc > 3 ? atoi(argv[3]) : 0;
	int wait_calibration = argc > 4 && !strcmp(argv[4], "wait");
	profev_thread_name("main");

	void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib || !(gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr")))
		return no_device("libvulkan.so.1 cannot be loaded", VK_ERROR_INITIALIZATION_FAILED);
	vkCreateInstance = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
	VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vk_compute", 1, "profev", 1,
				  VK_API_VERSION_1_1 };
	VkInstanceCreateInfo ii = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL };
	VkInstance inst;
	VkResult rc = vkCreateInstance ? vkCreateInstance(&ii, NULL, &inst) : VK_ERROR_INITIALIZATION_FAILED;
	if (rc != VK_SUCCESS)
		return no_device("vkCreateInstance fails", rc);
#define LOAD(f) f = (PFN_##f)gipa(inst, #f);
	VK_FUNCTIONS(LOAD)
	VkPhysicalDevice phys;
	uint32_t n = 1;
	rc = vkEnumeratePhysicalDevices(inst, &n, &phys);
	if ((rc != VK_SUCCESS && rc != VK_INCOMPLETE) || n < 1)
		return no_device("no physical device", rc);
	VkQueueFamilyProperties qf[16];
	uint32_t nqf = 16, family = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nqf, qf);
	while (family < nqf && !((qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT) && qf[family].timestampValidBits))
		family++;
	if (family == nqf)
		return no_device("no compute queue with timestamps", VK_ERROR_FEATURE_NOT_PRESENT);
	/* VK_EXT_calibrated_timestamps, enabled where the device has it. */
	VkExtensionProperties ext[256];
	uint32_t next = 256;
	int calibrated = 0;
	vkEnumerateDeviceExtensionProperties(phys, NULL, &next, ext);
	for (uint32_t i = 0; i < next && i < 256; i++)
		calibrated |= !strcmp(ext[i].extensionName, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	calibrated &= !wait_calibration;
	const char *names[] = { VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME };
	float prio = 1;
	VkDeviceQueueCreateInfo qi = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, family, 1, &prio };
	VkDeviceCreateInfo di = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &qi, 0, NULL,
				  (uint32_t)calibrated, names, NULL };
	VkDevice dev;
	if ((rc = vkCreateDevice(phys, &di, NULL, &dev)) != VK_SUCCESS)
		return no_device("vkCreateDevice fails", rc);
#define LOAD_DEVICE(f) f = (PFN_##f)vkGetDeviceProcAddr(dev, #f);
	VK_DEVICE_FUNCTIONS(LOAD_DEVICE)
	VkQueue queue;
	vkGetDeviceQueue(dev, family, 0, &queue);

	struct buffer particles, image;
	if (make_buffer(phys, dev, PARTICLES * 16, &particles) || make_buffer(phys, dev, W * H * 4, &image)) {
		fprintf(stderr, "vk_compute: no host-visible buffer\n");
		return 1;
	}
	VkShaderModuleCreateInfo si = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, sizeof vk_compute_spv,
					vk_compute_spv };
	VkShaderModule shader;
	VkDescriptorSetLayoutBinding bind[2] = {
		{ 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
		{ 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
	};
	VkDescriptorSetLayoutCreateInfo dli = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 2, bind };
	VkDescriptorSetLayout dsl;
	VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct push) };
	VkPipelineLayoutCreateInfo pli = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &dsl, 1, &pcr };
	VkPipelineLayout layout;
	VkPipeline pipe;
	VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 };
	VkDescriptorPoolCreateInfo dpi = { VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 1, 1, &ps };
	VkDescriptorPool dpool;
	VkDescriptorSet set;
	VkCommandPoolCreateInfo cpi = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
					VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family };
	VkCommandPool cpool;
	VkCommandBuffer cmd;
	VkFenceCreateInfo fi = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };
	VkFence fence;
	if (vkCreateShaderModule(dev, &si, NULL, &shader) || vkCreateDescriptorSetLayout(dev, &dli, NULL, &dsl) ||
	    vkCreatePipelineLayout(dev, &pli, NULL, &layout) || vkCreateDescriptorPool(dev, &dpi, NULL, &dpool) ||
	    vkCreateCommandPool(dev, &cpi, NULL, &cpool) || vkCreateFence(dev, &fi, NULL, &fence)) {
		fprintf(stderr, "vk_compute: cannot make the pipeline's objects\n");
		return 1;
	}
	VkComputePipelineCreateInfo pi = { VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
					   { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
					     VK_SHADER_STAGE_COMPUTE_BIT, shader, "main", NULL },
					   layout, VK_NULL_HANDLE, -1 };
	VkDescriptorSetAllocateInfo dai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, dpool, 1, &dsl };
	VkCommandBufferAllocateInfo cai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, cpool,
					    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1 };
	if (vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &pi, NULL, &pipe) || vkAllocateDescriptorSets(dev, &dai, &set) ||
	    vkAllocateCommandBuffers(dev, &cai, &cmd)) {
		fprintf(stderr, "vk_compute: cannot make the pipeline\n");
		return 1;
	}
	VkDescriptorBufferInfo dbi[2] = { { particles.buf, 0, VK_WHOLE_SIZE }, { image.buf, 0, VK_WHOLE_SIZE } };
	VkWriteDescriptorSet wd = { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 0, 0, 2,
				    VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, dbi, NULL };
	vkUpdateDescriptorSets(dev, 1, &wd, 0, NULL);

	/* profev's context for the queue: its functions through our loader,
	 * the set-up on the command buffer the frames use after. */
	struct profev_vk_functions fn;
	if (profev_vk_functions_load(&fn, inst, dev, gipa, calibrated)) {
		fprintf(stderr, "vk_compute: the loader lacks an entry point profev calls\n");
		return 1;
	}
	struct profev_vk *vk = profev_vk_new_ring("compute", &fn, phys, dev, queue, cmd, queries);
	vkResetCommandBuffer(cmd, 0);
	struct push push = { 0, 0, PARTICLES, W, H };

	for (int f = 0; f < frames; f++) {
		PROFEV_ZONE(game, "frame");
		{
			PROFEV_ZONE(render, "record");
			VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
							VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL };
			vkBeginCommandBuffer(cmd, &bi);
			if (f >= first_collect) {
				PROFEV_ZONE(render, "collect");
				profev_vk_collect(vk, cmd);
			}
			PROFEV_COUNTER(render, "gpu zones collected", (double)profev_vk_collected(vk));
			vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
			vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
			push.frame = (uint32_t)f;
			PROFEV_VK_ZONE(vk, cmd, render, "frame");
			{
				PROFEV_VK_ZONE(vk, cmd, render, "simulate");
				dispatch(cmd, layout, &push, 0, PARTICLES);
			}
			{
				PROFEV_VK_ZONE(vk, cmd, render, "shade");
				dispatch(cmd, layout, &push, 1, W * H);
			}
			{
				PROFEV_VK_ZONE(vk, cmd, render, "post");
				dispatch(cmd, layout, &push, 2, W * H);
			}
		}
		vkEndCommandBuffer(cmd);
		VkSubmitInfo sub = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cmd, 0, NULL };
		{
			PROFEV_ZONE(render, "submit and wait");
			vkQueueSubmit(queue, 1, &sub, fence);
			vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
			vkResetFences(dev, 1, &fence);
		}
		PROFEV_FRAME_IMAGE(image.map, W, H, 0, 0);
		PROFEV_FRAME_MARK();
	}
	/* The last frame's zones, with a collect of their own. */
	VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
					VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL };
	vkBeginCommandBuffer(cmd, &bi);
	{
		PROFEV_ZONE(render, "collect");
		profev_vk_collect(vk, cmd);
	}
	PROFEV_COUNTER(render, "gpu zones collected", (double)profev_vk_collected(vk));
	vkEndCommandBuffer(cmd);
	VkSubmitInfo sub = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cmd, 0, NULL };
	vkQueueSubmit(queue, 1, &sub, fence);
	vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
	vkDeviceWaitIdle(dev);
	profev_vk_free(vk);

	vkDestroyFence(dev, fence, NULL);
	vkDestroyCommandPool(dev, cpool, NULL);
	vkDestroyPipeline(dev, pipe, NULL);
	vkDestroyDescriptorPool(dev, dpool, NULL);
	vkDestroyPipelineLayout(dev, layout, NULL);
	vkDestroyDescriptorSetLayout(dev, dsl, NULL);
	vkDestroyShaderModule(dev, shader, NULL);
	vkDestroyBuffer(dev, particles.buf, NULL);
	vkDestroyBuffer(dev, image.buf, NULL);
	vkFreeMemory(dev, particles.mem, NULL);
	vkFreeMemory(dev, image.mem, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
