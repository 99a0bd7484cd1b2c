/*
 * tracy/profev_tracy_system.h - the thread functions of Tracy's
 * TracySystem.hpp, which exist with and without TRACY_ENABLE. With it the
 * name also goes into the trace; without it only the system hears of it
 * (15 bytes), as with Tracy, and nothing of profev is used.
 */
#ifndef PROFEV_TRACY_SYSTEM_H
#define PROFEV_TRACY_SYSTEM_H

#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef TRACY_ENABLE
extern "C" __attribute__((visibility("default"))) void ___tracy_set_thread_name(const char *name);
#endif

namespace tracy
{

inline void SetThreadName(const char *name)
{
#ifdef TRACY_ENABLE
	___tracy_set_thread_name(name);
#else
	prctl(PR_SET_NAME, name, 0, 0, 0);
#endif
}

inline void SetThreadNameWithHint(const char *name, int32_t groupHint)
{
	(void)groupHint;
	SetThreadName(name);
}

inline uint32_t GetThreadHandle() { return (uint32_t)syscall(SYS_gettid); }

/* The system's name of thread id of this process ("???" if unknown). */
inline const char *GetThreadName(uint32_t id)
{
	static __thread char buf[64];
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%u/comm", (unsigned)id);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	while (n && buf[n - 1] == '\n')
		n--;
	if (!n)
		return "???";
	buf[n] = 0;
	return buf;
}

}

#endif
