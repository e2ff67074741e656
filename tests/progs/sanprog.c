/* sanprog.c: a program to build with a sanitizer (-fsanitize=thread, memory, leak, address):
 * a thread and a few allocations, freed, then one line. Traced beside a runtime the tracer
 * cannot run with (t_failures.sh), it must run as untraced, with the tracer's one line. The
 * Makefile builds it plainly; the test builds it again with each sanitizer the compilers here
 * have. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *work(void *arg)
{
	char *p = malloc(1000);
	memset(p, 1, 1000);
	int sum = p[999] + *(int *)arg;
	free(p);
	return (void *)(long)sum;
}

int main(void)
{
	int seed = 1;
	pthread_t th;
	void *r;
	if (pthread_create(&th, NULL, work, &seed) || pthread_join(th, &r))
		return 3;
	char *q = calloc(1, 4096);
	snprintf(q, 4096, "sanprog: %ld", (long)r);
	puts(q);
	free(q);
	return 0;
}
