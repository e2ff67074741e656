/* longrealloc.c: one realloc of a heap block of argv[1] MiB (default 1024) that must move, so
 * the real call copies it (seconds, between the hook's stamp and its commit), then 2 s of small
 * allocations so the writer flushes several times more. Prints "realloc" just before the call
 * and "realloc took N ms" after it, so a test can stop the process inside the call and know
 * whether it did. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep, *volatile fence;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atol(argv[1]) : 1024) << 20;
	mallopt(M_MMAP_MAX, 0); /* a heap block: realloc copies instead of calling mremap */
	char *p = malloc(n);
	if (!p)
		return 1;
	memset(p, 1, n);
	fence = malloc(1 << 20); /* right after it: the block cannot grow in place */
	printf("realloc\n");
	fflush(stdout);
	long t0 = now_ms();
	keep = realloc(p, n + (1 << 20));
	printf("realloc took %ld ms\n", now_ms() - t0);
	fflush(stdout);
	for (int i = 0; i < 200; i++) {
		fence = malloc(100);
		usleep(10000);
	}
	return keep ? 0 : 1;
}
