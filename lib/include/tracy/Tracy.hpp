/*
 * tracy/Tracy.hpp - Tracy's C++ macros, recorded by profev.
 *
 * A program instrumented for Tracy (https://github.com/wolfpld/tracy)
 * builds unchanged against this header: define TRACY_ENABLE, compile with
 * `pkg-config --cflags profev-tracy` and link `pkg-config --libs
 * profev-tracy` instead of TracyClient.cpp; then run it under pfrec.
 * Without TRACY_ENABLE every macro is empty, as in Tracy, and nothing of
 * profev remains in the program.
 *
 * Zones, frame marks, plots, messages, memory events and thread names are
 * profev events (category "tracy"); ZoneScoped costs what PROFEV_ZONE does.
 * Macros profev has no equivalent for compile, type-check their arguments
 * where Tracy's do, and do nothing. man profev-tracy(3) says what maps to
 * what.
 */
#ifndef PROFEV_TRACY_HPP
#define PROFEV_TRACY_HPP

#include <stdint.h>
#include <stddef.h>
#include "TracyColor.hpp"
#include "profev_tracy_location.h"
#include "profev_tracy_system.h"

#ifndef TRACY_ENABLE

#define TracyNoop

#define ZoneNamed(x, y)
#define ZoneNamedN(x, y, z)
#define ZoneNamedC(x, y, z)
#define ZoneNamedNC(x, y, z, w)

#define ZoneTransient(x, y)
#define ZoneTransientN(x, y, z)
#define ZoneTransientNC(x, y, z, w)

#define ZoneScoped
#define ZoneScopedN(x)
#define ZoneScopedC(x)
#define ZoneScopedNC(x, y)

#define ZoneText(x, y)
#define ZoneTextV(x, y, z)
#define ZoneTextF(x, ...)
#define ZoneTextVF(x, y, ...)
#define ZoneName(x, y)
#define ZoneNameV(x, y, z)
#define ZoneNameF(x, ...)
#define ZoneNameVF(x, y, ...)
#define ZoneColor(x)
#define ZoneColorV(x, y)
#define ZoneValue(x)
#define ZoneValueV(x, y)
#define ZoneIsActive false
#define ZoneIsActiveV(x) false

#define FrameMark
#define FrameMarkNamed(x)
#define FrameMarkStart(x)
#define FrameMarkEnd(x)

#define FrameImage(x, y, z, w, a)

#define TracyLockable(type, varname) type varname
#define TracyLockableN(type, varname, desc) type varname
#define TracySharedLockable(type, varname) type varname
#define TracySharedLockableN(type, varname, desc) type varname
#define LockableBase(type) type
#define SharedLockableBase(type) type
#define LockMark(x) (void)x
#define LockableName(x, y, z)

#define TracyPlot(x, y)
#define TracyPlotConfig(x, y, z, w, a)

#define TracyMessage(x, y)
#define TracyMessageL(x)
#define TracyMessageC(x, y, z)
#define TracyMessageLC(x, y)
#define TracyAppInfo(x, y)

#define TracyAlloc(x, y)
#define TracyFree(x)
#define TracyMemoryDiscard(x)
#define TracySecureAlloc(x, y)
#define TracySecureFree(x)
#define TracySecureMemoryDiscard(x)

#define TracyAllocN(x, y, z)
#define TracyFreeN(x, y)
#define TracySecureAllocN(x, y, z)
#define TracySecureFreeN(x, y)

#define ZoneNamedS(x, y, z)
#define ZoneNamedNS(x, y, z, w)
#define ZoneNamedCS(x, y, z, w)
#define ZoneNamedNCS(x, y, z, w, a)

#define ZoneTransientS(x, y, z)
#define ZoneTransientNS(x, y, z, w)

#define ZoneScopedS(x)
#define ZoneScopedNS(x, y)
#define ZoneScopedCS(x, y)
#define ZoneScopedNCS(x, y, z)

#define TracyAllocS(x, y, z)
#define TracyFreeS(x, y)
#define TracyMemoryDiscardS(x, y)
#define TracySecureAllocS(x, y, z)
#define TracySecureFreeS(x, y)
#define TracySecureMemoryDiscardS(x, y)

#define TracyAllocNS(x, y, z, w)
#define TracyFreeNS(x, y, z)
#define TracySecureAllocNS(x, y, z, w)
#define TracySecureFreeNS(x, y, z)

#define TracyMessageS(x, y, z)
#define TracyMessageLS(x, y)
#define TracyMessageCS(x, y, z, w)
#define TracyMessageLCS(x, y, z)

