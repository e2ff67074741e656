/* quickrace.c: N threads call quick_exit(4) at once while the main thread allocates; one
 * at_quick_exit handler of the program frees a block and prints "qh". glibc lets the threads
 * walk the handlers together, and one that finds the list empty ends the process with its
 * own _exit, out of the hooks' reach: the trace was cut short without a word while another
 * thread was in the tracer's handler (2 runs of 4 with two threads, every run with eight). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t go;
static void *volatile keep;

static void on_quick_exit(void)
{
	free(keep);
	if (write(1, "qh\n", 3) != 3)
		_exit(3);
}

static void *worker(void *a)
{
	pthread_barrier_wait(&go);
	for (int i = 0; i < 2000; i++) {
		void *volatile p = malloc(100 + (size_t)i);
		free(p);
	}
	quick_exit(4);
	return a;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t;
	keep = malloc(5000);
	at_quick_exit(on_quick_exit);
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, NULL, worker, NULL))
			return 2;
	pthread_barrier_wait(&go);
	for (;;) {
		void *volatile p = malloc(777);
		free(p);
	}
}
