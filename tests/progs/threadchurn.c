/* threadchurn.c: 40 threads, one after another, each allocates and frees 2,000 blocks of 100
 * bytes and ends; then the main thread keeps 10,000 blocks of 100 bytes (the heap peak). In the
 * default mode each thread sends running totals; at the peak only the main thread can have any
 * pending (the others have ended), so the bound the report states for the peak is one step,
 * not one per thread that ever ran. */
#include <pthread.h>
#include <stdlib.h>

static void *volatile kept[10000];

static void *worker(void *arg)
{
	static void *volatile keep[2000];
	(void)arg;
	for (int i = 0; i < 2000; i++)
		keep[i] = malloc(100);
	for (int i = 0; i < 2000; i++)
		free(keep[i]);
	return NULL;
}

int main(void)
{
	for (int k = 0; k < 40; k++) {
		pthread_t th;
		if (pthread_create(&th, NULL, worker, NULL))
			return 1;
		pthread_join(th, NULL);
	}
	for (int i = 0; i < 10000; i++)
		kept[i] = malloc(100);
	return 0;
}