#define TracySourceCallbackRegister(x, y)
#define TracyParameterRegister(x, y)
#define TracyParameterSetup(x, y, z, w)
#define TracyIsConnected false
#define TracyIsStarted false
#define TracySetProgramName(x)

#define TracyFiberEnter(x)
#define TracyFiberEnterHint(x, y)
#define TracyFiberLeave

#else /* TRACY_ENABLE */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "profev_tracy.h"

#define PROFEV_TRACY__AI __attribute__((always_inline)) inline

namespace tracy
{

/** A call site as Tracy describes it (name NULL: the function's name). */
struct SourceLocationData {
	const char *name;
	const char *function;
	const char *file;
	uint32_t line;
	uint32_t color;
};

/** TracyPlotConfig's formats; profev's counters have no format. */
enum class PlotFormatType : uint8_t { Number, Memory, Percentage, Watt };

/*
 * The runtime behind the macros, with Tracy's names and signatures so that
 * programs that call tracy::Profiler directly build too. Functions that get
 * a name or location by pointer look its site up (profev_tracy__site); the
 * macros use a static site per call site instead.
 */
class Profiler
{
public:
	static void SendFrameMark(const char *name) { profev_tracy__frame(name); }
	static void SendFrameMarkStart(const char *name) { profev_tracy__frame_edge(name, PROFEV__R_FRAME_START); }
	static void SendFrameMarkEnd(const char *name) { profev_tracy__frame_edge(name, PROFEV__R_FRAME_END); }
	/* A frame image, where <profev.h> has PROFEV_FRAME_IMAGE. */
	static void SendFrameImage(const void *image, uint16_t w, uint16_t h, uint8_t offset, bool flip)
	{
#ifdef PROFEV_FRAME_IMAGE
		PROFEV_FRAME_IMAGE(image, w, h, offset, flip);
#else
		(void)image; (void)w; (void)h; (void)offset; (void)flip;
#endif
	}
	static void PlotData(const char *name, int64_t val) { profev_tracy__plot(name, (double)val); }
	static void PlotData(const char *name, float val) { profev_tracy__plot(name, (double)val); }
	static void PlotData(const char *name, double val) { profev_tracy__plot(name, val); }
	static void ConfigurePlot(const char *name, PlotFormatType type, bool step = false, bool fill = true,
				  uint32_t color = 0)
	{
		(void)name; (void)type; (void)step; (void)fill; (void)color;
	}
	static void Message(const char *txt, size_t size, int32_t callstack_depth)
	{
		(void)callstack_depth;
		if (profev__on(&profev_cat_tracy))
			profev_tracy__message(&profev_cat_tracy, txt, size);
	}
	static void Message(const char *txt, int32_t callstack_depth)
	{
		(void)callstack_depth;
		if (profev__on(&profev_cat_tracy))
			profev_tracy__message(&profev_cat_tracy, txt, strlen(txt));
	}
	/* The color is the message's argument "color". */
	static void MessageColor(const char *txt, size_t size, uint32_t color, int32_t callstack_depth)
	{
		(void)callstack_depth;
		if (profev__on(&profev_cat_tracy)) {
			PROFEV_NEXT_ARG_UINT("color", color);
			profev_tracy__message(&profev_cat_tracy, txt, size);
		}
	}
	static void MessageColor(const char *txt, uint32_t color, int32_t callstack_depth)
	{
		if (txt)
			MessageColor(txt, strlen(txt), color, callstack_depth);
	}
	static void MessageAppInfo(const char *txt, size_t size) { profev_app_info(txt, size); }
	static void MemAlloc(const void *ptr, size_t size, bool secure)
	{
		if (secure)
			PROFEV_SECURE_ALLOC(ptr, size);
		else
			PROFEV_ALLOC(ptr, size);
	}
	static void MemFree(const void *ptr, bool secure)
	{
		if (secure)
			PROFEV_SECURE_FREE(ptr);
		else
			PROFEV_FREE(ptr);
	}
	static PROFEV_TRACY__AI void MemAllocCallstack(const void *ptr, size_t size, int32_t depth, bool secure)
	{
		if (secure)
			PROFEV_SECURE_ALLOC(ptr, size);
		else
			profev_tracy__mem_s(PROFEV__R_MEM_ALLOC_S, PROFEV__ADDR(ptr), size, depth);
	}
	static PROFEV_TRACY__AI void MemFreeCallstack(const void *ptr, int32_t depth, bool secure)
	{
		if (secure)
			PROFEV_SECURE_FREE(ptr);
		else
			profev_tracy__mem_s(PROFEV__R_MEM_FREE_S, PROFEV__ADDR(ptr), 0, depth);
	}
	static void MemAllocNamed(const void *ptr, size_t size, bool secure, const char *name)
	{
		if (secure)
			profev_tracy__mem_secure_named(name, PROFEV__R_MEM_ALLOC, ptr, size);
		else
			profev_tracy__mem_named(name, PROFEV__R_MEM_ALLOC, PROFEV__ADDR(ptr), size);
	}
	static void MemFreeNamed(const void *ptr, bool secure, const char *name)
	{
		if (secure)
			profev_tracy__mem_secure_named(name, PROFEV__R_MEM_FREE, ptr, 0);
		else
			profev_tracy__mem_named(name, PROFEV__R_MEM_FREE, PROFEV__ADDR(ptr), 0);
	}
	static PROFEV_TRACY__AI void MemAllocCallstackNamed(const void *ptr, size_t size, int32_t depth,
							    bool secure, const char *name)
	{
		if (secure)
			profev_tracy__mem_secure_named(name, PROFEV__R_MEM_ALLOC, ptr, size);
		else
			profev_tracy__mem_named_s(name, PROFEV__R_MEM_ALLOC_S, PROFEV__ADDR(ptr), size, depth);
	}
	static PROFEV_TRACY__AI void MemFreeCallstackNamed(const void *ptr, int32_t depth, bool secure,
							   const char *name)
	{
		if (secure)
			profev_tracy__mem_secure_named(name, PROFEV__R_MEM_FREE, ptr, 0);
		else
			profev_tracy__mem_named_s(name, PROFEV__R_MEM_FREE_S, PROFEV__ADDR(ptr), 0, depth);
	}
	static void MemDiscard(const char *name, bool secure) { (void)name; (void)secure; }
	static void MemDiscardCallstack(const char *name, bool secure, int32_t depth)
	{
		(void)name; (void)secure; (void)depth;
	}
	template <class Callback> static void SourceCallbackRegister(Callback cb, void *data)
	{
		(void)cb; (void)data;
	}
	template <class Callback> static void ParameterRegister(Callback cb, void *data)
	{
		(void)cb; (void)data;
	}
	static void ParameterSetup(uint32_t idx, const char *name, bool isBool, int32_t val)
	{
		(void)idx; (void)name; (void)isBool; (void)val;
	}
	static void EnterFiber(const char *fiber, int32_t groupHint) { (void)fiber; (void)groupHint; }
	static void LeaveFiber() {}

