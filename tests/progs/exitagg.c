/* exitagg.c: default mode, running totals pending at exit. 16 workers each allocate 50 blocks
 * of 1,000 bytes and keep them (the first goes out at once as a running total, the other 49
 * stay pending in the thread's total, under the 64 KiB step), then wait for main, which
 * sleeps 20 ms and calls exit(); as it does, each worker spins 100 + 25 * w us and allocates
 * one more block of 20,000 bytes (kept): its first allocation after the writer's last tick
 * sends what it held, past the last flush's snapshot. The 800 kept blocks were live from
 * 20 ms before the end: the heap live at exit holds them (before 0.2.58 a worker's 49 KB
 * were lost in about a third of runs). `exitagg quiet`: the workers make no last block (the
 * heap at exit is then the same in every run). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define KEEP 50
#define NW 16
static atomic_int done, exiting, quiet;
static void *volatile kept[NW][KEEP + 1];

static void spin_us(long us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *worker(void *a)
{
	long w = (long)a;
	for (int i = 0; i < KEEP; i++)
		kept[w][i] = malloc(1000);
	atomic_fetch_add(&done, 1);
	while (!atomic_load(&exiting))
		sched_yield();
	spin_us(100 + 25 * w);
	if (!atomic_load(&quiet))
		kept[w][KEEP] = malloc(20000);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	atomic_store(&quiet, argc > 1);
	for (long w = 0; w < NW; w++)
		if (pthread_create(&th, NULL, worker, (void *)w) != 0)
			return 1;
	while (atomic_load(&done) < NW)
		sched_yield();
	usleep(20000);
	atomic_store(&exiting, 1);
	exit(0);
}
