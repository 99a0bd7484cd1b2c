// Tracy's Vulkan macros in the style of a Tracy-instrumented renderer
// (test 149): a calibrated context for the queue, named, per frame a zone
// holding a named one, a transient one and an S variant, collected at the
// start of each frame's command buffer. vk-native.c records the same with
// profev's API. TRACY_VK_USE_SYMBOL_TABLE builds the form that passes
// vkGetInstanceProcAddr and vkGetDeviceProcAddr.
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <tracy/Tracy.hpp>
#include <tracy/TracyVulkan.hpp>
#include "vk-start.h"

int main()
{
	if (vk_start())
		return 3;
#ifdef TRACY_VK_USE_SYMBOL_TABLE
	TracyVkCtx ctx = TracyVkContextCalibrated(vk_inst, vk_phys, vk_dev, vk_queue, vk_cmd, vkGetInstanceProcAddr,
						  vkGetDeviceProcAddr);
#else
	TracyVkCtx ctx = TracyVkContextCalibrated(vk_phys, vk_dev, vk_queue, vk_cmd, vk_domains, vk_timestamps);
#endif
	TracyVkContextName(ctx, "queue", 5);
	char pass[16];
	for (int f = 0; f < 20; f++) {
		ZoneScopedN("frame");
		vk_begin();
		TracyVkCollect(ctx, vk_cmd);
		{
			TracyVkZone(ctx, vk_cmd, "frame");
			{
				TracyVkZoneC(ctx, vk_cmd, "fill", 0xff0000);
				vk_fill((uint32_t)f);
			}
			snprintf(pass, sizeof pass, "pass-%d", f % 2);
			{
				TracyVkZoneTransient(ctx, t, vk_cmd, pass, true);
				TracyVkNamedZoneS(ctx, s, vk_cmd, "again", 8, true);
				vk_fill((uint32_t)f + 1);
			}
		}
		vk_submit();
		FrameMark;
	}
	vk_begin();
	TracyVkCollect(ctx, vk_cmd);
	vk_submit();
	TracyVkDestroy(ctx);
	return 0;
}
