/* munmaphole.c: a program unmaps the middle page of 5 it mapped, starts threads (the tracer
 * maps memory for them: the kernel may put it in the hole), then unmaps the 5 pages again:
 * legal, untraced nothing is there. The tracer's pages in the hole must survive it (they were
 * taken: its writer crashed, the program died with SIGSEGV), and the program's own 4 pages go
 * (the trace shows them unmapped). Prints "hole ok". With "many": 200 rounds, a hole each. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void ms(int n)
{
	struct timespec t = { n / 1000, (n % 1000) * 1000000L };
	nanosleep(&t, NULL);
}

static void *worker(void *arg)
{
	(void)arg;
	free(malloc(100));
	ms(30);
	return NULL;
}

static int round_(long pg, int threads, int wait_ms)
{
	char *a = mmap(NULL, 5 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return 1;
	memset(a, 1, 5 * pg);
	if (munmap(a + 2 * pg, pg) != 0)
		return 1;
	pthread_t t[8];
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	ms(wait_ms);
	if (munmap(a, 5 * pg) != 0) {
		printf("munmap: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	free(malloc(100));
	return 0;
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	int many = argc > 1 && strcmp(argv[1], "many") == 0;
	for (int r = 0; r < (many ? 200 : 1); r++)
		if (round_(pg, many ? 2 : 4, many ? 5 : 250))
			return 1;
	ms(250); /* the writer flushes with what it mapped in the hole */
	puts("hole ok");
	return 0;
}