	bool IsConnected() const { return profev_active() != 0; }
	bool IsStarted() const { return profev_active() != 0; }
	void SetProgramName(const char *name) { profev_program_name(name); }
};

inline Profiler &GetProfiler()
{
	static Profiler p;
	return p;
}

inline bool ProfilerAvailable() { return true; }

/*
 * A zone from its constructor to its destructor. The macros construct it
 * from a static profev_site (no lookup, the cost of PROFEV_ZONE); Tracy's
 * own constructors (a SourceLocationData, or names given at run time) are
 * there for programs that build zones by hand.
 */
class ScopedZone
{
public:
	PROFEV_TRACY__AI ScopedZone(profev_site *site, bool is_active) noexcept
		: m_end(profev_tracy__begin(site, is_active))
	{
	}
	/* site is of type PROFEV__R_ZONE_BEGIN_S. */
	PROFEV_TRACY__AI ScopedZone(profev_site *site, int32_t depth, bool is_active) noexcept
		: m_end(profev_tracy__begin_s(site, depth, is_active))
	{
	}
	/* A name made at run time; the tag tells it from Tracy's constructors. */
	struct Dynamic {};
	PROFEV_TRACY__AI ScopedZone(Dynamic, const char *name, size_t len, bool is_active) noexcept
		: m_end(profev_tracy__begin_dyn(name, len, is_active))
	{
	}

