/* fixedholes.c: threads that punch holes in a region of their own and map them again with
 * MAP_FIXED, while threads come and go (the tracer maps a ring for each new one at a time, and
 * grows its buffers). A mapping of the tracer placed in one of those holes would be replaced by
 * the MAP_FIXED mapping, and the process would crash: the tracer's mappings leave 1 MiB free on
 * each side, so they fit in no hole of this 1 MiB region. Prints "fixed ok". Arguments: rounds
 * (default 2000). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REGION (1 << 20)
static char *region;
static long pg;
static int rounds = 2000;

/* thread i punches runs of 1 to 16 pages in its own sixth of the region and maps them again */
static void *puncher(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	long slice = REGION / pg / 6, first = ((long)(uintptr_t)arg - 1) * slice;
	for (int i = 0; i < rounds; i++) {
		long n = 1 + (long)(rand_r(&seed) % 16), k = first + (long)(rand_r(&seed) % (unsigned)(slice - n));
		char *p = region + k * pg;
		munmap(p, (size_t)(n * pg));
		free(malloc(64));
		if (mmap(p, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			abort();
		memset(p, 1, (size_t)(n * pg));
	}
	return NULL;
}

static void *brief(void *arg)
{
	(void)arg;
	free(malloc(100));
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	pg = sysconf(_SC_PAGESIZE);
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 1;
	pthread_t t[6];
	for (int i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, puncher, (void *)(uintptr_t)(i + 1));
	/* threads that come and go, several at once: the tracer maps new rings meanwhile */
	for (int i = 0; i < rounds / 20; i++) {
		pthread_t b[8];
		for (int j = 0; j < 8; j++)
			pthread_create(&b[j], NULL, brief, NULL);
		for (int j = 0; j < 8; j++)
			pthread_join(b[j], NULL);
	}
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	munmap(region, REGION);
	puts("fixed ok");
	return 0;
}
