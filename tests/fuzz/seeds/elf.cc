// The C++ seed of the symbolizer's corpus (make-seeds.sh): DWARF 4,
// mangled names, a template and a namespace. No libc.
namespace seed {
template <typename T> struct box {
	T v;
	__attribute__((noinline)) T get() const { return v * 2; }
};

inline __attribute__((always_inline)) int twice(int x) { return x + x; }

__attribute__((noinline)) int use(const box<int> &b) { return twice(b.get()); }
} // namespace seed

extern "C" int seed_cxx(int x)
{
	seed::box<int> b{x};
	return seed::use(b) + seed::box<long>{x}.get();
}
