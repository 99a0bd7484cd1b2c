// A program instrumented the way Tracy's manual shows, using every public
// macro of Tracy.hpp. tests/cli/120-rec-tracy.sh builds it against
// <tracy/Tracy.hpp> (profev's), runs it under pfrec and checks the events;
// the counts it expects follow from the comments here.
//
// main: one thread "worker" runs frame() twice, then main runs it 3 times.
#include <tracy/Tracy.hpp>
#include "Tracy.hpp" // the other spelling resolves to the same header

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unistd.h>

// A reader-writer lock with the shared interface, for TracySharedLockable
// (std::shared_mutex is C++17).
struct RwLock {
	std::mutex m;
	void lock() { m.lock(); }
	void unlock() { m.unlock(); }
	bool try_lock() { return m.try_lock(); }
	void lock_shared() { m.lock(); }
	void unlock_shared() { m.unlock(); }
	bool try_lock_shared() { return m.try_lock(); }
};

static TracyLockable(std::mutex, g_lock);
static TracyLockableN(std::mutex, g_named_lock, "named lock");
static TracySharedLockable(RwLock, g_rw);
static TracySharedLockableN(RwLock, g_rw_named, "named rw");

struct Holder {
	TracyLockable(std::mutex, m_lock); // as a member, as the manual shows
};

static const char *const k_pool = "pool";
static const char *const k_frames = "physics";

static void param_cb(void *, uint32_t, int32_t) {}
static char *source_cb(void *, const char *, size_t &) { return nullptr; }

// Zones (each frame() begins 24 zones; 1 more is inactive):
//   frame, named, frame (C), named_c, frame (S), named_s, frame (CS), named_cs   8
//   frame (ZoneNamed), zn, frame (C), znc, frame (S), zns, frame (CS), zncs      8
//   frame (Transient), transient (a name copied at run time), transient_c,
//   frame (TransientS), transient_s                                              5
//   manual, manual_s (tracy::ScopedZone from a SourceLocationData)                2
//   leaf (in leaf())                                                              1
static void leaf(int i)
{
	ZoneScoped;
	ZoneText("text", 4);
	ZoneTextF("i=%d", i);
	ZoneName("leaf renamed", 12);
	ZoneNameF("leaf %d", i);
	ZoneValue((uint64_t)i);
	ZoneColor(tracy::Color::Red);
	if (ZoneIsActive && !TracyIsConnected) // active only when recorded, as in Tracy
		std::abort();
}

