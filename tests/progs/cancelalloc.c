/* cancelalloc.c: deferred cancellation of threads that allocate. malloc, calloc, realloc and
 * free are not cancellation points: a thread may be cancelled only at its pthread_testcancel,
 * between allocations. ROUNDS (default 30) rounds of 8 threads, cancelled after 3 ms; a
 * cleanup handler notes a thread cancelled anywhere else (inside an allocation call: the
 * tracer's stack capture once went through glibc's read, a cancellation point). Prints
 * "cancelalloc: elsewhere N" (0 expected) with write(2). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 8
static volatile int where[THREADS]; /* 0: at the cancellation point; 1: in an allocation */
static volatile int elsewhere;

static void noted(void *arg)
{
	if (where[(long)arg])
		elsewhere++;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	unsigned seed = (unsigned)id + 1;
	pthread_cleanup_push(noted, arg);
	for (;;) {
		where[id] = 1;
		char *volatile p = malloc((size_t)(rand_r(&seed) % 200000) + 1);
		if (p)
			p[0] = 1;
		void *volatile q = realloc(p, (size_t)(rand_r(&seed) % 30000) + 1);
		free(q);
		void *volatile c = calloc(1, (size_t)(rand_r(&seed) % 10000) + 1);
		free(c);
		where[id] = 0;
		pthread_testcancel();
	}
	pthread_cleanup_pop(0);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 30;
	for (int r = 0; r < rounds; r++) {
		pthread_t th[THREADS];
		for (long i = 0; i < THREADS; i++) {
			where[i] = 0;
			if (pthread_create(&th[i], NULL, worker, (void *)i))
				return 2;
		}
		usleep(3000);
		for (int i = 0; i < THREADS; i++)
			pthread_cancel(th[i]);
		for (int i = 0; i < THREADS; i++) {
			void *rv;
			pthread_join(th[i], &rv);
			if (rv != PTHREAD_CANCELED)
				return 3;
		}
	}
	char line[64];
	int n = snprintf(line, sizeof(line), "cancelalloc: elsewhere %d\n", elsewhere);
	return write(1, line, (size_t)n) == n ? 0 : 4;
}
