/* pausestuck.c: once the file READY exists (the test has frozen the tracer's writer, for
 * 11 s), calls unshare(CLONE_NEWUSER), waits until 12.5 s after its start, then keeps 100,000
 * blocks of 100 bytes. Usage: pausestuck READY */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep[100000];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	double t0 = now();
	while (access(argv[1], F_OK) != 0 && now() - t0 < 10)
		usleep(10000);
	int rc = unshare(CLONE_NEWUSER);
	printf("pausestuck: unshare: %s\n", rc ? strerror(errno) : "ok");
	while (now() - t0 < 12.5)
		usleep(100000);
	for (int i = 0; i < 100000; i++)
		keep[i] = malloc(100);
	puts("pausestuck: done");
	return 0;
}
