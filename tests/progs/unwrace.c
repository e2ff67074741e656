/* unwrace.c (from a review of 0.2.10): after a close-all, 16 threads (made beforehand, waiting
 * on a barrier) allocate at once, each capture asking libunwind to check new stack pages:
 * several threads find the tracer's private pipe gone and make it again at once. Prints the
 * pipe descriptors the process holds after ROUNDS rounds: more than 2 (run with no pipe on
 * stdin, stdout or stderr), or bytes piling up in one, is a race. Usage: unwrace ROUNDS */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#define N 16
static void *volatile keep;
static pthread_barrier_t go, ready;
static __attribute__((noinline)) void deep(int n)
{
	volatile char pad[8192];
	pad[0] = (char)n;
	if (n > 0) deep(n - 1); else keep = malloc(4096 + n);
	pad[1] = pad[0];
}
static void *worker(void *a)
{
	(void)a;
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	deep(6);
	return NULL;
}
static int maxq;
static void *worker2(void *a) { (void)a; deep(6); return NULL; }
static int pipes(int print)
{
	int c = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char l[64], p[300];
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(p, l, sizeof(l) - 1);
		if (n > 0) {
			l[n] = 0;
			if (!strncmp(l, "pipe:", 5)) {
				c++;
				int q = 0, fd = atoi(e->d_name);
				if (ioctl(fd, FIONREAD, &q) == 0 && q > maxq) maxq = q;
				if (print) printf(" %s=%s", e->d_name, l);
			}
		}
	}
	if (d) closedir(d);
	return c;
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	deep(6);
	keep = malloc(100);
	usleep(100000);
	for (int r = 0; r < rounds; r++) {
		pthread_t t[N];
		pthread_barrier_init(&go, NULL, N + 1);
		pthread_barrier_init(&ready, NULL, N + 1);
		for (int i = 0; i < N; i++) pthread_create(&t[i], NULL, worker, NULL);
		pthread_barrier_wait(&ready);
		close_range(3, ~0U, 0);
		pthread_barrier_wait(&go);
		for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
		pthread_barrier_destroy(&go);
		pthread_barrier_destroy(&ready);
	}
	int c = pipes(0);
	printf("pipes after %d rounds: %d (2 expected); most bytes waiting in one: %d\n", rounds, c, maxq);
	if (argc > 2) { /* then new threads one by one, no close: libunwind checks their stacks */
		int m = atoi(argv[2]);
		for (int i = 0; i < m; i++) { pthread_t t; pthread_create(&t, NULL, worker2, NULL); pthread_join(t, NULL); }
		maxq = 0; c = pipes(0);
		printf("after %d more threads: pipes %d; most bytes waiting in one: %d\n", m, c, maxq);
	}
	return 0;
}
