/* filtergrow.c: sampled frees of the default mode across the growth of the tracer's filter of
 * sampled pointers (preload/sample.c). Traced with CUZKTRACE_SAMPLE=1024 and a short flush
 * interval: in phase "hold" 4 threads each allocate 12,500 blocks of 1000 bytes (50 MB; each
 * block is sampled with p = 1 - exp(-1000/1024) = 0.62, so about 31,000 samples live, past the
 * 16,384 at which the writer moves the filter to its big bitmap) and keep them 300 ms; then each
 * thread frees the blocks of the next thread while it allocates and frees 200,000 more (new
 * samples and releases while the filter may still be switching). Then, in phase "after", the
 * main thread allocates 64,000 blocks of 1000 bytes: the new heap peak (64 MB). Every block of
 * "hold" was freed, so if every sampled free was recognised, "hold" has nothing at that peak.
 * Calls the API through weak symbols: run it only with the tracer preloaded. */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 4
#define HOLD 12500

static void *blocks[THREADS][HOLD];
static void *volatile sink;
static pthread_barrier_t bar;

static void *worker(void *arg)
{
	long k = (long)arg;
	pthread_barrier_wait(&bar); /* "hold" has begun */
	for (int i = 0; i < HOLD; i++)
		blocks[k][i] = malloc(1000);
	pthread_barrier_wait(&bar); /* all held */
	pthread_barrier_wait(&bar); /* after the pause */
	void **theirs = blocks[(k + 1) % THREADS];
	for (int i = 0; i < 200000; i++) {
		void *p = malloc(16 + (size_t)(i & 511));
		if (i % 16 == 0 && i / 16 < HOLD)
			free(theirs[i / 16]);
		sink = p;
		free(p);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	pthread_barrier_init(&bar, NULL, THREADS + 1);
	for (long k = 0; k < THREADS; k++) /* the threads' own blocks come before any phase */
		pthread_create(&th[k], NULL, worker, (void *)k);
	CUZKTRACE_PHASE_BEGIN("hold");
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	struct timespec ts = {0, 300000000};
	nanosleep(&ts, NULL);
	pthread_barrier_wait(&bar);
	for (int k = 0; k < THREADS; k++)
		pthread_join(th[k], NULL);
	CUZKTRACE_PHASE_END("hold");
	CUZKTRACE_PHASE_BEGIN("after");
	static void *mine[64000];
	for (int i = 0; i < 64000; i++)
		mine[i] = malloc(1000);
	for (int i = 0; i < 64000; i++)
		free(mine[i]);
	CUZKTRACE_PHASE_END("after");
	return 0;
}
