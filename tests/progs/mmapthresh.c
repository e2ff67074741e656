/* mmapthresh.c: glibc serves a block of 200 KiB with its own mmap (its threshold starts at 128
 * KiB) unless a freed mmapped block raised the threshold. The tracer must not raise it for the
 * program: after 300 ms (the writer has flushed, and freed the module map it wrote) and a
 * dlopen (a new module map), a 200 KiB block is still mapped. Prints "mapped 1" when glibc
 * mapped it (its count of mapped blocks went up by one), "mapped 0" when it took it from the
 * heap. */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	struct timespec ts = {0, 300000000};
	nanosleep(&ts, NULL);
	if (argc > 1 && !dlopen(argv[1], RTLD_NOW))
		return 2;
	nanosleep(&ts, NULL);
	size_t before = mallinfo2().hblks;
	keep = malloc(200 << 10);
	printf("mapped %zu\n", (size_t)mallinfo2().hblks - before);
	return 0;
}
