/* bigstacks.c: memory the tracer cannot see on thread stacks. THREADS threads with 16 MiB
 * stacks each touch 12 MiB of their stack and wait for the others (so all of it is resident at
 * once, for 200 ms: the RSS sampler sees it), while the heap stays tiny.
 * Usage: bigstacks [threads=8] */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t all_touched;

static void *run(void *arg)
{
	(void)arg;
	size_t n = (size_t)12 << 20;
	volatile char *p = __builtin_alloca(n);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	pthread_barrier_wait(&all_touched);
	usleep(200000);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	if (threads < 1 || threads > 64)
		return 2;
	pthread_t th[64];
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)16 << 20);
	pthread_barrier_init(&all_touched, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&th[i], &a, run, NULL) != 0)
			return 1;
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