	PROFEV_TRACY__AI ScopedZone(const SourceLocationData *srcloc, bool is_active = true) noexcept
		: m_end(0)
	{
		if (is_active && profev__on(&profev_cat_tracy)) {
			profev_site *s = profev_tracy__site(srcloc, PROFEV__R_BEGIN, &profev_cat_tracy,
							    srcloc->name ? srcloc->name : srcloc->function,
							    srcloc->function, srcloc->file, srcloc->line);
			if (s)
				m_end = profev_tracy__begin(s, 1);
			if (srcloc->color)
				Color(srcloc->color);
		}
	}
	PROFEV_TRACY__AI ScopedZone(const SourceLocationData *srcloc, int32_t depth, bool is_active = true) noexcept
		: m_end(0)
	{
		if (is_active && profev__on(&profev_cat_tracy)) {
			profev_site *s = profev_tracy__site(srcloc, PROFEV__R_ZONE_BEGIN_S, &profev_cat_tracy,
							    srcloc->name ? srcloc->name : srcloc->function,
							    srcloc->function, srcloc->file, srcloc->line);
			if (s)
				m_end = profev_tracy__begin_s(s, depth, 1);
			if (srcloc->color)
				Color(srcloc->color);
		}
	}
	ScopedZone(uint32_t line, const char *source, size_t sourceSz, const char *function, size_t functionSz,
		   const char *name, size_t nameSz, bool is_active = true) noexcept
		: m_end(profev_tracy__begin_dyn(name ? name : function, name ? nameSz : functionSz, is_active))
	{
		(void)line; (void)source; (void)sourceSz;
	}
	ScopedZone(uint32_t line, const char *source, size_t sourceSz, const char *function, size_t functionSz,
		   const char *name, size_t nameSz, int32_t depth, bool is_active = true) noexcept
		: ScopedZone(line, source, sourceSz, function, functionSz, name, nameSz, is_active)
	{
		(void)depth;
	}
	ScopedZone(uint32_t line, const char *source, size_t sourceSz, const char *function, size_t functionSz,
		   const char *name, size_t nameSz, uint32_t color, int32_t depth, bool is_active = true) noexcept
		: ScopedZone(line, source, sourceSz, function, functionSz, name, nameSz, is_active)
	{
		Color(color);
		(void)depth;
	}

	PROFEV_TRACY__AI ~ScopedZone() noexcept { profev__end(m_end); }

	ScopedZone(const ScopedZone &) = delete;
	ScopedZone(ScopedZone &&) = delete;
	ScopedZone &operator=(const ScopedZone &) = delete;
	ScopedZone &operator=(ScopedZone &&) = delete;

