/* keythreads.c: 50 threads one after another, each allocating and freeing one block, in a
 * program linked with libmanykeys.so (40 thread-specific keys taken before the tracer starts):
 * the tracer's key and libunwind's lie past glibc's first 32, so pthread_setspecific callocs
 * on each thread's first event and first stack, inside the tracer's hook. Those are libc's
 * calls, not a signal handler's: nothing may be counted lost. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *run(void *arg)
{
	(void)arg;
	volatile char *p = malloc(100);
	p[0] = 1;
	free((void *)p);
	return NULL;
}

int main(void)
{
	for (int i = 0; i < 50; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	puts("keythreads: done");
	return 0;
}
