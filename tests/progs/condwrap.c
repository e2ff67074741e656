/* condwrap.c: a program that counts its condition waits by defining pthread_cond_wait (passing
 * each call on to glibc's), exported when linked with -rdynamic, as programs that print their
 * own backtraces are. Built by t_failures.sh with AddressSanitizer: its runtime's interceptors
 * and this one export must not be taken for ThreadSanitizer's (which the tracer cannot run
 * beside); the Makefile builds it plainly too. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long waits;

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	static int (*real)(pthread_cond_t *, pthread_mutex_t *);
	if (!real)
		real = (int (*)(pthread_cond_t *, pthread_mutex_t *))dlvsym(RTLD_NEXT, "pthread_cond_wait",
									     "GLIBC_2.3.2");
	waits++;
	return real ? real(c, m) : -1;
}

int main(void)
{
	char *p = malloc(100);
	p[0] = 1;
	printf("condwrap: %d waits %ld\n", p[0], waits);
	free(p);
	return 0;
}
