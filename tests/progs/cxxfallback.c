/* cxxfallback.c: a C program without libstdc++ that calls the aligned operator new by its
 * mangled name, found with dlsym: no definition but the tracer's, which serves it with the
 * malloc family (malloc for an alignment of 16 or less). 100 bytes aligned to 16 by that new,
 * then aligned_alloc of 112 bytes aligned to 16: both live at exit. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[2];

int main(void)
{
	void *(*anew)(unsigned long, unsigned long) =
		(void *(*)(unsigned long, unsigned long))dlsym(RTLD_DEFAULT, "_ZnwmSt11align_val_t");
	if (!anew)
		return 1;
	keep[0] = anew(100, 16);
	keep[1] = aligned_alloc(16, 112);
	if (!keep[0] || !keep[1])
		return 2;
	puts("cxxfallback: done");
	return 0;
}
