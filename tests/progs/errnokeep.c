/* errnokeep.c: a successful malloc, free, mmap or munmap leaves errno as it was (glibc's do),
 * traced too: the tracer's own failed system calls (libunwind's memory checks read an empty
 * pipe: EAGAIN; a producer's futex wait for the writer: EAGAIN, ETIMEDOUT) must not show.
 * 16 threads at a time, 20 rounds; each sets errno to 12345 before every call, the first one
 * its thread's first (the tracer maps its ring then), the others from 0 to 59 frames deep (new
 * stacks to unwind), and counts the calls after which errno changed. Prints that count. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int changed, last_err;
static const char *last_call;

static void check(const char *call)
{
	if (errno != 12345) {
		__atomic_fetch_add(&changed, 1, __ATOMIC_RELAXED);
		last_err = errno;
		last_call = call;
	}
}

__attribute__((noinline)) static void calls_at(int depth, unsigned seed)
{
	if (depth > 0) {
		calls_at(depth - 1, seed * 31 + 7);
		__asm__ volatile("" ::: "memory"); /* not a tail call: each level is a frame */
		return;
	}
	errno = 12345;
	void *volatile p = malloc(seed % 900000 + 1);
	check("malloc");
	errno = 12345;
	free(p);
	check("free");
	errno = 12345;
	void *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check("mmap");
	errno = 12345;
	if (m != MAP_FAILED)
		munmap(m, 8192);
	check("munmap");
}

static void *worker(void *arg)
{
	errno = 12345;
	void *volatile p = malloc(16);
	check("a thread's first malloc");
	free(p);
	for (int i = 0; i < 50; i++)
		calls_at(i % 60, (unsigned)(long)arg * 1000 + (unsigned)i);
	return NULL;
}

int main(void)
{
	for (int round = 0; round < 20; round++) {
		pthread_t t[16];
		for (long i = 0; i < 16; i++)
			if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
				return 2;
		for (int i = 0; i < 16; i++)
			pthread_join(t[i], NULL);
	}
	printf("calls that changed errno: %d", changed);
	if (changed)
		printf(" (the last: %s, %s)", last_call, strerror(last_err));
	printf("\n");
	return changed != 0;
}
