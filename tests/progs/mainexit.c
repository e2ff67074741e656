/* mainexit.c: the main thread allocates 2,000,000 bytes, starts three threads and ends itself
 * with pthread_exit; the threads, after 100 ms, each keep 1,000,000 bytes (touched) and churn
 * 10,000 small blocks, then hold on 50 ms. The process ends (status 0) when the last thread
 * does: the tracer's own threads must not keep it alive, and its trace must be complete with
 * 5,000,000 bytes live and RSS sampled after the main thread ended.
 *   mainexit atexit   instead: main registers an atexit handler that keeps 1,000,000 bytes
 *                     (and prints "mainexit: atexit"), starts one thread that keeps 1,000
 *                     bytes after 100 ms, and ends with pthread_exit. glibc's exit(0) at the
 *                     last thread's end runs the handler: its bytes belong in the trace (the
 *                     tracer finished it before that exit, without them and without a word).
 *   mainexit joiner   the same, and a first handler (run before it) that starts a thread and
 *                     joins it: that thread's end finds glibc's count of threads 0 and makes
 *                     exit(0) again, which runs the second handler and ends the process under
 *                     the first, status 0 (the tracer's threads, counted, let the first go on:
 *                     "mainexit: joiner went on", status 3). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[4];
static void *volatile kept_at_exit;

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

static void at_exit(void)
{
	kept_at_exit = malloc(1000000);
	memset(kept_at_exit, 2, 1000000);
	printf("mainexit: atexit\n");
}

static void *nothing(void *arg)
{
	return arg;
}

static void joiner(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, nothing, NULL) == 0)
		pthread_join(t, NULL);
	printf("mainexit: joiner went on\n");
	fflush(stdout);
	_exit(3);
}

static void *late(void *arg)
{
	(void)arg;
	usleep(100000);
	keep[0] = malloc(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	if (argc > 1 && (!strcmp(argv[1], "atexit") || !strcmp(argv[1], "joiner"))) {
		atexit(at_exit);
		if (!strcmp(argv[1], "joiner"))
			atexit(joiner); /* runs first */
		pthread_create(&t[0], NULL, late, NULL);
		pthread_exit(NULL);
	}
	keep[3] = malloc(2000000);
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_exit(NULL);
}
