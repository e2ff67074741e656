/* phases.c: phases with known owners (see tests/integration/t_phases.sh for the numbers).
 * A worker nests per-thread phases inside a process-wide one; a pool thread created before
 * any phase inherits the process-wide phase; "load" is begun twice and overlaps "gpu"; a block
 * allocated in "inner" is freed after "gpu" ended. Peak heap (23,100,000 + thread blocks) is
 * reached with "load" and "gpu" active:
 *   load 12,100,000  gpu 5,000,000  outer 4,000,000  inner 2,000,000
 * Calls the API directly through weak symbols: run it only with the tracer preloaded. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[16];
static pthread_barrier_t b;

static void *touch(size_t n)
{
	char *p = malloc(n);
	memset(p, 1, 64);
	return p;
}

static void *pool(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&b); /* wait for "load" */
	keep[1] = touch(600000);
	pthread_barrier_wait(&b);
	pthread_barrier_wait(&b);
	return NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&b);
	pthread_barrier_wait(&b); /* after the pool thread */
	cuzktrace_phase_push("outer");
	keep[2] = touch(1000000);
	cuzktrace_phase_push("inner");
	keep[3] = touch(2000000);
	cuzktrace_phase_pop();
	keep[4] = touch(3000000);
	cuzktrace_phase_pop();
	pthread_barrier_wait(&b);
	return NULL;
}

int main(void)
{
	pthread_t tp, tw;
	pthread_barrier_init(&b, NULL, 3);
	pthread_create(&tp, NULL, pool, NULL);
	pthread_create(&tw, NULL, worker, NULL);
	cuzktrace_phase_begin("load");
	keep[0] = touch(10000000);
	pthread_barrier_wait(&b); /* pool allocates */
	pthread_barrier_wait(&b); /* worker allocates */
	pthread_barrier_wait(&b);
	cuzktrace_phase_begin("gpu");
	keep[5] = touch(5000000);
	cuzktrace_phase_begin("load"); /* counted: load is now begun twice, and the most recent */
	keep[6] = touch(700000);
	cuzktrace_phase_end("load"); /* still active once */
	keep[7] = touch(800000);     /* peak heap */
	usleep(30000);               /* held long enough for RSS samples (--phases-csv rows) */
	cuzktrace_phase_end("gpu");
	free(keep[3]); /* allocated in "inner", freed outside it */
	cuzktrace_phase_end("load");
	keep[8] = touch(900000); /* (none) */
	cuzktrace_phase_end("nonexistent");
	cuzktrace_phase_pop(); /* nothing pushed on this thread: no effect, one warning line */
	pthread_join(tp, NULL);
	pthread_join(tw, NULL);
	for (int i = 0; i < 9; i++)
		if (i != 3)
			free(keep[i]);
	return 0;
}
