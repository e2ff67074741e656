/* threads_bench.c: the tracer's own memory with many threads, for `make bench`.
 * THREADS threads, all alive at once (a barrier before they end), each makes EVENTS/2
 * allocations of SIZE bytes (plus 0..255) from two call sites, holding BATCH of them at a time:
 * the program itself holds almost nothing, so the traced run's extra RSS is the tracer's
 * (rings, unwinder caches, stacks). With blocks of 8 KiB held 10 at a time, the default mode's
 * running totals move by more than a step each batch: a long run of records per thread. GAP_US
 * is a pause after each batch, for threads that record at a moderate rate.
 * Usage: threads_bench [threads=64] [events=100000] [size=16] [batch=1] [gap_us=0] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int events = 100000, size = 16, batch = 1, gap_us = 0;
static pthread_barrier_t done;
static volatile uint64_t sink;

static __attribute__((noinline)) void *site_a(size_t n) { return malloc(n); }
static __attribute__((noinline)) void *site_b(size_t n) { return malloc(n + 8); }

static void *worker(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg * 2654435761u + 1, acc = 0;
	char *held[64];
	for (int i = 0; i < events / 2; i += batch) {
		for (int k = 0; k < batch; k++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			size_t n = (size_t)size + (seed >> 8 & 255);
			char *p = (seed & 1) ? site_a(n) : site_b(n);
			p[0] = (char)seed;
			acc += (uint64_t)p[0];
			held[k] = p;
		}
		for (int k = 0; k < batch; k++)
			free(held[k]);
		if (gap_us) {
			struct timespec ts = {0, gap_us * 1000L};
			nanosleep(&ts, NULL);
		}
	}
	sink += acc;
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 64;
	if (argc > 2)
		events = atoi(argv[2]);
	if (argc > 3)
		size = atoi(argv[3]);
	if (argc > 4)
		batch = atoi(argv[4]);
	if (argc > 5)
		gap_us = atoi(argv[5]);
	if (threads < 1 || threads > 16384 || events < 2 || size < 1 || batch < 1 || batch > 64 ||
	    gap_us < 0 || gap_us > 999999) {
		fprintf(stderr, "usage: threads_bench [threads] [events] [size] [batch] [gap_us]\n");
		return 2;
	}
	pthread_t *th = calloc((size_t)threads, sizeof(*th));
	if (!th || pthread_barrier_init(&done, NULL, (unsigned)threads) != 0)
		return 1;
	for (int t = 0; t < threads; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t) != 0)
			return 1;
	for (int t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	printf("threads_bench: %llx\n", (unsigned long long)sink);
	free(th);
	return 0;
}
