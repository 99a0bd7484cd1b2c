/* tracy-vk.cpp's program written with profev's own Vulkan API (test 149). */
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <string.h>
#include <profev_vulkan.h>
#include "vk-start.h"
PROFEV_CATEGORY(tracy, "the Tracy layer's category, here by hand");

int main(void)
{
	if (vk_start())
		return 3;
	struct profev_vk_functions fn;
	if (profev_vk_functions_load(&fn, vk_inst, vk_dev, vkGetInstanceProcAddr, vk_calibrated))
		return 1;
	struct profev_vk *vk = profev_vk_new("Vulkan", &fn, vk_phys, vk_dev, vk_queue, vk_cmd);
	profev_vk_name(vk, "queue", 5);
	char pass[16];
	for (int f = 0; f < 20; f++) {
		PROFEV_ZONE(tracy, "frame");
		vk_begin();
		profev_vk_collect(vk, vk_cmd);
		{
			PROFEV_VK_ZONE(vk, vk_cmd, tracy, "frame");
			{
				PROFEV_VK_ZONE(vk, vk_cmd, tracy, "fill");
				vk_fill((uint32_t)f);
			}
			snprintf(pass, sizeof pass, "pass-%d", f % 2);
			profev_vk_zone_begin_dyn(vk, vk_cmd, pass, strlen(pass));
			PROFEV_VK_ZONE_BEGIN(vk, vk_cmd, tracy, "again");
			vk_fill((uint32_t)f + 1);
			PROFEV_VK_ZONE_END(vk);
			PROFEV_VK_ZONE_END(vk);
		}
		vk_submit();
		PROFEV_FRAME_MARK();
	}
	vk_begin();
	profev_vk_collect(vk, vk_cmd);
	vk_submit();
	profev_vk_free(vk);
	return 0;
}
