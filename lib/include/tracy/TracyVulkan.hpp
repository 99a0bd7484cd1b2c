/*
 * tracy/TracyVulkan.hpp - Tracy's Vulkan GPU zones, recorded by profev
 * (<profev_vulkan.h>: timestamp queries in a ring, read back by
 * TracyVkCollect without waiting, VK_EXT_calibrated_timestamps or a
 * timestamp written and waited for at set-up).
 *
 * As with Tracy's header, include the Vulkan headers first. Without
 * TRACY_VK_USE_SYMBOL_TABLE the context calls Vulkan by the program's own
 * names (vkCreateQueryPool... : the program links libvulkan, or its loader
 * defines them, as volk does); with it, through the vkGetInstanceProcAddr
 * the program passes. A context is named "Vulkan" until
 * TracyVkContextName. Colors are not kept. The S variants record the zone
 * without the CPU callstack (a GPU zone has no place for one in profev's
 * trace): man profev-tracy(3). Without TRACY_ENABLE every macro is empty.
 */
#ifndef PROFEV_TRACY_VULKAN_HPP
#define PROFEV_TRACY_VULKAN_HPP

#ifndef TRACY_ENABLE

#define TracyVkContext(...) nullptr
#define TracyVkContextCalibrated(...) nullptr
#define TracyVkDestroy(ctx)
#define TracyVkContextName(ctx, name, size)
#define TracyVkNamedZone(ctx, varname, cmdbuf, name, active)
#define TracyVkNamedZoneC(ctx, varname, cmdbuf, name, color, active)
#define TracyVkZone(ctx, cmdbuf, name)
#define TracyVkZoneC(ctx, cmdbuf, name, color)
#define TracyVkZoneTransient(ctx, varname, cmdbuf, name, active)
#define TracyVkCollect(ctx, cmdbuf)
#define TracyVkNamedZoneS(ctx, varname, cmdbuf, name, depth, active)
#define TracyVkNamedZoneCS(ctx, varname, cmdbuf, name, color, depth, active)
#define TracyVkZoneS(ctx, cmdbuf, name, depth)
#define TracyVkZoneCS(ctx, cmdbuf, name, color, depth)
#define TracyVkZoneTransientS(ctx, varname, cmdbuf, name, depth, active)

namespace tracy {
class VkCtxScope {};
}
using TracyVkCtx = void *;

#else

#ifndef VK_NULL_HANDLE
#error "include the Vulkan headers before TracyVulkan.hpp"
#endif

#include <string.h>
#include "Tracy.hpp"
#include <profev_vulkan.h>

namespace tracy {

/* A queue's GPU context. */
class VkCtx {
public:
	struct profev_vk *vk;
	void Name(const char *name, uint16_t len) { profev_vk_name(vk, name, len); }
	void Collect(VkCommandBuffer cmdbuf) { profev_vk_collect(vk, cmdbuf); }
};

static inline VkCtx *CreateVkContext(const profev_vk_functions &fn, VkPhysicalDevice physdev, VkDevice device,
				     VkQueue queue, VkCommandBuffer cmdbuf)
{
	VkCtx *ctx = new VkCtx;
	ctx->vk = profev_vk_new("Vulkan", &fn, physdev, device, queue, cmdbuf);
	return ctx;
}

#ifdef TRACY_VK_USE_SYMBOL_TABLE
static inline VkCtx *CreateVkContext(VkInstance instance, VkPhysicalDevice physdev, VkDevice device, VkQueue queue,
				     VkCommandBuffer cmdbuf, PFN_vkGetInstanceProcAddr gipa,
				     PFN_vkGetDeviceProcAddr gdpa, bool calibrated = false)
{
	(void)gdpa; /* profev_vk_functions_load asks gipa for it */
	profev_vk_functions fn;
	if (profev_vk_functions_load(&fn, instance, device, gipa, calibrated))
		return new VkCtx{ nullptr }; /* records nothing */
	return CreateVkContext(fn, physdev, device, queue, cmdbuf);
}
#else
static inline VkCtx *CreateVkContext(VkPhysicalDevice physdev, VkDevice device, VkQueue queue, VkCommandBuffer cmdbuf,
				     PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT gpdctd,
				     PFN_vkGetCalibratedTimestampsEXT gct)
{
	profev_vk_functions fn = { vkGetPhysicalDeviceProperties, vkCreateQueryPool, vkDestroyQueryPool,
				   vkCmdResetQueryPool, vkCmdWriteTimestamp, vkGetQueryPoolResults,
				   vkBeginCommandBuffer, vkEndCommandBuffer, vkQueueSubmit, vkQueueWaitIdle,
				   gpdctd, gct };
	return CreateVkContext(fn, physdev, device, queue, cmdbuf);
}
#endif

static inline void DestroyVkContext(VkCtx *ctx)
{
	if (ctx)
		profev_vk_free(ctx->vk);
	delete ctx;
}

/* A GPU zone of a context on a command buffer, ended with its scope. */
class VkCtxScope {
	struct profev_vk *vk_;
public:
	VkCtxScope(VkCtx *ctx, profev_site *site, VkCommandBuffer cmdbuf, bool active)
		: vk_(active && ctx ? ctx->vk : nullptr)
	{
		profev__vk_begin(vk_, cmdbuf, &profev_cat_tracy, site);
	}
	/* A transient zone: its name made at run time. */
	VkCtxScope(VkCtx *ctx, const char *name, size_t len, VkCommandBuffer cmdbuf, bool active)
		: vk_(active && ctx ? ctx->vk : nullptr)
	{
		if (vk_)
			profev__vk_begin_id(vk_, cmdbuf, profev__on(&profev_cat_tracy) && vk_->ctx >= 0
								 ? profev_gpu_name(name, len) : 0);
	}
	~VkCtxScope() { profev_vk_zone_end(vk_); }
	VkCtxScope(const VkCtxScope &) = delete;
	VkCtxScope &operator=(const VkCtxScope &) = delete;
};

}

