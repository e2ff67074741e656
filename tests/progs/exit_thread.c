/* exit_thread.c: a worker thread allocates 3,000,000 bytes and calls exit(0) while main is
 * blocked; the trace must still end with an end record and hold those bytes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep;

static void *worker(void *arg)
{
	(void)arg;
	keep = malloc(3000000);
	memset(keep, 1, 4096);
	exit(0);
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	for (;;)
		pause();
}
