/* mainexit.c: the main thread allocates 2,000,000 bytes, starts three threads and ends itself
 * with pthread_exit; the threads, after 100 ms, each keep 1,000,000 bytes (touched) and churn
 * 10,000 small blocks, then hold on 50 ms. The process ends (status 0) when the last thread
 * does: the tracer's own threads must not keep it alive, and its trace must be complete with
 * 5,000,000 bytes live and RSS sampled after the main thread ended. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[4];

static void *worker(void *arg)
{
	usleep(100000);
	keep[(long)arg] = malloc(1000000);
	memset(keep[(long)arg], 1, 1000000);
	for (int i = 0; i < 10000; i++) {
		void *volatile p = malloc(100);
		free(p);
	}
	usleep(50000);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	keep[3] = malloc(2000000);
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_exit(NULL);
}
