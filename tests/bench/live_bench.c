/* live_bench.c: a large live set for `make bench`, the reader's hard case.
 * Each of THREADS threads runs 2 rounds of: allocate N blocks of 24 bytes (densely packed by
 * the allocator), free every other one, allocate those again (24 or 32 bytes), then free all
 * in reverse order. At the top of a round THREADS * N blocks are live at once, so the reader's
 * live-block table is far bigger than the caches and nearly every lookup is a miss.
 * Usage: live_bench [threads=4] [n=1500000] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int n = 1500000;
static void *run(void *arg)
{
	/* volatile: every block escapes, so no allocation can be optimized away */
	void *volatile *v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return arg;
	for (int r = 0; r < 2; r++) {
		for (int i = 0; i < n; i++)
			v[i] = malloc(24);
		for (int i = 0; i < n; i += 2)
			free(v[i]);
		for (int i = 0; i < n; i += 2)
			v[i] = malloc(24 + (size_t)(i & 2) * 4);
		for (int i = n - 1; i >= 0; i--)
			free(v[i]);
	}
	free((void *)v);
	return arg;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		n = atoi(argv[2]);
	if (threads < 1 || threads > 256 || n < 1) {
		fprintf(stderr, "usage: live_bench [threads] [n]\n");
		return 2;
	}
	pthread_t th[256];
	for (int t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, run, NULL);
	for (int t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	printf("live_bench: %d threads x %d blocks\n", threads, n);
	return 0;
}
