/* exit2.c: keeps 100,000 x 32 bytes; two threads, after 200,000 malloc/free pairs each, call
 * exit(0) at the same moment (main waits in pause). Only one of them runs the tracer's
 * destructor; the other ends with glibc's own _exit, which cut the final flush short (every
 * run truncated). The second caller of exit must wait for the trace to be finished.
 * exit2 ret: one thread calls exit(0) while main returns 0 at the same moment (after its own
 * 200,000 pairs): glibc's exit from main is not seen by the exit hook, and either one could
 * cut the other's final flush short (10 runs of 10 truncated, without a word). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t b;
static void *volatile keep[100000];

static void pairs(void)
{
	void *volatile sink; /* each thread its own: a shared one had one thread free the other's */
	for (int i = 0; i < 200000; i++) {
		sink = malloc(16 + (size_t)(i & 255));
		free(sink);
	}
}

static void *work(void *a)
{
	pairs();
	pthread_barrier_wait(&b);
	exit(0);
	return a;
}

int main(int argc, char **argv)
{
	int ret = argc > 1 && strcmp(argv[1], "ret") == 0;
	for (int i = 0; i < 100000; i++)
		keep[i] = malloc(32);
	pthread_barrier_init(&b, NULL, ret ? 2 : 3);
	pthread_t t[2];
	for (int i = 0; i < 2 - ret; i++)
		if (pthread_create(&t[i], NULL, work, NULL))
			return 2;
	if (ret) {
		pairs();
		pthread_barrier_wait(&b);
		return 0;
	}
	pthread_barrier_wait(&b);
	pause();
	return 1;
}
