// cxxplug.cc: a C++ plugin that a C program (cxxlocal.c) opens RTLD_LOCAL: its libstdc++ is then
// out of the global scope, while its calls of operator new bind to the tracer's (global, first).
// plug_run allocates 3,000,000 bytes with new[], one 64-byte-aligned object with aligned new,
// frees both, and returns 0 when the aligned one is aligned.
#include <cstdint>
#include <new>

struct alignas(64) Wide {
	char b[64];
};

static void *volatile keep;

extern "C" int plug_run()
{
	char *a = new char[3000000];
	keep = a;
	Wide *w = new Wide;
	keep = w;
	int bad = reinterpret_cast<std::uintptr_t>(w) % 64 != 0;
	delete w;
	delete[] a;
	return bad;
}
