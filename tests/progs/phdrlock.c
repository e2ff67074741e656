/* phdrlock.c [MS]: a dl_iterate_phdr callback takes a mutex of the program's that another thread
 * holds while it allocates from ever new call stacks (a profiler's module cache under the lock
 * its allocating code also takes). Untraced nothing waits for long. A tracer whose stack
 * capture waits for the loader's lock (libunwind's lookup of a frame, the module-map check of
 * a new stack) while the callback's thread holds it and waits for the mutex hung for good
 * (before 0.2.56: 6 runs of 6). After MS ms (default 300) both stop. Prints "phdrlock: done". */
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;

static __attribute__((noinline)) void *nested(int n)
{
	void *p = n ? nested(n - 1) : malloc(64);
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return p;
}

static int locking(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info, (void)size, (void)data;
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return 0;
}

static void *walker(void *arg)
{
	while (!stop)
		dl_iterate_phdr(locking, NULL);
	return arg;
}

static void *holder(void *arg)
{
	for (int i = 0; !stop; i++) {
		pthread_mutex_lock(&m);
		free(nested(i % 64));
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t w, h;
	if (pthread_create(&w, NULL, walker, NULL) || pthread_create(&h, NULL, holder, NULL))
		return 1;
	long ms = argc > 1 ? atol(argv[1]) : 300;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	nanosleep(&ts, NULL);
	stop = 1;
	pthread_join(w, NULL);
	pthread_join(h, NULL);
	printf("phdrlock: done\n");
	return 0;
}
