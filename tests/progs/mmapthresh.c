/* mmapthresh.c: glibc serves a block of 200 KiB with its own mmap (its threshold starts at 128
 * KiB) unless a freed mmapped block raised the threshold. The tracer must not raise it for the
 * program: after a busy start (1,000,000 malloc/free pairs and 20,000 one-page mmap/munmap
 * pairs: frames of all sizes, which made zstd free and retake its workspace), 300 ms (the
 * writer has flushed, and freed the module map it wrote) and a dlopen (a new module map), a
 * 200 KiB block is still mapped. Prints "mapped 1" when glibc
 * mapped it (its count of mapped blocks went up by one), "mapped 0" when it took it from the
 * heap. */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	for (int i = 0; i < 1000000; i++)
		free(keep = malloc(32));
	for (int i = 0; i < 20000; i++) {
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED || munmap(m, 4096))
			return 3;
	}
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
