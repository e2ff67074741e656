/* dlsymshim.c: a library that replaces dlsym and calls glibc's from its own code, as MangoHud,
 * VirtualGL's faker and apitrace do; preloaded ahead of the tracer, its "next" lookups start
 * from here, and find the tracer's own functions (t_failures.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>

void *dlsym(void *handle, const char *name)
{
	static void *(*real)(void *, const char *);
	if (!real)
		real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!real)
		real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	void *r = real(handle, name);
	__asm__ volatile("" ::: "memory"); /* not a tail call: the lookup is made from here */
	return r;
}
