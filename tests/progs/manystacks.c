/* manystacks.c: 2^DEPTH distinct call stacks of a malloc, each a path of DEPTH calls through
 * two functions chosen by the bits of a counter; THREADS threads (started together) make the
 * same stacks in the same order, racing to be the first with each new one. Prints the
 * process's VmHWM in kB at the end ("hwm N").
 * Usage: manystacks [depth=13] [threads=1] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void go(int d, unsigned bits);
static void *volatile sink;

__attribute__((noinline)) static void left(int d, unsigned bits)
{
	go(d, bits);
	__asm__ volatile("" ::: "memory"); /* no tail call: each path is its own stack */
}

__attribute__((noinline)) static void right(int d, unsigned bits)
{
	go(d, bits);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void go(int d, unsigned bits)
{
	if (!d) {
		/* each thread frees its own block: through the shared sink, one thread freed
		 * another's and glibc aborted the program ("double free or corruption") */
		void *p = malloc(16);
		sink = p;
		free(p);
		return;
	}
	if (bits & 1)
		left(d - 1, bits >> 1);
	else
		right(d - 1, bits >> 1);
	__asm__ volatile("" ::: "memory");
}

static int depth = 13;
static pthread_barrier_t start;

static void *run(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (unsigned i = 0; i < 1u << depth; i++)
		go(depth, i);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		depth = atoi(argv[1]);
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	if (depth < 1 || depth > 20 || threads < 1 || threads > 64)
		return 2;
	pthread_t t[64];
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, run, NULL);
	run(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6))
			printf("hwm %ld\n", strtol(line + 6, NULL, 10));
	return 0;
}
