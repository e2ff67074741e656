/* nearpeak.c: late running totals of pool workers that grew right after a peak, which must not
 * count at it (the default mode counts a total that grew in the tick after a peak only while
 * the heap held still at the peak: tests/progs/burstpeak.c is the case it is for). Four workers
 * hold 60 blocks of 1,000 bytes each (sent by a phase pop), then, in one quick step around
 * main's 1 MiB block L made in phase "A", free them (the frees pending: under the 64 KiB step)
 * and make 120 (net +60 blocks pending), and idle until the end.
 *   nearpeak over    main frees L right after making it, before the workers' blocks, and A
 *                    goes on: the top is L's moment; the replay's figure there is already high
 *                    by the workers' pending frees, and counting their later growth there too
 *                    (the heap moved after the peak: L's free) took it past the bound
 *   nearpeak phase   main ends A and begins B right after L, and holds L in B for 80 ms while
 *                    the workers make their blocks: the top is in B; their growth must not be
 *                    counted back at L's moment (it was, and A was named). What the replay
 *                    names instead depends on timing (where RSS peaks, see
 *                    ckt_replay_heap_at_rss): the oracle checks its figures
 * Prints the bytes of L. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NW 4
#define NB 60
static pthread_barrier_t go, done;
static void *blocks[NW][3 * NB];

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	cuzktrace_phase_push("pre");
	for (int i = 0; i < NB; i++)
		blocks[id][i] = malloc(1000);
	cuzktrace_phase_pop(); /* sends the total */
	pthread_barrier_wait(&go);
	for (int i = 0; i < NB; i++)
		free(blocks[id][i]);
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&go);
	for (int i = 0; i < 2 * NB; i++)
		blocks[id][NB + i] = malloc(1000);
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&go); /* idle until the end */
	return NULL;
}

int main(int argc, char **argv)
{
	int phase = argc > 1 && !strcmp(argv[1], "phase");
	size_t big_size = (size_t)1 << 20;
	pthread_t th[NW];
	pthread_barrier_init(&go, NULL, NW + 1);
	pthread_barrier_init(&done, NULL, NW + 1);
	for (long i = 0; i < NW; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i))
			return 1;
	usleep(45000);
	pthread_barrier_wait(&go); /* the quick step: the workers free */
	pthread_barrier_wait(&done);
	cuzktrace_phase_begin("A");
	char *big = malloc(big_size);
	if (!big)
		return 1;
	memset(big, 1, big_size);
	if (phase) {
		cuzktrace_phase_end("A");
		cuzktrace_phase_begin("B");
	} else {
		free(big); /* A goes on: only the heap's change tells the workers' growth from L */
		big = NULL;
	}
	pthread_barrier_wait(&go); /* the workers make their blocks */
	pthread_barrier_wait(&done);
	if (big) {
		usleep(80000);
		free(big);
		cuzktrace_phase_end("B");
	}
	usleep(50000);
	if (!phase)
		cuzktrace_phase_end("A");
	pthread_barrier_wait(&go);
	for (int i = 0; i < NW; i++)
		pthread_join(th[i], NULL);
	char line[32];
	int n = snprintf(line, sizeof(line), "%zu\n", big_size);
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
