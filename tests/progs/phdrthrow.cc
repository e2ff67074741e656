// phdrthrow.cc: a dl_iterate_phdr callback throws (glibc releases the loader's lock as the
// exception passes) and main catches it, then allocates 12,345 bytes: that block must have its
// call stack (the tracer's count of the calls inside dl_iterate_phdr went down with the
// exception; before 0.2.56's fix of it the thread recorded no stack again). Prints
// "phdrthrow: caught".
#include <cstdio>
#include <cstdlib>
#include <link.h>

static void *volatile keep;

static int thrower(struct dl_phdr_info *, size_t, void *)
{
	throw 42;
}

int main()
{
	try {
		dl_iterate_phdr(thrower, nullptr);
	} catch (int) {
		std::printf("phdrthrow: caught\n");
	}
	keep = std::malloc(12345);
	return 0;
}
