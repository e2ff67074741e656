/* setxidexit.c: keeps 1,000 x 32 bytes, makes 300,000 malloc/free pairs and exits, while
 * another thread calls setgid(getgid()) in a loop: glibc sends its internal SIGSETXID to every
 * thread for each call, which no mask blocks, so the exiting thread's waits for the final
 * flush are cut short thousands of times a second. Run with a slow final flush
 * (CUZKTRACE_ZSTD_LEVEL=19, a long flush interval): the trace must be complete (before, the
 * tracer counted each cut wait as a second and gave up after ten: "no progress for 10 s" in a
 * few milliseconds, the trace left cut short). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep[1000];

static void *loop(void *a)
{
	for (;;)
		if (setgid(getgid()) != 0)
			return a;
}

int main(void)
{
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(32);
	pthread_t t;
	if (pthread_create(&t, NULL, loop, NULL))
		return 2;
	for (int i = 0; i < 300000; i++) {
		void *volatile p = malloc(16 + (size_t)(i & 1023));
		free(p);
	}
	exit(0);
}
