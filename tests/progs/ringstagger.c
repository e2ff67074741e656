/* ringstagger.c: busy threads that end one after another while the others go on. Thread i of
 * N (default 48) makes (i + 1) x K (default 4000) malloc/free pairs, so the threads end in
 * turn; each ended thread's ring goes back to the budget that bounds the grown windows of all
 * rings together (16 MiB past the first windows), which the busy threads left take. The ended
 * ring's pages must go back to the kernel with it: before, they stayed (madvise of a range
 * that did not start on a page failed), and 48 threads held 48 MiB of rings where the budget
 * is 19 MiB. Prints the process's VmHWM in kB ("hwm N") and "ringstagger: done". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long K = 4000;

static void *worker(void *arg)
{
	long n = ((long)arg + 1) * K;
	for (long i = 0; i < n; i++) {
		char *volatile p = malloc(16 + (size_t)(i & 63));
		p[0] = 1;
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 48;
	if (argc > 2)
		K = atol(argv[2]);
	pthread_t t[512];
	if (nt < 1 || nt > 512)
		return 2;
	for (long i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			printf("hwm %ld\n", strtol(line + 6, NULL, 10));
	printf("ringstagger: done\n");
	return 0;
}
