/* userns.c: keeps 1,000,000 bytes, enters a new user namespace with unshare(CLONE_NEWUSER)
 * (which the kernel allows only in a single-threaded process), then has a thread keep
 * 2,000,000 bytes more. Prints "userns: ok" or the call's error. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile keep[2];

static void *worker(void *arg)
{
	(void)arg;
	keep[1] = malloc(2000000);
	return NULL;
}

int main(void)
{
	keep[0] = malloc(1000000);
	if (unshare(CLONE_NEWUSER) != 0) {
		printf("userns: unshare: %s\n", strerror(errno));
		return 1;
	}
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	puts("userns: ok");
	return 0;
}