	/* Arguments of the zone ("text", "name", "color", "value"), given only
	 * if it was recorded: an argument goes to the innermost open zone, which
	 * is this one as long as zones nest, as Tracy's do. */
	void Text(const char *txt, size_t size)
	{
		if (m_end)
			PROFEV_ZONE_TEXT(txt, size);
	}
	void TextFmt(const char *fmt, ...)
	{
		va_list ap;
		va_start(ap, fmt);
		Formatted(&ScopedZone::Text, fmt, ap);
		va_end(ap);
	}
	void Name(const char *txt, size_t size)
	{
		if (m_end)
			PROFEV_ZONE_NAME(txt, size);
	}
	void NameFmt(const char *fmt, ...)
	{
		va_list ap;
		va_start(ap, fmt);
		Formatted(&ScopedZone::Name, fmt, ap);
		va_end(ap);
	}
	void Color(uint32_t color)
	{
		if (m_end)
			PROFEV_ZONE_COLOR(color);
	}
	void Value(uint64_t value)
	{
		if (m_end)
			PROFEV_ZONE_VALUE(value);
	}
	bool IsActive() const { return m_end != 0; }

private:
	/* fmt formatted as vsnprintf does, cut to an argument's longest string,
	 * and given to put (Text or Name). */
	void Formatted(void (ScopedZone::*put)(const char *, size_t), const char *fmt, va_list ap)
	{
		if (!m_end)
			return;
		char buf[PROFEV_ARG_STR_MAX + 1];
		int n = vsnprintf(buf, sizeof buf, fmt, ap);
		if (n >= 0)
			(this->*put)(buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
	}

	uint64_t m_end;
};

/*
 * What a watched lock records: PROFEV_LOCK_WAIT before it takes the lock,
 * PROFEV_LOCK_ACQUIRED once it has it, PROFEV_LOCK_RELEASED before it lets
 * go (so that the next holder's acquisition comes after). The lock is the
 * object's address; its name (the variable's, TracyLockableN's or
 * LockableName's) crosses the pipe once, through the object's own site.
 */
class LockState
{
public:
	explicit LockState(const char *name) : m_site()
	{
		m_site.category = &profev__locks;
		m_site.name = name ? name : "lock";
		m_site.type = PROFEV__R_LOCK_WAIT;
		m_custom[0] = 0;
	}
	PROFEV_TRACY__AI void Wait(const void *lock) { profev__point64(&profev__locks, &m_site, (uint64_t)(uintptr_t)lock); }
	PROFEV_TRACY__AI void Acquired(const void *lock) { PROFEV_LOCK_ACQUIRED(lock); }
	PROFEV_TRACY__AI void Released(const void *lock) { PROFEV_LOCK_RELEASED(lock); }
	/* A new name: sent with the next wait. Meant for before the lock is shared. */
	void Rename(const char *name, size_t size)
	{
		if (!name)
			return;
		if (size > sizeof m_custom - 1)
			size = sizeof m_custom - 1;
		if (m_site.name == m_custom && strncmp(m_custom, name, size) == 0 && !m_custom[size])
			return; /* the same name: nothing new to send */
		memcpy(m_custom, name, size);
		m_custom[size] = 0;
		m_site.name = m_custom;
		__atomic_store_n(&m_site.word, 0, __ATOMIC_RELEASE);
	}

private:
	profev_site m_site;
	char m_custom[64];
};

/*
 * A lock that Tracy watches: the lock it wraps, with Tracy's interface
 * (lock, unlock, try_lock, Mark, CustomName), so that
 * std::lock_guard<LockableBase(std::mutex)> and the like build; each
 * exclusive acquisition is recorded (see LockState).
 */
template <class T> class Lockable
{
public:
	Lockable(const SourceLocationData *srcloc) : m_state(srcloc ? srcloc->function : 0) {}
	Lockable(const char *name) : m_state(name) {}
	Lockable(const Lockable &) = delete;
	Lockable &operator=(const Lockable &) = delete;

	void lock()
	{
		m_state.Wait(this);
		m_lockable.lock();
		m_state.Acquired(this);
	}
	void unlock()
	{
		m_state.Released(this);
		m_lockable.unlock();
	}
	bool try_lock()
	{
		bool got = m_lockable.try_lock();
		if (got) {
			m_state.Wait(this);
			m_state.Acquired(this);
		}
		return got;
	}
	void Mark(const SourceLocationData *srcloc) { (void)srcloc; }
	void CustomName(const char *name, size_t size) { m_state.Rename(name, size); }

protected:
	T m_lockable;
	LockState m_state;
};

/** The same for a shared (reader-writer) lock: lock_shared and friends too.
 *  Only exclusive acquisitions are recorded: shared holders do not exclude
 *  one another, and profev's lock events have no shared kind. */
template <class T> class SharedLockable : public Lockable<T>
{
public:
	using Lockable<T>::Lockable;

	void lock_shared() { this->m_lockable.lock_shared(); }
	void unlock_shared() { this->m_lockable.unlock_shared(); }
	bool try_lock_shared() { return this->m_lockable.try_lock_shared(); }
};

} /* namespace tracy */

#define TracyNoop ((void)::tracy::ProfilerAvailable())

/* A zone's call site; n makes the names unique (__COUNTER__). */
#define PROFEV_TRACY__ZONE(var, name, active, n) \
	PROFEV_TRACY__SITE(PROFEV__CAT(profev__tsite_, n), &profev_cat_tracy, name, PROFEV__R_BEGIN); \
	::tracy::ScopedZone var(&PROFEV__CAT(profev__tsite_, n), active)
#define PROFEV_TRACY__ZONE_S(var, name, depth, active, n) \
	PROFEV_TRACY__SITE(PROFEV__CAT(profev__tsite_, n), &profev_cat_tracy, name, PROFEV__R_ZONE_BEGIN_S); \
	::tracy::ScopedZone var(&PROFEV__CAT(profev__tsite_, n), (int32_t)(depth), active)
/* The color (a static one, as in ZoneScopedC) is the zone's argument. */
#define PROFEV_TRACY__ZONE_C(var, name, color, active, n) \
	PROFEV_TRACY__ZONE(var, name, active, n); var.Color(color)
#define PROFEV_TRACY__ZONE_CS(var, name, color, depth, active, n) \
	PROFEV_TRACY__ZONE_S(var, name, depth, active, n); var.Color(color)

/* With TRACY_CALLSTACK set to a depth, every zone carries its callstack, as in Tracy. */
#if TRACY_CALLSTACK > 0
#define ZoneNamed(varname, active) ZoneNamedS(varname, TRACY_CALLSTACK, active)
#define ZoneNamedN(varname, name, active) ZoneNamedNS(varname, name, TRACY_CALLSTACK, active)
#define ZoneNamedC(varname, color, active) ZoneNamedCS(varname, color, TRACY_CALLSTACK, active)
#define ZoneNamedNC(varname, name, color, active) ZoneNamedNCS(varname, name, color, TRACY_CALLSTACK, active)
#else
#define ZoneNamed(varname, active) PROFEV_TRACY__ZONE(varname, TracyFunction, active, __COUNTER__)
#define ZoneNamedN(varname, name, active) PROFEV_TRACY__ZONE(varname, name, active, __COUNTER__)
#define ZoneNamedC(varname, color, active) \
	PROFEV_TRACY__ZONE_C(varname, TracyFunction, color, active, __COUNTER__)
#define ZoneNamedNC(varname, name, color, active) PROFEV_TRACY__ZONE_C(varname, name, color, active, __COUNTER__)
#endif

#define ZoneNamedS(varname, depth, active) \
	PROFEV_TRACY__ZONE_S(varname, TracyFunction, depth, active, __COUNTER__)
#define ZoneNamedNS(varname, name, depth, active) PROFEV_TRACY__ZONE_S(varname, name, depth, active, __COUNTER__)
#define ZoneNamedCS(varname, color, depth, active) \
	PROFEV_TRACY__ZONE_CS(varname, TracyFunction, color, depth, active, __COUNTER__)
#define ZoneNamedNCS(varname, name, color, depth, active) \
	PROFEV_TRACY__ZONE_CS(varname, name, color, depth, active, __COUNTER__)

/* Transient zones: the name is copied at run time (no callstack). */
#define ZoneTransient(varname, active) \
	::tracy::ScopedZone varname(::tracy::ScopedZone::Dynamic(), TracyFunction, strlen(TracyFunction), active)
#define ZoneTransientN(varname, name, active) \
	::tracy::ScopedZone varname(::tracy::ScopedZone::Dynamic(), name, strlen(name), active)
#define ZoneTransientNC(varname, name, color, active) \
	ZoneTransientN(varname, name, active); varname.Color(color)
#define ZoneTransientS(varname, depth, active) ZoneTransient(varname, active); (void)(depth)
#define ZoneTransientNS(varname, name, depth, active) ZoneTransientN(varname, name, active); (void)(depth)

/* A ZoneScoped in a nested scope shadows the outer one's variable: Clang is
 * told not to warn of it, as Tracy's header does (unless
 * TRACY_ALLOW_SHADOW_WARNING). */
#if defined(__clang__) && !defined(TRACY_ALLOW_SHADOW_WARNING)
#define PROFEV_TRACY__NOSHADOW(x) _Pragma("clang diagnostic push") \
	_Pragma("clang diagnostic ignored \"-Wshadow\"") x _Pragma("clang diagnostic pop")
#else
#define PROFEV_TRACY__NOSHADOW(x) x
#endif

#define ZoneScoped PROFEV_TRACY__NOSHADOW(ZoneNamed(___tracy_scoped_zone, true))
#define ZoneScopedN(name) PROFEV_TRACY__NOSHADOW(ZoneNamedN(___tracy_scoped_zone, name, true))
#define ZoneScopedC(color) PROFEV_TRACY__NOSHADOW(ZoneNamedC(___tracy_scoped_zone, color, true))
#define ZoneScopedNC(name, color) PROFEV_TRACY__NOSHADOW(ZoneNamedNC(___tracy_scoped_zone, name, color, true))
#define ZoneScopedS(depth) ZoneNamedS(___tracy_scoped_zone, depth, true)
#define ZoneScopedNS(name, depth) ZoneNamedNS(___tracy_scoped_zone, name, depth, true)
#define ZoneScopedCS(color, depth) ZoneNamedCS(___tracy_scoped_zone, color, depth, true)
#define ZoneScopedNCS(name, color, depth) ZoneNamedNCS(___tracy_scoped_zone, name, color, depth, true)

#define ZoneText(txt, size) ___tracy_scoped_zone.Text(txt, size)
#define ZoneTextV(varname, txt, size) varname.Text(txt, size)
#define ZoneTextF(fmt, ...) ___tracy_scoped_zone.TextFmt(fmt, ##__VA_ARGS__)
#define ZoneTextVF(varname, fmt, ...) varname.TextFmt(fmt, ##__VA_ARGS__)
#define ZoneName(txt, size) ___tracy_scoped_zone.Name(txt, size)
#define ZoneNameV(varname, txt, size) varname.Name(txt, size)
#define ZoneNameF(fmt, ...) ___tracy_scoped_zone.NameFmt(fmt, ##__VA_ARGS__)
#define ZoneNameVF(varname, fmt, ...) varname.NameFmt(fmt, ##__VA_ARGS__)
#define ZoneColor(color) ___tracy_scoped_zone.Color(color)
#define ZoneColorV(varname, color) varname.Color(color)
#define ZoneValue(value) ___tracy_scoped_zone.Value(value)
#define ZoneValueV(varname, value) varname.Value(value)
#define ZoneIsActive ___tracy_scoped_zone.IsActive()
#define ZoneIsActiveV(varname) varname.IsActive()

#define FrameMark PROFEV_FRAME_MARK()
#define PROFEV_TRACY__FRAME(name, type) do { \
	PROFEV_TRACY__SITE_PLAIN(profev__tsite, &profev__frames, name, type); \
	profev__point(&profev__frames, &profev__tsite); } while (0)
