/* aggfirst.c MODE R: the default mode's heap bound holds for threads whose first event is not a
 * small block. Four workers first push a phase (MODE "phase"), or allocate and free a block of
 * 2 R ("big"), or do nothing ("none"); then each allocates 600 blocks of 100 bytes (62,400
 * usable bytes, under the 64 KiB step at which running totals are sent) and waits; the main
 * thread allocates a block of 8 R (the heap peak) and frees it; the workers free theirs.
 * Prints "truth <usable bytes live at the peak>" from malloc_usable_size. */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKERS 4
#define BLOCKS 600

static const char *mode;
static size_t rate;
static void *blocks[WORKERS][BLOCKS];
static size_t held[WORKERS];
static pthread_barrier_t ready, done;

static void *worker(void *arg)
{
	long k = (long)arg;
	if (!strcmp(mode, "phase"))
		CUZKTRACE_PHASE_PUSH("work");
	if (!strcmp(mode, "big")) {
		void *volatile q = malloc(2 * rate);
		free(q);
	}
	for (int i = 0; i < BLOCKS; i++) {
		blocks[k][i] = malloc(100);
		held[k] += malloc_usable_size(blocks[k][i]);
	}
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[k][i]);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	mode = argv[1];
	rate = strtoul(argv[2], NULL, 10);
	pthread_barrier_init(&ready, NULL, WORKERS + 1);
	pthread_barrier_init(&done, NULL, WORKERS + 1);
	pthread_t th[WORKERS];
	for (long k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, (void *)k);
	pthread_barrier_wait(&ready);
	char *volatile big = malloc(8 * rate);
	size_t truth = malloc_usable_size(big);
	for (int k = 0; k < WORKERS; k++)
		truth += held[k];
	free(big);
	pthread_barrier_wait(&done);
	for (int k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	printf("truth %zu\n", truth);
	return 0;
}
