// cxxthrow.cc: operator new throws std::bad_alloc three times (a request of 2^50 bytes), the
// program catches it each time, then allocates and frees 1,000,000 bytes, which must be traced:
// an exception that left the tracer's hook with its guard up would leave every later call of
// the thread untraced. Run alone (libstdc++'s new: the hook passes the call on) and with
// libnewalloc.so preloaded after the tracer (the hook traces the allocator's own new).
#include <cstdio>
#include <new>

static void *volatile keep;

int main()
{
	int caught = 0;
	for (int i = 0; i < 3; i++) {
		try {
			keep = ::operator new(static_cast<std::size_t>(1) << 50);
		} catch (const std::bad_alloc &) {
			caught++;
		}
	}
	void *p = ::operator new(1000000);
	keep = p;
	::operator delete(p);
	std::printf("cxxthrow: caught %d\n", caught);
	return 0;
}