using TracyVkCtx = tracy::VkCtx *;

#ifdef TRACY_VK_USE_SYMBOL_TABLE
#define TracyVkContext(instance, physdev, device, queue, cmdbuf, instanceProcAddr, deviceProcAddr) \
	tracy::CreateVkContext(instance, physdev, device, queue, cmdbuf, instanceProcAddr, deviceProcAddr)
#define TracyVkContextCalibrated(instance, physdev, device, queue, cmdbuf, instanceProcAddr, deviceProcAddr) \
	tracy::CreateVkContext(instance, physdev, device, queue, cmdbuf, instanceProcAddr, deviceProcAddr, true)
#else
#define TracyVkContext(physdev, device, queue, cmdbuf) \
	tracy::CreateVkContext(physdev, device, queue, cmdbuf, nullptr, nullptr)
#define TracyVkContextCalibrated(physdev, device, queue, cmdbuf, gpdctd, gct) \
	tracy::CreateVkContext(physdev, device, queue, cmdbuf, gpdctd, gct)
#endif
#define TracyVkDestroy(ctx) tracy::DestroyVkContext(ctx)
#define TracyVkContextName(ctx, name, size) (ctx)->Name((name), (size))
#define PROFEV_TRACY__VK(ctx, var, cmdbuf, name, active, n) \
	PROFEV__SITE_OF(PROFEV__CAT(profev__tvsite_, n), &profev_cat_tracy, name, PROFEV__R_BEGIN); \
	::tracy::VkCtxScope var(ctx, &PROFEV__CAT(profev__tvsite_, n), cmdbuf, active)
#define TracyVkNamedZone(ctx, varname, cmdbuf, name, active) \
	PROFEV_TRACY__VK(ctx, varname, cmdbuf, name, active, __COUNTER__)
#define TracyVkNamedZoneC(ctx, varname, cmdbuf, name, color, active) \
	TracyVkNamedZone(ctx, varname, cmdbuf, name, active); (void)(color)
#define TracyVkZone(ctx, cmdbuf, name) TracyVkNamedZone(ctx, ___tracy_gpu_zone, cmdbuf, name, true)
#define TracyVkZoneC(ctx, cmdbuf, name, color) TracyVkNamedZoneC(ctx, ___tracy_gpu_zone, cmdbuf, name, color, true)
#define TracyVkZoneTransient(ctx, varname, cmdbuf, name, active) \
	::tracy::VkCtxScope varname(ctx, name, strlen(name), cmdbuf, active)
#define TracyVkCollect(ctx, cmdbuf) (ctx)->Collect(cmdbuf)
#define TracyVkNamedZoneS(ctx, varname, cmdbuf, name, depth, active) \
	TracyVkNamedZone(ctx, varname, cmdbuf, name, active); (void)(depth)
#define TracyVkNamedZoneCS(ctx, varname, cmdbuf, name, color, depth, active) \
	TracyVkNamedZoneC(ctx, varname, cmdbuf, name, color, active); (void)(depth)
#define TracyVkZoneS(ctx, cmdbuf, name, depth) TracyVkNamedZoneS(ctx, ___tracy_gpu_zone, cmdbuf, name, depth, true)
#define TracyVkZoneCS(ctx, cmdbuf, name, color, depth) \
	TracyVkNamedZoneCS(ctx, ___tracy_gpu_zone, cmdbuf, name, color, depth, true)
#define TracyVkZoneTransientS(ctx, varname, cmdbuf, name, depth, active) \
	TracyVkZoneTransient(ctx, varname, cmdbuf, name, active); (void)(depth)

#endif
#endif
