// Symbolization fixture library, loaded with dlopen and built with DWARF 4:
// C++ names in namespaces, classes and templates (demangling), functions
// inlined across them, and an anonymous-namespace helper.
namespace fixture {

volatile int counter;

template <typename T> struct Box {
	T value;
	__attribute__((noinline)) T twice(void (*cb)()) const
	{
		if (value & 1)
			cb();
		return value * 2;
	}
};

namespace {
inline __attribute__((always_inline)) int helper(int x, void (*cb)())
{
	Box<int> b{x};
	counter += b.twice(cb);
	return x + 1;
}
} // namespace

class Walker {
public:
	explicit Walker(void (*cb)()) : cb_(cb) {}
	inline __attribute__((always_inline)) void step(int i)
	{
		if (i % 3 == 0)
			cb_();
		counter += helper(i, cb_);
	}
	__attribute__((noinline)) void run(int n);
	__attribute__((noinline)) void run(long n);

private:
	void (*cb_)();
};

void Walker::run(int n)
{
	for (int i = 0; i < n; i++)
		step(i);
}

void Walker::run(long n)
{
	for (long i = 0; i < n; i++)
		counter += helper(static_cast<int>(i), cb_);
}

} // namespace fixture

extern "C" void fixlib_entry(void (*cb)(), int n)
{
	fixture::Walker w(cb);
	w.run(n);
	w.run(static_cast<long>(n / 2));
}
