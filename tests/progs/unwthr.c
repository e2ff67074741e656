/* unwthr.c: a daemon's pattern: close every descriptor (unwthr close), then start 4 worker
 * threads one after another, each making 10 allocations of 5,000 to 5,009 bytes. The closed
 * descriptors include the pipe libunwind checks memory with: it must be given a new one, or
 * every stack of the workers is lost (they read "(no call stack)" before 0.2.10). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void *volatile keep;
static __attribute__((noinline)) void *worker(void *a)
{
	(void)a;
	for (int i = 0; i < 10; i++)
		keep = malloc(5000 + i);
	return NULL;
}
int main(int argc, char **argv)
{
	keep = malloc(100);
	usleep(150000);
	if (argc > 1 && strcmp(argv[1], "close") == 0)
		close_range(3, ~0U, 0);
	for (int i = 0; i < 4; i++) {
		pthread_t t;
		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, NULL);
	}
	return 0;
}
