// cxxplug.cc: a C++ plugin that a C program (cxxlocal.c) opens RTLD_LOCAL: its libstdc++ is then
// out of the global scope, while its calls of operator new bind to the tracer's (global, first).
// plug_run allocates 3,000,000 bytes with new[], one 64-byte-aligned object with aligned new,
// frees both, and returns 0 when the aligned one is aligned; plug_oom asks new for 2^62 bytes
// and returns 1 when it caught std::bad_alloc. Built twice: with the shared libstdc++, and
// with -static-libstdc++ (its own operator new, exported), twice (libcxxplug_static2.so with
// 64 KiB of code ahead: cxxlocal.c's "reload").
#include <cstdint>
#include <new>

#ifdef CXX_PAD
// 64 KiB of code ahead of the copy of libstdc++ that -static-libstdc++ links in: this build's
// operator new sits 64 KiB further into the library than the other static build's
extern "C" __attribute__((used, noinline)) void plug_pad()
{
	asm volatile(".fill 65536, 1, 0x90");
}
#endif

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

extern "C" int plug_oom()
{
	try {
		keep = new char[static_cast<std::size_t>(1) << 62];
	} catch (const std::bad_alloc &) {
		return 1;
	}
	return 0;
}
