// cxxuse.cc: C++ code that calls new and delete, built three times for cxxlocal.c: libcxxvia.so
// is linked by the C compiler against libcxxplug.so only (libstdc++ is not among its own
// DT_NEEDED: its new is libstdc++'s, reached through libcxxplug.so); libcxxfirst.so is linked
// against libcxxown.so ahead of libstdc++ (its new is libcxxown.so's, the first of its
// DT_NEEDED); libcxxmany.so against 40 small C libraries ahead of libstdc++. cxx_use returns the
// value of a new int (7); cxx_oom 1 when new[] of 2^62 bytes threw std::bad_alloc (libstdc++'s
// does; the malloc family's stand-in, which a caller gets where its scope held no operator new,
// aborts instead).
#include <cstddef>
#include <new>

static int *volatile keep;
static char *volatile big;

extern "C" int cxx_use()
{
	keep = new int(7);
	int v = *keep;
	delete keep;
	return v;
}

extern "C" int cxx_oom()
{
	try {
		big = new char[static_cast<std::size_t>(1) << 62];
	} catch (const std::bad_alloc &) {
		return 1;
	}
	return 0;
}
