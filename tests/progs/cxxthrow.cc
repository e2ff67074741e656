// cxxthrow.cc: operator new throws std::bad_alloc three times (a request of 2^50 bytes), the
// program catches it each time, then allocates and frees 1,000,000 bytes, which must be traced:
// an exception that left the tracer's hook with its guard up would leave every later call of
// the thread untraced. Run alone (libstdc++'s new: the hook passes the call on) and with
// libnewalloc.so preloaded after the tracer (the hook traces the allocator's own new).
// With "handler": first a 5,000,000-byte reserve, and a new-handler that frees it (delete[])
// and takes itself away, as programs keep an emergency reserve. With a number N: N throws.
#include <cstdio>
#include <cstdlib>
#include <new>

static void *volatile keep;
static char *volatile reserve;

static void free_reserve()
{
	delete[] reserve;
	reserve = nullptr;
	std::set_new_handler(nullptr);
}

int main(int argc, char **argv)
{
	int caught = 0, throws = argc > 1 ? std::atoi(argv[1]) : 0;
	bool handler = argc > 1 && throws <= 0;
	if (handler) {
		reserve = new char[5000000];
		std::set_new_handler(free_reserve);
	}
	for (int i = 0; i < (throws > 0 ? throws : 3); i++) {
		try {
			keep = ::operator new(static_cast<std::size_t>(1) << 50);
		} catch (const std::bad_alloc &) {
			caught++;
		}
	}
	void *p = ::operator new(1000000);
	keep = p;
	::operator delete(p);
	std::printf("cxxthrow: caught %d%s\n", caught, handler ? reserve ? ", reserve kept" : ", reserve freed" : "");
	return 0;
}
