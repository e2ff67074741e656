/* bigtls.c: 3 MiB of static TLS (every thread has it, the tracer's too, on whatever stack it
 * is given), four threads that each make and free 512,000 blocks, then 1 MiB kept.
 * Prints "bigtls: ok". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__thread char big[3 << 20];
static void *volatile keep;

static void *worker(void *arg)
{
	void *p[256];
	big[5] = 1;
	for (int r = 0; r < 2000; r++) {
		for (int i = 0; i < 256; i++)
			p[i] = malloc(16 + (size_t)i);
		for (int i = 0; i < 256; i++)
			free(p[i]);
	}
	return arg;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	keep = malloc(1 << 20);
	memset(keep, 1, 1 << 20);
	puts("bigtls: ok");
	return 0;
}
