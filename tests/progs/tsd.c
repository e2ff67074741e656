/* tsd.c: 50 threads, one after the other, each allocate 200 blocks of 1,000 bytes that their
 * pthread key destructor frees at thread exit, after the tracer's own exit destructor has run.
 * Those frees must be counted: at exit only glibc's own blocks are live (< 1 KiB). */
#include <pthread.h>
#include <stdlib.h>

#define NB 200
static pthread_key_t key;
static void *volatile sink;

static void dtor(void *v)
{
	void **b = v;
	for (int i = 0; i < NB; i++)
		free(b[i]);
	free(b);
}

static void *worker(void *a)
{
	(void)a;
	void **b = malloc(NB * sizeof *b);
	for (int i = 0; i < NB; i++) {
		b[i] = malloc(1000);
		sink = b[i];
	}
	pthread_setspecific(key, b);
	return NULL;
}

int main(void)
{
	pthread_key_create(&key, dtor);
	for (int r = 0; r < 50; r++) {
		pthread_t t;
		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, NULL);
	}
	return 0;
}