#define FrameMarkNamed(name) PROFEV_TRACY__FRAME(name, PROFEV__R_FRAME)
/* Discontinuous frame sets: PROFEV_FRAME_START and PROFEV_FRAME_END. */
#define FrameMarkStart(name) PROFEV_TRACY__FRAME(name, PROFEV__R_FRAME_START)
#define FrameMarkEnd(name) PROFEV_TRACY__FRAME(name, PROFEV__R_FRAME_END)

#define FrameImage(image, width, height, offset, flip) \
	::tracy::Profiler::SendFrameImage(image, width, height, offset, flip)

#define TracyLockable(type, varname) ::tracy::Lockable<type> varname { #type " " #varname }
#define TracyLockableN(type, varname, desc) ::tracy::Lockable<type> varname { desc }
#define TracySharedLockable(type, varname) ::tracy::SharedLockable<type> varname { #type " " #varname }
#define TracySharedLockableN(type, varname, desc) ::tracy::SharedLockable<type> varname { desc }
#define LockableBase(type) ::tracy::Lockable<type>
#define SharedLockableBase(type) ::tracy::SharedLockable<type>
#define LockMark(varname) (varname).Mark(static_cast<const ::tracy::SourceLocationData *>(nullptr))
#define LockableName(varname, txt, size) (varname).CustomName(txt, size)