static void frame(int i)
{
	ZoneScoped;
	{ ZoneScopedN("named"); }
	{ ZoneScopedC(0xff0000); }
	{ ZoneScopedNC("named_c", tracy::Color::Blue); }
	{ ZoneScopedS(4); }
	{ ZoneScopedNS("named_s", 4); }
	{ ZoneScopedCS(tracy::Color::Green, 4); }
	{ ZoneScopedNCS("named_cs", 0x00ff00, 4); }

	ZoneNamed(z1, true);
	ZoneNamedN(z2, "zn", true);
	ZoneNamedC(z3, 0x123456, true);
	ZoneNamedNC(z4, "znc", tracy::Color::Yellow, true);
	ZoneNamedS(z5, 3, true);
	ZoneNamedNS(z6, "zns", 3, true);
	ZoneNamedCS(z7, 0x654321, 3, true);
	ZoneNamedNCS(z8, "zncs", 0x111111, 3, true);
	ZoneNamedN(zoff, "inactive", false);
	if (ZoneIsActiveV(zoff) || (ZoneIsActiveV(z2) && !TracyIsConnected))
		std::abort();
	// Arguments go to the innermost open zone: these to "zncs" (z8), not
	// to the zone they name, as profev-tracy(3) says.
	ZoneTextV(z2, "zn text", 7);
	ZoneTextVF(z2, "zn %d", i);
	ZoneNameV(z4, "znc renamed", 11);
	ZoneNameVF(z4, "znc %d", i);
	ZoneColorV(z3, tracy::Color::Orange);
	ZoneValueV(z6, 42);

	char dyn[16];
	snprintf(dyn, sizeof dyn, "transient");
	ZoneTransient(t1, true);
	ZoneTransientN(t2, dyn, true);
	ZoneTransientNC(t3, "transient_c", 0xabcdef, true);
	ZoneTransientS(t4, 5, true);
	ZoneTransientNS(t5, "transient_s", 5, true);

#ifdef TRACY_ENABLE // Tracy's types exist only then
	static constexpr tracy::SourceLocationData loc { "manual", __FUNCTION__, __FILE__, (uint32_t)__LINE__, 0x102030 };
	static constexpr tracy::SourceLocationData loc_s { "manual_s", __FUNCTION__, __FILE__, (uint32_t)__LINE__, 0 };
	tracy::ScopedZone manual(&loc);
	tracy::ScopedZone manual_s(&loc_s, 6, true);
#endif

	leaf(i);

	// Plots: 3 per frame; their values are i, i + 0.5 and 2 * i.
	TracyPlot("plot_int", (int64_t)i);
	TracyPlot("plot_float", (float)i + 0.5f);
	TracyPlot("plot_double", 2.0 * i);
	TracyPlotConfig("plot_int", tracy::PlotFormatType::Number, true, true, 0xff00ff);
	TracyPlotConfig("plot_float", tracy::PlotFormatType::Memory, false, false, 0);

	// Messages: 8 per frame, and 1 app info.
	char text[32];
	int n = snprintf(text, sizeof text, "message %d", i);
	TracyMessage(text, (size_t)n);
	TracyMessageL("literal");
	TracyMessageC(text, (size_t)n, 0xff0000);
	TracyMessageLC("literal c", tracy::Color::Green);
	TracyMessageS(text, (size_t)n, 4);
	TracyMessageLS("literal s", 4);
	TracyMessageCS(text, (size_t)n, 0x00ff00, 4);
	TracyMessageLCS("literal cs", 0x0000ff, 4);
	TracyAppInfo("app info", 8);

	// Memory: 8 allocations and 8 frees per frame; 4 in the pool "pool",
	// 4 with a callstack, 4 secure.
	void *a = std::malloc(16), *b = std::malloc(32), *c = std::malloc(48), *d = std::malloc(64);
	void *e = std::malloc(80), *f = std::malloc(96), *g = std::malloc(112), *h = std::malloc(128);
	TracyAlloc(a, 16);
	TracyAllocN(b, 32, k_pool);
	TracySecureAlloc(c, 48);
	TracySecureAllocN(d, 64, "pool");
	TracyAllocS(e, 80, 5);
	TracyAllocNS(f, 96, 5, "pool");
	TracySecureAllocS(g, 112, 5);
	TracySecureAllocNS(h, 128, 5, k_pool);
	TracyFree(a);
	TracyFreeN(b, k_pool);
	TracySecureFree(c);
	TracySecureFreeN(d, "pool");
	TracyFreeS(e, 5);
	TracyFreeNS(f, 5, "pool");
	TracySecureFreeS(g, 5);
	TracySecureFreeNS(h, 5, k_pool);
	std::free(a); std::free(b); std::free(c); std::free(d);
	std::free(e); std::free(f); std::free(g); std::free(h);
	TracyMemoryDiscard("pool");
	TracySecureMemoryDiscard("pool");
	TracyMemoryDiscardS("pool", 3);
	TracySecureMemoryDiscardS("pool", 3);

	// Locks.
	{
		std::lock_guard<LockableBase(std::mutex)> guard(g_lock);
		LockMark(g_lock);
	}
	if (g_named_lock.try_lock())
		g_named_lock.unlock();
	LockableName(g_named_lock, "renamed lock", 12);
	g_rw.lock_shared();
	g_rw.unlock_shared();
	{
		std::unique_lock<SharedLockableBase(RwLock)> w(g_rw_named);
		LockMark(g_rw_named);
	}
	Holder holder;
	holder.m_lock.lock();
	holder.m_lock.unlock();

	// Frames: one default mark, one "physics" mark, one "load" frame and one
	// (4 x 4) frame image per frame.
	FrameMarkNamed(k_frames);
	FrameMarkStart("load");
	FrameMarkEnd("load");
	unsigned char image[4 * 4 * 4] = { 0 };
	FrameImage(image, 4, 4, 0, false);
	FrameMark;
}

// Contention: 4 threads "locker" take the lock "contended" 25 times each
// and hold it 200 us: 100 acquisitions, most of them after a wait. Each
// rests 300 us between turns: std::mutex is not fair, and a thread that
// takes it again at once would otherwise run all its turns unopposed while
// the others wait once each.
static TracyLockableN(std::mutex, g_contended, "contended");
static void locker()
{
	tracy::SetThreadName("locker");
	for (int i = 0; i < 25; i++) {
		{
			std::lock_guard<LockableBase(std::mutex)> guard(g_contended);
			usleep(200);
		}
		usleep(300);
	}
}

static void worker()
{
	tracy::SetThreadName("worker");
	for (int i = 0; i < 2; i++)
		frame(10 + i);
}

int main()
{
	tracy::SetThreadName("main");
	TracySetProgramName("all_macros");
	TracyParameterRegister(param_cb, nullptr);
	TracyParameterSetup(0, "param", false, 1);
	TracySourceCallbackRegister(source_cb, nullptr);
	TracyNoop;
#ifdef TRACY_FIBERS
	TracyFiberEnter("fiber");
	TracyFiberLeave;
	TracyFiberEnterHint("fiber", 1);
	TracyFiberLeave;
#endif
	std::printf("connected %d started %d\n", (int)TracyIsConnected, (int)TracyIsStarted);
	std::printf("thread %s\n", tracy::GetThreadName(tracy::GetThreadHandle()));
	std::thread t(worker);
	t.join();
	for (int i = 0; i < 3; i++)
		frame(i);
	std::thread l[4];
	for (auto &x : l)
		x = std::thread(locker);
	for (auto &x : l)
		x.join();
	return 0;
}
