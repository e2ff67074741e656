/* exit2.c: keeps 100,000 x 32 bytes; two threads, after 200,000 malloc/free pairs each, call
 * exit(0) at the same moment (main waits in pause). Only one of them runs the tracer's
 * destructor; the other ends with glibc's own _exit, which cut the final flush short (every
 * run truncated). The second caller of exit must wait for the trace to be finished.
 * exit2 ret: one thread calls exit(0) while main returns 0 at the same moment (after its own
 * 200,000 pairs): glibc's exit from main is not seen by the exit hook, and either one could
 * cut the other's final flush short (10 runs of 10 truncated, without a word).
 * exit2 race: three threads call exit(0) while main returns, and four exit handlers each free
 * 1,000,000 bytes: the exits walk the handlers together, and any of them may take _dl_fini,
 * with the tracer's destructor (the owner of the exit went on past the tracer's last handler
 * while another was in the final flush: 5 runs of 15 cut short). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t b;
static void *volatile keep[100000];
static void *volatile big[4];

static void free_big0(void)
{
	free(big[0]);
}

static void free_big1(void)
{
	free(big[1]);
}

static void free_big2(void)
{
	free(big[2]);
}

static void free_big3(void)
{
	free(big[3]);
}

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
	int race = argc > 1 && strcmp(argv[1], "race") == 0;
	int threads = race ? 3 : ret ? 1 : 2;
	for (int i = 0; i < 100000; i++)
		keep[i] = malloc(32);
	if (race) {
		for (int i = 0; i < 4; i++)
			big[i] = malloc(1000000);
		atexit(free_big0);
		atexit(free_big1);
		atexit(free_big2);
		atexit(free_big3);
	}
	pthread_barrier_init(&b, NULL, (unsigned)threads + 1);
	pthread_t t[3];
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, work, NULL))
			return 2;
	if (ret || race) {
		pairs();
		pthread_barrier_wait(&b);
		return 0;
	}
	pthread_barrier_wait(&b);
	pause();
	return 1;
}