#define TracyPlot(name, val) do { \
	PROFEV_TRACY__SITE(profev__tsite, &profev_cat_tracy, name, PROFEV__R_COUNTER); \
	profev__counter(&profev_cat_tracy, &profev__tsite, (double)(val)); } while (0)
#define TracyPlotConfig(name, type, step, fill, color) \
	::tracy::Profiler::ConfigurePlot(name, type, step, fill, color)

#define TracyAppInfo(txt, size) ::tracy::Profiler::MessageAppInfo(txt, size)

#define TracyMessage(txt, size) PROFEV_TRACY__MESSAGE(txt, size)
#define TracyMessageL(txt) PROFEV_TRACY__MESSAGE_L(txt)
#define TracyMessageC(txt, size, color) PROFEV_TRACY__MESSAGE_C(txt, size, color)
#define TracyMessageLC(txt, color) PROFEV_TRACY__MESSAGE_LC(txt, color)
#define TracyMessageS(txt, size, depth) do { PROFEV_TRACY__MESSAGE(txt, size); (void)(depth); } while (0)
#define TracyMessageLS(txt, depth) do { PROFEV_TRACY__MESSAGE_L(txt); (void)(depth); } while (0)
#define TracyMessageCS(txt, size, color, depth) \
	do { PROFEV_TRACY__MESSAGE_C(txt, size, color); (void)(depth); } while (0)
#define TracyMessageLCS(txt, color, depth) \
	do { PROFEV_TRACY__MESSAGE_LC(txt, color); (void)(depth); } while (0)

/* Memory: the named forms keep one static site per call site (pool names
 * are pointers in Tracy too); the secure named ones look the pool up. */
#define PROFEV_TRACY__POOL(ptr, size, name, type) do { \
	PROFEV_TRACY__SITE_PLAIN(profev__tsite, &profev__memory, name, type); \
	profev__mem(&profev__tsite, 0, PROFEV__ADDR(ptr), (uint64_t)(size)); } while (0)
