/* burstpeak.c: the peak heap is the end of a burst of small blocks that four pool workers make
 * in phase "msm" (process-wide, begun by main): 1,187 blocks of 1,000 bytes each, which leaves
 * 65 of them (65,000 bytes) pending in each worker's running total, under the default mode's
 * 64 KiB step. The workers then idle; main ends msm 60 ms later, and 30 ms after that the
 * workers free their blocks ("exit": they exit 300 ms later, freeing nothing). Nothing changes
 * the heap between the end of the burst and the workers' next step, so the top is first
 * reached at the burst's end, in msm. The workers' last totals go out late, at that next step,
 * made within the coarse clock's tick of the peak (the burst ends at the peak): the default
 * mode counted them at no moment, or at their send, and named the peak there, in no phase
 * (19 runs in 20, the bytes exact). Prints the program's own bytes at the top. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NW 4
#define K 1187
static pthread_barrier_t go, done;
static void *blocks[NW][K];
static int free_them = 1;

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	pthread_barrier_wait(&go);
	for (int i = 0; i < K; i++)
		blocks[id][i] = malloc(1000);
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&go); /* idle */
	if (free_them)
		for (int i = 0; i < K; i++)
			free(blocks[id][i]);
	return NULL;
}

int main(int argc, char **argv)
{
	int gap_ms = 30;
	if (argc > 1 && !strcmp(argv[1], "exit")) {
		free_them = 0;
		gap_ms = 300;
	}
	pthread_t th[NW];
	pthread_barrier_init(&go, NULL, NW + 1);
	pthread_barrier_init(&done, NULL, NW + 1);
	for (long i = 0; i < NW; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i))
			return 1;
	usleep(20000);
	cuzktrace_phase_begin("msm");
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&done);
	usleep(60000);
	cuzktrace_phase_end("msm");
	usleep((useconds_t)gap_ms * 1000);
	pthread_barrier_wait(&go);
	for (int i = 0; i < NW; i++)
		pthread_join(th[i], NULL);
	/* not printf: stdout's buffer, allocated at the first printf, would be a new top */
	char line[32];
	int n = snprintf(line, sizeof(line), "%d\n", NW * K * 1000);
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
