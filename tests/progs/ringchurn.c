/* ringchurn.c: 20,000 short threads, 8 at a time, each allocating and freeing 16 blocks. Each
 * thread that records holds an event ring (64 KiB) until the writer has drained it and seen the
 * thread gone; the tracer's memory must not grow with the threads started in a flush interval
 * (it held 55 MiB here before ending threads woke the writer). Prints "ringchurn: done". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *worker(void *arg)
{
	void *volatile p[16];
	for (int i = 0; i < 16; i++)
		p[i] = malloc(64 + (size_t)i);
	for (int i = 0; i < 16; i++)
		free(p[i]);
	return arg;
}

int main(void)
{
	for (int i = 0; i < 20000; i += 8) {
		pthread_t t[8];
		for (int k = 0; k < 8; k++)
			if (pthread_create(&t[k], NULL, worker, NULL))
				return 1;
		for (int k = 0; k < 8; k++)
			pthread_join(t[k], NULL);
	}
	printf("ringchurn: done\n");
	return 0;
}