#define PROFEV_TRACY__POOL_S(ptr, size, name, type, depth) do { \
	PROFEV_TRACY__SITE_PLAIN(profev__tsite, &profev__memory, name, type); \
	profev__mem_stack(&profev__tsite, 0, PROFEV__ADDR(ptr), (uint64_t)(size), (int)(depth)); \
	PROFEV__NO_TAIL(); } while (0)

#if TRACY_CALLSTACK > 0
#define TracyAlloc(ptr, size) TracyAllocS(ptr, size, TRACY_CALLSTACK)
#define TracyFree(ptr) TracyFreeS(ptr, TRACY_CALLSTACK)
#define TracyAllocN(ptr, size, name) TracyAllocNS(ptr, size, TRACY_CALLSTACK, name)
#define TracyFreeN(ptr, name) TracyFreeNS(ptr, TRACY_CALLSTACK, name)
#else
#define TracyAlloc(ptr, size) PROFEV_ALLOC(ptr, size)
#define TracyFree(ptr) PROFEV_FREE(ptr)
#define TracyAllocN(ptr, size, name) PROFEV_TRACY__POOL(ptr, size, name, PROFEV__R_MEM_ALLOC)
#define TracyFreeN(ptr, name) PROFEV_TRACY__POOL(ptr, 0, name, PROFEV__R_MEM_FREE)
#endif
#define TracySecureAlloc(ptr, size) PROFEV_SECURE_ALLOC(ptr, size)
#define TracySecureFree(ptr) PROFEV_SECURE_FREE(ptr)
#define TracySecureAllocN(ptr, size, name) \
	profev_tracy__mem_secure_named(name, PROFEV__R_MEM_ALLOC, (const void *)(ptr), (uint64_t)(size))
#define TracySecureFreeN(ptr, name) \
	profev_tracy__mem_secure_named(name, PROFEV__R_MEM_FREE, (const void *)(ptr), 0)
#define TracyMemoryDiscard(name) ::tracy::Profiler::MemDiscardCallstack(name, false, TRACY_CALLSTACK)
#define TracySecureMemoryDiscard(name) ::tracy::Profiler::MemDiscardCallstack(name, true, TRACY_CALLSTACK)

#define TracyAllocS(ptr, size, depth) PROFEV_ALLOC_S(ptr, size, depth)
#define TracyFreeS(ptr, depth) PROFEV_FREE_S(ptr, depth)
#define TracySecureAllocS(ptr, size, depth) do { PROFEV_SECURE_ALLOC(ptr, size); (void)(depth); } while (0)
#define TracySecureFreeS(ptr, depth) do { PROFEV_SECURE_FREE(ptr); (void)(depth); } while (0)
#define TracyMemoryDiscardS(name, depth) ::tracy::Profiler::MemDiscardCallstack(name, false, depth)
#define TracySecureMemoryDiscardS(name, depth) ::tracy::Profiler::MemDiscardCallstack(name, true, depth)
#define TracyAllocNS(ptr, size, depth, name) PROFEV_TRACY__POOL_S(ptr, size, name, PROFEV__R_MEM_ALLOC_S, depth)
#define TracyFreeNS(ptr, depth, name) PROFEV_TRACY__POOL_S(ptr, 0, name, PROFEV__R_MEM_FREE_S, depth)
#define TracySecureAllocNS(ptr, size, depth, name) do { TracySecureAllocN(ptr, size, name); (void)(depth); } while (0)
#define TracySecureFreeNS(ptr, depth, name) do { TracySecureFreeN(ptr, name); (void)(depth); } while (0)

#define TracySourceCallbackRegister(cb, data) ::tracy::Profiler::SourceCallbackRegister(cb, data)
#define TracyParameterRegister(cb, data) ::tracy::Profiler::ParameterRegister(cb, data)
#define TracyParameterSetup(idx, name, isBool, val) ::tracy::Profiler::ParameterSetup(idx, name, isBool, val)
#define TracyIsConnected ::tracy::GetProfiler().IsConnected()
#define TracyIsStarted ::tracy::GetProfiler().IsStarted()
#define TracySetProgramName(name) ::tracy::GetProfiler().SetProgramName(name);

/* Fibers compile and do nothing: profev has no fiber tracks. */
#ifdef TRACY_FIBERS
#define TracyFiberEnter(fiber) ::tracy::Profiler::EnterFiber(fiber, 0)
#define TracyFiberEnterHint(fiber, groupHint) ::tracy::Profiler::EnterFiber(fiber, groupHint)
#define TracyFiberLeave ::tracy::Profiler::LeaveFiber()
#endif

#endif /* TRACY_ENABLE */
#endif
