/* pausestuck.c: once the file READY exists (the test has frozen the tracer's writer),
 * calls unshare(CLONE_NEWUSER) and prints its outcome at once (the test holds the writer frozen
 * until then), waits for the file THAWED (the writer runs again), then keeps 100,000 blocks of
 * 100 bytes. Each wait ends after 30 s. Usage: pausestuck READY THAWED */
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
	if (argc < 3)
		return 2;
	double t0 = now();
	while (access(argv[1], F_OK) != 0 && now() - t0 < 30)
		usleep(10000);
	int rc = unshare(CLONE_NEWUSER);
	printf("pausestuck: unshare: %s\n", rc ? strerror(errno) : "ok");
	fflush(stdout);
	t0 = now();
	while (access(argv[2], F_OK) != 0 && now() - t0 < 30)
		usleep(10000);
	for (int i = 0; i < 100000; i++)
		keep[i] = malloc(100);
	puts("pausestuck: done");
	return 0;
}
