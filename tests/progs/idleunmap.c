/* idleunmap.c [warm]: a thread whose previous event is more than 10 s old (it sleeps 10.2 s;
 * with "warm" it allocates first, else the munmap is its very first event) unmaps a
 * 512 MiB populated region, which takes many milliseconds, while the main thread keeps
 * allocating (so the writer flushes all along). The munmap is stamped before the call: the
 * SYNC horizon must wait for it however long ago the thread's previous event was. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void *region;
static const size_t len = (size_t)512 << 20;
static volatile int done;

static void *idle_then_unmap(void *arg)
{
	if (arg) { /* an event first, then nothing for 10.2 s */
		void *volatile p = malloc(100000);
		free(p);
	}
	usleep(10200000);
	munmap(region, len);
	done = 1;
	return arg;
}

int main(int argc, char **argv)
{
	region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	(void)argv;
	if (region == MAP_FAILED)
		return 2;
	pthread_t th;
	pthread_create(&th, NULL, idle_then_unmap, argc > 1 ? (void *)1 : NULL);
	while (!done) {
		void *volatile p = malloc(1 << 20);
		usleep(200);
		free(p);
	}
	pthread_join(th, NULL);
	puts("idleunmap: done");
	return 0;
}
