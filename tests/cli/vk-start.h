/* A Vulkan device with one queue that writes timestamps, for the Vulkan
 * tests (149), linked with libvulkan: vk_start() gives 0 or -1 with the
 * reason on stderr. VK_EXT_calibrated_timestamps is enabled where the
 * device has it (vk_calibrated). vk_fill() records real work: a fill of a
 * 4 MiB buffer. vk_submit() submits the command buffer and waits for it. */
#include <stdio.h>
#include <string.h>
static VkInstance vk_inst;
static VkPhysicalDevice vk_phys;
static VkDevice vk_dev;
static VkQueue vk_queue;
static VkCommandBuffer vk_cmd;
static VkFence vk_fence;
static VkBuffer vk_buf;
static int vk_calibrated;
static PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT vk_domains;
static PFN_vkGetCalibratedTimestampsEXT vk_timestamps;

static int vk_start(void)
{
	VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "test", 1, "profev", 1, VK_API_VERSION_1_1 };
	VkInstanceCreateInfo ii = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL };
	uint32_t n = 1, nqf = 16, family = 0, next = 256;
	VkQueueFamilyProperties qf[16];
	if (vkCreateInstance(&ii, NULL, &vk_inst) != VK_SUCCESS || vkEnumeratePhysicalDevices(vk_inst, &n, &vk_phys) < 0 || n < 1) {
		fprintf(stderr, "no Vulkan device\n");
		return -1;
	}
	vkGetPhysicalDeviceQueueFamilyProperties(vk_phys, &nqf, qf);
	while (family < nqf && !((qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT) && qf[family].timestampValidBits))
		family++;
	VkExtensionProperties ext[256];
	vkEnumerateDeviceExtensionProperties(vk_phys, NULL, &next, ext);
	for (uint32_t i = 0; i < next && i < 256; i++)
		vk_calibrated |= !strcmp(ext[i].extensionName, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	const char *names[] = { VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME };
	float prio = 1;
	VkDeviceQueueCreateInfo qi = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, family, 1, &prio };
	VkDeviceCreateInfo di = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &qi, 0, NULL, (uint32_t)vk_calibrated, names, NULL };
	if (family == nqf || vkCreateDevice(vk_phys, &di, NULL, &vk_dev) != VK_SUCCESS) {
		fprintf(stderr, "no Vulkan device with a compute queue that writes timestamps\n");
		return -1;
	}
	if (vk_calibrated) {
		vk_domains = (PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT)vkGetInstanceProcAddr(
			vk_inst, "vkGetPhysicalDeviceCalibrateableTimeDomainsEXT");
		vk_timestamps = (PFN_vkGetCalibratedTimestampsEXT)vkGetDeviceProcAddr(vk_dev, "vkGetCalibratedTimestampsEXT");
	}
	vkGetDeviceQueue(vk_dev, family, 0, &vk_queue);
	VkCommandPoolCreateInfo cpi = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
					VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family };
	VkCommandPool pool;
	VkFenceCreateInfo fi = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };
	VkBufferCreateInfo bi = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, 4 << 20, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
				  VK_SHARING_MODE_EXCLUSIVE, 0, NULL };
	VkMemoryRequirements req;
	VkDeviceMemory mem;
	if (vkCreateCommandPool(vk_dev, &cpi, NULL, &pool) || vkCreateFence(vk_dev, &fi, NULL, &vk_fence) ||
	    vkCreateBuffer(vk_dev, &bi, NULL, &vk_buf)) {
		fprintf(stderr, "cannot make Vulkan objects\n");
		return -1;
	}
	VkCommandBufferAllocateInfo cai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
					    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1 };
	vkGetBufferMemoryRequirements(vk_dev, vk_buf, &req);
	uint32_t t = 0;
	while (t < 32 && !(req.memoryTypeBits >> t & 1))
		t++;
	VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, t };
	if (vkAllocateCommandBuffers(vk_dev, &cai, &vk_cmd) || vkAllocateMemory(vk_dev, &ai, NULL, &mem) ||
	    vkBindBufferMemory(vk_dev, vk_buf, mem, 0)) {
		fprintf(stderr, "cannot make Vulkan objects\n");
		return -1;
	}
	return 0;
}

static void vk_begin(void)
{
	VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
					VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL };
	vkResetCommandBuffer(vk_cmd, 0);
	vkBeginCommandBuffer(vk_cmd, &bi);
}

static void vk_fill(uint32_t value)
{
	vkCmdFillBuffer(vk_cmd, vk_buf, 0, VK_WHOLE_SIZE, value);
}

static void vk_submit(void)
{
	VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &vk_cmd, 0, NULL };
	vkEndCommandBuffer(vk_cmd);
	vkQueueSubmit(vk_queue, 1, &si, vk_fence);
	vkWaitForFences(vk_dev, 1, &vk_fence, VK_TRUE, UINT64_MAX);
	vkResetFences(vk_dev, 1, &vk_fence);
}
