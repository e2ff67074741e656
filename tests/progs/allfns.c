/* allfns.c: one call of every allocation entry point the tracer interposes, each from a
 * function of its own with a size of its own, all kept to the end: malloc 1001, calloc 7 x 143
 * (1001 too, zeroed), realloc(NULL, 1003), reallocarray(NULL, 3, 335) (1005), realloc of a
 * 100-byte block to 1007, posix_memalign 64 / 1009, aligned_alloc 256 / 1280, memalign 128 /
 * 1011, valloc 1013, pvalloc 100000 (glibc sets aside whole pages; the request is what counts),
 * mmap of 3 MiB and mmap64 of 2 MiB, anonymous, then munmap of the middle 1 MiB of the first;
 * and three malloc(0) blocks (allocations of 0 bytes: counted, and holding nothing).
 * Sizes are printed by nothing: the test reads them from the report, one site per function. */
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void *volatile keep[16], *volatile zero[3];

#define NOINL __attribute__((noinline))
NOINL static void f_malloc(void) { keep[0] = malloc(1001); }
NOINL static void f_malloc0(void)
{
	for (int i = 0; i < 3; i++)
		zero[i] = malloc(0);
}
NOINL static void f_calloc(void) { keep[1] = calloc(7, 143); }
NOINL static void f_realloc_null(void) { keep[2] = realloc(NULL, 1003); }
NOINL static void f_reallocarray(void) { keep[3] = reallocarray(NULL, 3, 335); }
NOINL static void f_realloc_grow(void *p) { keep[4] = realloc(p, 1007); }
NOINL static void f_posix_memalign(void)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, 1009) == 0)
		keep[5] = p;
}
NOINL static void f_aligned_alloc(void) { keep[6] = aligned_alloc(256, 1280); }
NOINL static void f_memalign(void) { keep[7] = memalign(128, 1011); }
NOINL static void f_valloc(void) { keep[8] = valloc(1013); }
NOINL static void f_pvalloc(void) { keep[9] = pvalloc(100000); }
NOINL static void f_mmap(void)
{
	char *m = mmap(NULL, 3 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		keep[10] = m;
		munmap(m + (1 << 20), 1 << 20);
	}
}
NOINL static void f_mmap64(void)
{
	void *m = mmap64(NULL, 2 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED)
		keep[11] = m;
}

int main(void)
{
	f_malloc();
	f_calloc();
	f_realloc_null();
	f_reallocarray();
	void *volatile small = malloc(100);
	f_realloc_grow(small);
	f_posix_memalign();
	f_aligned_alloc();
	f_memalign();
	f_valloc();
	f_pvalloc();
	f_mmap();
	f_mmap64();
	f_malloc0();
	return 0;
}
