/* rawphase.c: a worker thread pushes phase "X", allocates 1,000,000 bytes and ends with the
 * exit system call, skipping glibc's thread exit and the tracer's destructor, which would pop
 * X; then the main thread allocates 2,000,000 bytes (the peak heap) and holds them 300 ms.
 * X ends with its thread: the peak is not during X, and X is active for a moment only (it
 * stayed active to the end before 0.2.60). Prints "rawphase: done". Run it only with the
 * tracer preloaded. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *volatile keep[2];

static void *worker(void *arg)
{
	cuzktrace_phase_push("X");
	keep[0] = malloc(1000000);
	memset(keep[0], 1, 1000000);
	syscall(SYS_exit, 0); /* the kernel still wakes pthread_join (CLONE_CHILD_CLEARTID) */
	return arg;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	usleep(50000);
	keep[1] = malloc(2000000);
	memset(keep[1], 1, 2000000);
	usleep(300000);
	free(keep[1]);
	puts("rawphase: done");
	return 0;
}
