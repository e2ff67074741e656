/* dlmopenalloc.c: loads a second C library into a namespace of its own (dlmopen, as plugin
 * hosts isolate plugins), allocates 32 MiB through its malloc (untraced: LD_PRELOAD loads the
 * tracer into the first namespace only) and 1,000,000 bytes through the program's (traced),
 * and holds both. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile keep[2];

int main(void)
{
	void *h = dlmopen(LM_ID_NEWLM, "libc.so.6", RTLD_NOW);
	void *(*other_malloc)(size_t) = h ? (void *(*)(size_t))dlsym(h, "malloc") : NULL;
	if (!other_malloc) {
		fprintf(stderr, "dlmopenalloc: %s\n", dlerror());
		return 1;
	}
	keep[0] = other_malloc(32 << 20);
	memset(keep[0], 1, 32 << 20);
	keep[1] = malloc(1000000);
	memset(keep[1], 1, 64);
	printf("dlmopenalloc: done\n");
	return 0;
}
