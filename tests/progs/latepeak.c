/* latepeak: a worker's small blocks sit in its running total (60 x 1000 bytes, under the
 * default mode's 64 KiB step) while main makes the peak heap right after them, and it idles
 * until main is done: its total is sent late, at its exit. The heap was at its top from main's
 * 16 MiB block until its free, 60 ms later, with RSS sampled meanwhile. The report's peak heap
 * must count the worker's blocks, and the heap it shows at the peak RSS must not exceed the
 * peak heap (it did: the late total counted at the later RSS sample, not at the peak, which
 * lay within the coarse clock's tick of the worker's last change).
 * Prints the bytes the program itself held at the top: the 16 MiB block and the small blocks'
 * usable sizes (glibc's own blocks come on top). */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSMALL 60
static pthread_barrier_t made, done;
static void *small[NSMALL];
static size_t small_usable;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < NSMALL; i++) {
		small[i] = malloc(1000);
		small_usable += malloc_usable_size(small[i]);
	}
	pthread_barrier_wait(&made);
	pthread_barrier_wait(&done); /* idle while main holds the peak */
	for (int i = 0; i < NSMALL; i++)
		free(small[i]);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_barrier_init(&made, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	pthread_barrier_wait(&made);
	size_t big_size = (size_t)16 << 20;
	char *big = malloc(big_size);
	if (!big)
		return 1;
	memset(big, 1, big_size);
	__asm__ volatile("" : : "r"(big) : "memory"); /* the pages stay written: RSS holds them */
	usleep(60000); /* RSS samples while the heap is at its top */
	free(big);
	pthread_barrier_wait(&done);
	pthread_join(t, NULL);
	printf("%zu\n", big_size + small_usable);
	return 0;
}
